/** The ops CLI against the local engines: what an ops engineer runs and what the API then does. */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient } from '../../shared/adapters/aws-clients';
import { merchantEntity } from '../../shared/adapters/dynamodb/entities/merchant.entity';
import { cli } from '../support/cli';
import { card, payments } from '../support/payments';
import { pixBeneficiary } from '../support/sample-data';
import { startTestStack, type TestStack } from '../support/test-stack';

let stack: TestStack;
beforeAll(async () => {
  stack = await startTestStack();
});
afterAll(() => stack.stop());

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

  it("sets a merchant's rate limit per route: the API answers 429 past it, with the limit in its headers", async () => {
    const { merchant_id, api_key } = JSON.parse((await cli('merchants', 'create', '--name', 'Limits Co', '--json')).out);
    const set = await cli('merchants', 'limits', merchant_id, '--route', 'getBalance=2', '--route', 'createPayout=600', '--json');
    expect(set.code).toBe(0);
    const limits = JSON.parse(set.out).limits as { route: string; per_minute: number; default: number; overridden: boolean }[];
    expect(limits.find((l) => l.route === 'getBalance')).toEqual({ route: 'getBalance', per_minute: 2, default: 300, overridden: true });
    expect(limits.find((l) => l.route === 'createPayout')).toMatchObject({ per_minute: 600, default: 50, overridden: true });
    expect(limits.find((l) => l.route === 'listPayouts')).toMatchObject({ per_minute: 100, overridden: false });
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push(await stack.request('/api/v1/balance', { apiKey: api_key }));
    expect(statuses.map((r) => r.status)).toEqual([200, 200, 429]);
    expect(statuses[0]!.headers.get('x-ratelimit-limit')).toBe('2');
    expect(statuses[2]!.body.error.code).toBe('RATE_LIMIT_EXCEEDED');
    const reset = await cli('merchants', 'limits', merchant_id, '--route', 'getBalance=default');
    expect(reset.code).toBe(0);
    expect(reset.out).toMatch(/getBalance\s+300\/min\n/);
    expect(reset.out).toMatch(/createPayout\s+600\/min {2}\(default 50\)/);
    for (const bad of ['getBalance=0', 'health=5', 'nope=5', 'getBalance']) {
      const r = await cli('merchants', 'limits', merchant_id, '--route', bad);
      expect(r.code).toBe(2);
    }
  });

  describe('merchants routing (issue 42: stored and shown; payments do not read it yet)', () => {
    /** The merchant item's routing map as stored (undefined when it has none). */
    const storedRouting = async (merchantId: string) =>
      (
        await documentClient().send(
          new GetCommand({ TableName: stack.tableName, Key: merchantEntity.key(merchantId), ConsistentRead: true }),
        )
      ).Item?.routing;
    /** No local stack.json to find a providers document in: the static checks only, wherever the test runs. */
    const noDocument = mkdtempSync(join(tmpdir(), 'cli-routing-'));
    const routing = (...argv: string[]) => cli('merchants', 'routing', ...argv, '--state-dir', noDocument);

    it('sets a rule per kind and country, shows it, replaces it with a second set and removes it', async () => {
      const { merchant_id } = JSON.parse((await cli('merchants', 'create', '--name', 'Routed', '--json')).out);
      const set = await routing(merchant_id, '--kind', 'card', '--providers', 'dlocal,adyen', '--split', '50,50');
      expect(set).toMatchObject({ code: 0, err: '' });
      expect(set.out).toContain("read before the providers document's rules");
      expect(set.out).toMatch(/card {7}\* {4}dlocal, adyen {2}split 50\/50/);
      expect(await storedRouting(merchant_id)).toEqual({ card: { '*': { providers: ['dlocal', 'adyen'], split: [50, 50] } } });

      expect((await routing(merchant_id, '--kind', 'card', '--country', 'BRA', '--providers', 'adyen')).code).toBe(0);
      expect((await routing(merchant_id, '--kind', 'pix', '--country', 'BRA', '--providers', 'efi,dlocal')).code).toBe(0);
      const shown = await cli('merchants', 'show', merchant_id);
      expect(shown.out).toMatch(
        /routing \(read before the providers document's rules\):\n {2}card {7}\* {4}dlocal, adyen {2}split 50\/50\n {2}card {7}BRA {2}adyen\n {2}pix {8}BRA {2}efi, dlocal$/,
      );
      expect(JSON.parse((await cli('merchants', 'show', merchant_id, '--json')).out).routing.card.BRA).toEqual({ providers: ['adyen'] });

      // A second set of the same kind and country replaces the rule (its split goes with it); the others stay.
      expect((await routing(merchant_id, '--kind', 'card', '--providers', 'adyen,dlocal')).code).toBe(0);
      expect(await storedRouting(merchant_id)).toEqual({
        card: { '*': { providers: ['adyen', 'dlocal'] }, BRA: { providers: ['adyen'] } },
        pix: { BRA: { providers: ['efi', 'dlocal'] } },
      });

      const removed = await routing(merchant_id, '--kind', 'card', '--remove', '--json');
      expect(JSON.parse(removed.out)).toMatchObject({ changed: true, routing: { card: { BRA: { providers: ['adyen'] } } } });
      expect((await routing(merchant_id, '--kind', 'card', '--remove')).out).toContain('had no card * rule');
      expect((await routing(merchant_id, '--kind', 'card', '--country', 'BRA', '--remove')).code).toBe(0);
      expect((await routing(merchant_id, '--kind', 'pix', '--country', 'BRA', '--remove')).code).toBe(0);
      expect(await storedRouting(merchant_id)).toBeUndefined();
      expect((await cli('merchants', 'show', merchant_id)).out).toContain('none (the providers document decides)');
      expect((await routing('mch_doesnotexist0000000000', '--kind', 'card', '--providers', 'adyen')).code).toBe(1);
    });

    it('refuses a bad rule naming the option, and stores nothing', async () => {
      const { merchant_id } = JSON.parse((await cli('merchants', 'create', '--name', 'Misrouted', '--json')).out);
      const cases: Array<[string[], string]> = [
        [['--kind', 'card', '--providers', 'dlocal,adyen', '--split', '60,50'], '--split must sum to 100'],
        [['--kind', 'card', '--providers', 'dlocal,adyen', '--split', '100'], '--split must have one entry per provider (2), not 1'],
        [['--kind', 'card', '--providers', 'adyen,paypal'], '--providers item 2 must be a provider block name'],
        [
          ['--kind', 'card', '--country', 'MEX', '--providers', 'stp'],
          '--providers item 1 is stp, which cannot serve card (only adyen, dlocal)',
        ],
        [['--kind', 'pix_payout', '--providers', 'efi,efi'], '--providers item 2 repeats efi'],
        [['--kind', 'boleto', '--providers', 'adyen'], '--kind must be one of card, pix, pix_payout'],
        [['--kind', 'card', '--country', 'FRA', '--providers', 'adyen'], '--country must be * or a country code'],
      ];
      for (const [args, message] of cases) {
        const r = await routing(merchant_id, ...args);
        expect({ args, code: r.code, message: r.err.split('\n')[0] }).toEqual({ args, code: 2, message: expect.stringContaining(message) });
      }
      expect(await storedRouting(merchant_id)).toBeUndefined();
    });

    it("checks each provider against the stage's providers document when there is one", async () => {
      const dir = mkdtempSync(join(tmpdir(), 'cli-routing-doc-'));
      const document = join(dir, 'providers.json');
      const adyen = {
        base_url: 'https://checkout-test.adyen.com/v71',
        api_key: 'k'.repeat(16),
        merchant_account: 'M',
        hmac_key_hex: 'ab'.repeat(32),
      };
      writeFileSync(document, JSON.stringify({ adyen }));
      writeFileSync(join(dir, 'stack.json'), JSON.stringify({ providers_file: document }));
      const { merchant_id } = JSON.parse((await cli('merchants', 'create', '--name', 'Documented', '--json')).out);
      const refused = await cli('merchants', 'routing', merchant_id, '--kind', 'card', '--providers', 'adyen,dlocal', '--state-dir', dir);
      expect(refused.code).toBe(2);
      expect(refused.err).toContain('--providers item 2 is dlocal, which this document does not configure');
      expect(await storedRouting(merchant_id)).toBeUndefined();
      const ok = await cli('merchants', 'routing', merchant_id, '--kind', 'card', '--providers', 'adyen', '--state-dir', dir);
      expect(ok.code).toBe(0);
      expect(ok.out).toContain(`checked against ${document}`);
      expect(await storedRouting(merchant_id)).toEqual({ card: { '*': { providers: ['adyen'] } } });
    });
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

describe('npm run cli -- balance transactions', () => {
  /** A CSV line's fields (RFC 4180 quoting). */
  const fields = (line: string) =>
    [...line.matchAll(/("([^"]|"")*"|[^,]*)(,|$)/g)].map((m) => m[1]!.replace(/^"|"$/g, '').replace(/""/g, '"')).slice(0, -1);

  it('writes the reconciliation CSV: one row per entry, newest first, with balance_after and the source references', async () => {
    const created = JSON.parse((await cli('merchants', 'create', '--name', 'Recon Ltda', '--json')).out);
    const m = { merchantId: created.merchant_id, apiKey: created.api_key, keyId: created.key_id, webhookSecret: created.webhook_secret };
    const api = payments(stack, m);
    const paid = await api.direct({ payment_method: 'card', card: card('4242424242424242'), amount: 80, reference_id: 'ORD-7, "blue"' });
    expect(paid.body.status).toBe('success');
    const refund = await api.json('POST', `/api/v1/payments/${paid.body.payment_id}/refunds`, { amount: 30 });
    expect(refund.status).toBe(200);
    const payout = (over: Record<string, unknown>) =>
      api.json('POST', '/api/v1/payout', { method_code: 'svc-mt-5', amount: 10, currency: 'BRL', beneficiary: pixBeneficiary, ...over });
    const tagged = await payout({ metadata: { reference_id: 'INV-2026-001' } });
    const described = await payout({ amount: 5.25, description: '=HYPERLINK("evil")' });
    expect([tagged.status, described.status]).toEqual([200, 200]);

    const r = await cli('balance', 'transactions', m.merchantId, '--currency', 'BRL', '--csv');
    expect(r.code).toBe(0);
    const [header, ...lines] = r.out.split('\n');
    expect(header).toBe('created_at,id,type,amount,currency,balance_after,source_id,reference_id,description');
    const rows = lines.map(fields).map(([created_at, id, type, amount, currency, balance_after, source_id, reference_id, description]) => ({
      created_at,
      id,
      type,
      amount,
      currency,
      balance_after,
      source_id,
      reference_id,
      description,
    }));
    expect(rows.map((x) => x.type)).toEqual(['payout', 'payout', 'refund', 'payment', 'top_up']);
    const bySource = Object.fromEntries(rows.map((x) => [x.source_id, x]));
    expect(bySource[paid.body.payment_id]).toMatchObject({ amount: '80.00', reference_id: 'ORD-7, "blue"', currency: 'BRL' });
    expect(bySource[refund.body.refund_id]).toMatchObject({ amount: '-30.00', reference_id: 'ORD-7, "blue"' });
    expect(bySource[tagged.body.payout_id]).toMatchObject({ amount: '-10.00', reference_id: 'INV-2026-001' });
    expect(bySource[described.body.payout_id]).toMatchObject({ amount: '-5.25', reference_id: `'=HYPERLINK("evil")` });
    expect(rows.at(-1)).toMatchObject({ type: 'top_up', amount: '100000.00', balance_after: '100000.00', reference_id: '' });
    const balance = await stack.request('/api/v1/balance', { apiKey: m.apiKey });
    const brl = balance.body.balances.find((b: { currency: string }) => b.currency === 'BRL').available;
    expect(rows[0]!.balance_after).toBe(brl.toFixed(2));
    for (let i = 0; i + 1 < rows.length; i++) {
      expect(Math.round(Number(rows[i]!.balance_after) * 100) - Math.round(Number(rows[i]!.amount) * 100)).toBe(
        Math.round(Number(rows[i + 1]!.balance_after) * 100),
      );
    }

    // Every currency without --currency; dates narrow it; JSON and text carry the same entries.
    const all = await cli('balance', 'transactions', m.merchantId, '--csv');
    expect(all.out.split('\n')).toHaveLength(1 + 5 + 6);
    const payment = bySource[paid.body.payment_id]!;
    const window = await cli('balance', 'transactions', m.merchantId, '--csv', '--from', payment.created_at!, '--to', payment.created_at!);
    expect(
      window.out
        .split('\n')
        .slice(1)
        .map((l) => fields(l)[1]),
    ).toEqual([payment.id]);
    const json = JSON.parse((await cli('balance', 'transactions', m.merchantId, '--currency', 'BRL', '--json')).out);
    expect(json.map((t: { id: string }) => t.id)).toEqual(rows.map((x) => x.id));
    const text = await cli('balance', 'transactions', m.merchantId, '--currency', 'BRL');
    expect(text.out.split('\n')).toHaveLength(5);
    expect((await cli('balance', 'transactions', m.merchantId, '--mode', 'live', '--csv')).out).toBe(header);
  });

  it('refuses bad filters with a usage error and an unknown merchant with an error', async () => {
    expect((await cli('balance', 'transactions')).code).toBe(2);
    expect((await cli('balance', 'transactions', 'mch_x', '--from', 'yesterday')).err).toContain('--from');
    expect((await cli('balance', 'transactions', 'mch_x', '--currency', 'EUR')).code).toBe(2);
    expect((await cli('balance', 'transactions', 'mch_x', '--mode', 'prod')).code).toBe(2);
    const unknown = await cli('balance', 'transactions', 'mch_doesnotexist0000000000', '--csv');
    expect(unknown.code).toBe(1);
    expect(unknown.err).toContain('not found');
  });
});
