/**
 * `npm start` as a newcomer runs it: the real entry point in a child process.
 * It serves the API with a seeded merchant, writes .local/sandbox.json, stops
 * everything it started (the Java process included) on SIGTERM/SIGINT, and
 * reuses its data on the next start. It runs the command package.json's `start` script runs, so the signal a test
 * sends reaches the process that stops the stack, as the user's Ctrl-C or a process manager's SIGTERM does.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { DeleteTableCommand, DescribeTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { contractFetch } from '../support/contract';
import { engines } from '../support/engines';
import { card } from '../support/payments';
import { customer } from '../support/sample-data';

jest.setTimeout(150_000);

/**
 * package.json's `start` command for `entry` instead of bin/local.ts: [executable, ...args]. It must be one process
 * (node with tsx as a loader), not the tsx CLI, which runs the stack as a child, relays a signal, and when the
 * child has not acknowledged it within 2 x 30 ms (a busy event loop on a loaded machine) SIGKILLs it and exits 143.
 */
function startCommand(entry = 'bin/local.ts'): [string, string[]] {
  const scripts = (JSON.parse(readFileSync('package.json', 'utf8')) as { scripts: Record<string, string> }).scripts;
  const [exe, ...args] = scripts.start!.split(/\s+/);
  expect(args.at(-1)).toBe('bin/local.ts');
  return [exe === 'node' ? process.execPath : resolve('node_modules/.bin', exe!), [...args.slice(0, -1), entry]];
}

interface Started {
  child: ChildProcess;
  output: () => string;
  sandbox: { base_url: string; merchant_id: string; api_key: string; webhook_secret: string };
  stack: { pid: number; dynamodb_pid: number };
}

async function start(stateDir: string, ...args: string[]): Promise<Started> {
  const [exe, entry] = startCommand();
  const child = spawn(exe, [...entry, '--port', '0', '--state-dir', stateDir, ...args], {
    env: { ...process.env, TABLE_NAME: '', DYNAMODB_ENDPOINT: '', SQS_ENDPOINT: '', POWERTOOLS_LOG_LEVEL: 'WARN' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  const deadline = Date.now() + 100_000;
  while (!/ready in \d+ ms/.test(out)) {
    if (child.exitCode !== null) throw new Error(`npm start exited: ${out}`);
    if (Date.now() > deadline) throw new Error(`not ready: ${out}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    child,
    output: () => out,
    sandbox: JSON.parse(readFileSync(join(stateDir, 'sandbox.json'), 'utf8')),
    stack: JSON.parse(readFileSync(join(stateDir, 'stack.json'), 'utf8')),
  };
}

function alive(pid: number) {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Every file under `dir` with its size and modification time (`path size mtime`), sorted. */
function listing(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => {
      const path = join(e.parentPath, e.name);
      const st = statSync(path);
      return `${relative(dir, path)} ${st.size} ${st.mtimeMs}`;
    })
    .sort();
}

async function stop(s: Started, signal: NodeJS.Signals) {
  const exited = new Promise<number | null>((r) => s.child.once('exit', (code) => r(code)));
  s.child.kill(signal);
  return exited;
}

describe('npm start', () => {
  const stateDir = mkdtempSync(join(tmpdir(), 'local-stack-'));

  it('delivers a stop signal to a busy process itself: its own handler runs and it exits 0', async () => {
    const [exe, args] = startCommand(resolve('test/support/fixtures/busy-until-signal.ts'));
    const child = spawn(exe, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
    const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
    let busyPid = 0;
    try {
      while (!(busyPid = Number(/busy process (\d+) ready/.exec(out)?.[1] ?? 0))) {
        if (child.exitCode !== null) throw new Error(`exited early: ${out}`);
        await new Promise((r) => setTimeout(r, 50));
      }
      child.kill('SIGTERM');
      expect(await exited).toBe(0); // behind the tsx CLI: 143, the process SIGKILLed before its handler ran
      expect(out).toContain('stopped by its own handler');
      expect(busyPid).toBe(child.pid); // no wrapper process between the signal and the handler
    } finally {
      if (busyPid && alive(busyPid)) process.kill(busyPid, 'SIGKILL');
    }
  });

  it('serves the API with a seeded sandbox merchant and stops everything on SIGTERM', async () => {
    const s = await start(stateDir);
    expect(s.sandbox.base_url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(s.sandbox.merchant_id).toMatch(/^mch_/);
    expect(s.sandbox.api_key).toMatch(/^sk_test_/);
    expect(s.sandbox.webhook_secret).toMatch(/^whsec_/);
    expect(s.output()).toContain(s.sandbox.api_key);
    expect(s.stack.pid).toBe(s.child.pid); // the signal below goes to the stack's own process

    const health = await contractFetch(`${s.sandbox.base_url}/health`);
    expect(health.status).toBe(200);
    const res = await contractFetch(`${s.sandbox.base_url}/api/v1/methods?country=BRA`, { headers: { 'X-API-Key': s.sandbox.api_key } });
    const body = (await res.json()) as { methods: Array<{ method_code: string }> };
    expect(res.status).toBe(200);
    expect(body.methods.map((m) => m.method_code)).toEqual(expect.arrayContaining(['svc-mt-1', 'svc-mt-8', 'svc-mt-2', 'svc-mt-4']));

    expect(alive(s.stack.dynamodb_pid)).toBe(true);
    expect(await stop(s, 'SIGTERM')).toBe(0);
    expect(alive(s.stack.dynamodb_pid)).toBe(false);
  });

  it('reuses the data in its state folder on the next start, and stops on SIGINT', async () => {
    const first = JSON.parse(readFileSync(join(stateDir, 'sandbox.json'), 'utf8'));
    const s = await start(stateDir);
    expect(s.sandbox.merchant_id).toBe(first.merchant_id);
    expect(s.sandbox.api_key).toBe(first.api_key);
    expect(s.output()).toContain('(reused)');
    const res = await contractFetch(`${s.sandbox.base_url}/api/v1/methods`, { headers: { Authorization: `Bearer ${s.sandbox.api_key}` } });
    expect(res.status).toBe(200);
    expect(await stop(s, 'SIGINT')).toBe(0);
    expect(alive(s.stack.dynamodb_pid)).toBe(false);
  });

  it('keeps nothing with --memory: the data in its state folder is neither read nor changed, nothing is added', async () => {
    const persisted = JSON.parse(readFileSync(join(stateDir, 'sandbox.json'), 'utf8'));
    const before = listing(stateDir);
    expect(before.some((f) => f.startsWith('dynamodb/'))).toBe(true);
    const s = await start(stateDir, '--memory');
    expect(s.sandbox.merchant_id).not.toBe(persisted.merchant_id);
    expect(s.output()).toContain('(in memory: nothing is kept)');
    expect(s.output()).not.toContain('(reused)');
    expect(await stop(s, 'SIGTERM')).toBe(0);
    // The new merchant's sandbox.json was written and the running stack's stack.json removed on stop; the engine's
    // files are as they were, and nothing was added.
    const data = (files: string[]) => files.filter((f) => !/^(sandbox|stack)\.json /.test(f));
    const after = listing(stateDir);
    expect(data(after)).toEqual(data(before));
    expect(after.filter((f) => !data(after).includes(f)).map((f) => f.split(' ')[0])).toEqual(['sandbox.json']);
  });

  it('--dynamodb-endpoint uses an engine already running: creates the table there, starts no DynamoDB Local, leaves it up', async () => {
    const engine = engines().dynamodb;
    const table = 'latam-payments-local';
    const client = new DynamoDBClient({
      endpoint: engine,
      region: 'us-east-1',
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    });
    await client.send(new DeleteTableCommand({ TableName: table })).catch(() => undefined);
    const dir = mkdtempSync(join(tmpdir(), 'local-stack-endpoint-'));
    const s = await start(dir, '--dynamodb-endpoint', engine);
    try {
      const stackJson = s.stack as unknown as Record<string, unknown>;
      expect(stackJson).toMatchObject({ dynamodb_endpoint: engine, dynamodb_external: true });
      expect(stackJson.dynamodb_pid).toBeUndefined();
      expect(existsSync(join(dir, 'dynamodb'))).toBe(false);
      const d = await client.send(new DescribeTableCommand({ TableName: table }));
      expect(d.Table?.StreamSpecification).toMatchObject({ StreamEnabled: true, StreamViewType: 'NEW_IMAGE' });
      const pay = await contractFetch(`${s.sandbox.base_url}/cashier/cashier/payment`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': s.sandbox.api_key },
        body: JSON.stringify({
          payment_method: 'card',
          amount: 10,
          currency: 'BRL',
          country: 'BRA',
          customer,
          card: card('4242424242424242'),
        }),
      });
      expect(pay.status).toBe(200);
    } finally {
      expect(await stop(s, 'SIGTERM')).toBe(0);
    }
    // The engine was not ours to stop: it still answers.
    const after = await client.send(new DescribeTableCommand({ TableName: table }));
    expect(after.Table?.TableStatus).toBe('ACTIVE');
    await client.send(new DeleteTableCommand({ TableName: table }));
    client.destroy();
  });
});
