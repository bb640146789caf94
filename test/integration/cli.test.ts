/** The ops CLI against the local engines: what an ops engineer runs and what the API then does. */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../../bin/cli/run';
import { startTestStack, type TestStack } from '../support/test-stack';

let stack: TestStack;
beforeAll(async () => {
  stack = await startTestStack();
});
afterAll(() => stack.stop());

async function cli(...argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(argv, { out: (l) => out.push(l), err: (l) => err.push(l) });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

const methods = (apiKey: string) => stack.request('/api/v1/methods', { apiKey });

describe('npm run cli', () => {
  it('creates a merchant and prints its id, a sk_test_ key and a webhook secret as JSON', async () => {
    const r = await cli('merchants', 'create', '--name', 'Acme Ltda', '--countries', 'BRA,MEX', '--json');
    expect(r.code).toBe(0);
    const created = JSON.parse(r.out);
    expect(created.merchant_id).toMatch(/^mch_[A-Za-z0-9_-]{22}$/);
    expect(created.api_key).toMatch(/^sk_test_[A-Za-z0-9_-]{43}$/);
    expect(created.webhook_secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(created.webhook_secret.slice(6), 'base64')).toHaveLength(32);
    const res = await methods(created.api_key);
    expect(res.status).toBe(200);
    expect(new Set(res.body.methods.map((m: { country: string }) => m.country))).toEqual(new Set(['BRA', 'MEX']));
  });

  it('creates, lists and revokes keys', async () => {
    const { merchant_id } = JSON.parse((await cli('merchants', 'create', '--name', 'Keys Co', '--json')).out);
    const key = JSON.parse((await cli('keys', 'create', merchant_id, '--scopes', 'methods:read', '--json')).out);
    expect(key).toMatchObject({ mode: 'test', scopes: ['methods:read'] });
    expect((await methods(key.api_key)).status).toBe(200);
    const listed = JSON.parse((await cli('keys', 'list', merchant_id, '--json')).out);
    expect(listed).toHaveLength(2);
    expect(JSON.stringify(listed)).not.toContain(key.api_key);
    expect(listed.find((k: { key_id: string }) => k.key_id === key.key_id).hint).toBe(`sk_test_…${key.api_key.slice(-4)}`);
    const revoked = await cli('keys', 'revoke', merchant_id, key.key_id);
    expect(revoked.code).toBe(0);
    expect((await methods(key.api_key)).status).toBe(401);
    const again = await cli('keys', 'revoke', merchant_id, key.key_id);
    expect(again.code).toBe(1);
  });

  it('deactivates and activates a merchant', async () => {
    const m = JSON.parse((await cli('merchants', 'create', '--name', 'Sleepy', '--json')).out);
    expect((await cli('merchants', 'deactivate', m.merchant_id)).code).toBe(0);
    expect((await methods(m.api_key)).body.error.code).toBe('MERCHANT_INACTIVE');
    expect((await cli('merchants', 'activate', m.merchant_id)).code).toBe(0);
    expect((await methods(m.api_key)).status).toBe(200);
  });

  it('rotates the webhook secret, keeping the previous one for 24 h', async () => {
    const m = JSON.parse((await cli('merchants', 'create', '--name', 'Rotor', '--json')).out);
    const r = JSON.parse((await cli('webhook-secret', 'rotate', m.merchant_id, '--json')).out);
    expect(r.webhook_secret).toMatch(/^whsec_/);
    expect(r.webhook_secret).not.toBe(m.webhook_secret);
    const hours = (Date.parse(r.previous_expires_at) - Date.now()) / 3_600_000;
    expect(hours).toBeGreaterThan(23.9);
    expect(hours).toBeLessThanOrEqual(24);
  });

  it('refuses bad input with a usage error and writes nothing', async () => {
    expect((await cli('merchants', 'create')).code).toBe(2);
    expect((await cli('merchants', 'create', '--name', 'X', '--countries', 'FRA')).code).toBe(1);
    expect((await cli('keys', 'create', 'mch_nope', '--mode', 'prod')).code).toBe(2);
    expect((await cli('keys', 'create', 'mch_doesnotexist0000000000')).code).toBe(1);
    expect((await cli('frobnicate')).code).toBe(2);
    expect((await cli('merchants', 'show', 'mch_doesnotexist0000000000')).err).toContain('not found');
  });

  it('runs as `npm run cli` against a local stack described by stack.json', () => {
    const dir = mkdtempSync(join(tmpdir(), 'cli-'));
    writeFileSync(
      join(dir, 'stack.json'),
      JSON.stringify({ dynamodb_endpoint: process.env.DYNAMODB_ENDPOINT, table_name: stack.tableName, region: 'us-east-1' }),
    );
    const env = { ...process.env, TABLE_NAME: '', DYNAMODB_ENDPOINT: '' };
    const r = spawnSync('npm', ['run', '--silent', 'cli', '--', 'merchants', 'create', '--name', 'Spawned', '--json', '--state-dir', dir], {
      encoding: 'utf8',
      env,
      timeout: 60_000,
    });
    expect(r.status).toBe(0);
    expect(JSON.parse(r.stdout).merchant_id).toMatch(/^mch_/);
  });
});
