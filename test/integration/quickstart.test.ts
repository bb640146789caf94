/**
 * README.md "Five-minute quickstart" (up to "A tour of the API"), run as written: the commands and the receiver are taken from the
 * README section itself (so this breaks when the README drifts), against the real entry points in child
 * processes: the local stack (what `npm start` runs, on free ports with a temporary state dir), `npm run
 * cli -- listen`, the receiver and `npm run cli -- trigger payment.success`, then pay.mjs (a payment through
 * @latam-payments/node). The receiver, built on the same library, must verify each signed payment.success,
 * and the output must have the shape the README shows.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { freePort } from '../../bin/local/services';
import { codeBlocks } from '../support/markdown-commands';

jest.setTimeout(180_000);

const README = readFileSync('README.md', 'utf8');
const START = '## Five-minute quickstart\n';
const section = README.slice(README.indexOf(START), README.indexOf('## A tour of the API\n'));
const blocks = codeBlocks(section);
/** Every command of the section's bash blocks, comments dropped. */
const commands = blocks
  .filter((b) => b.lang === 'bash')
  .flatMap((b) => b.code.split('\n'))
  .map((l) => l.replace(/\s+#.*$/, '').trim())
  .filter(Boolean);
const command = (prefix: RegExp) => {
  const found = commands.filter((c) => prefix.test(c));
  expect(found).toHaveLength(1);
  return found[0]!;
};

interface Proc {
  child: ChildProcess;
  output: () => string;
}

const procs: Proc[] = [];

/** A shell command in its own process group, output captured. */
function run(cmd: string, opts: { cwd?: string; env?: Record<string, string> } = {}): Proc {
  const child = spawn('sh', ['-c', cmd], {
    cwd: opts.cwd ?? process.cwd(),
    env: { ...process.env, TABLE_NAME: '', DYNAMODB_ENDPOINT: '', SQS_ENDPOINT: '', POWERTOOLS_LOG_LEVEL: 'WARN', ...opts.env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  const p = { child, output: () => out };
  procs.push(p);
  return p;
}

const exited = (p: Proc) =>
  p.child.exitCode !== null || p.child.signalCode !== null
    ? Promise.resolve(p.child.exitCode)
    : new Promise<number | null>((r) => p.child.once('exit', (code) => r(code)));

/** Ctrl-C for the process group we started; SIGKILL if it is still there 20 s later. */
async function interrupt(p: Proc) {
  if (p.child.exitCode !== null || p.child.signalCode !== null || !p.child.pid) return;
  const gone = exited(p);
  process.kill(-p.child.pid, 'SIGINT');
  const timer = setTimeout(() => p.child.pid && process.kill(-p.child.pid, 'SIGKILL'), 20_000);
  await gone;
  clearTimeout(timer);
}

async function waitFor(p: Proc, re: RegExp, what: string, timeoutMs = 120_000): Promise<RegExpMatchArray> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const m = re.exec(p.output());
    if (m) return m;
    if (p.child.exitCode !== null) throw new Error(`${what}: exited ${p.child.exitCode}\n${p.output()}`);
    if (Date.now() > end) throw new Error(`${what}: timed out\n${p.output()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Once something accepts connections on the port (a bare TCP connect: no request for the receiver to log). */
async function accepting(port: number, p: Proc, what: string, timeoutMs = 60_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const open = await new Promise<boolean>((r) => {
      const socket = connect(port, '127.0.0.1');
      socket.once('connect', () => (socket.destroy(), r(true)));
      socket.once('error', () => r(false));
    });
    if (open) return;
    if (p.child.exitCode !== null) throw new Error(`${what}: exited ${p.child.exitCode}\n${p.output()}`);
    if (Date.now() > end) throw new Error(`${what}: not listening on ${port}\n${p.output()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** A line with ids, times and ports replaced, to compare the README's sample output with the real one. */
const shape = (line: string) =>
  line
    .replace(/\b(evt|pi|cs|po|re)_[A-Za-z0-9_-]{22,64}/g, '<$1>')
    .replace(/whsec_[A-Za-z0-9+/]+=*/g, '<secret>')
    .replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z/g, '<time>')
    .replace(/(127\.0\.0\.1|localhost):\d+/g, '$1:<port>')
    .trim();

afterAll(async () => {
  // The stack last: listen and trigger talk to it.
  for (const p of procs.reverse()) await interrupt(p);
});

it('the README quickstart works as written: the receiver verifies a signed payment.success', async () => {
  const started = Date.now();
  const stateDir = mkdtempSync(join(tmpdir(), 'quickstart-'));
  const appDir = join(stateDir, 'app');
  // The app installs the SDK packed from sdk/ (sdk-package.test.ts runs npm pack and installs the tarball): here
  // the same build (sdk's own tsc config) straight into the app's node_modules, so sdk/dist is not shared with it.
  expect(command(/^npm pack /)).toBe('npm pack ./sdk');
  expect(command(/^npm install .*\.tgz$/)).toBe('npm install /path/to/latam-payments-node-0.1.0.tgz');
  const installed = join(appDir, 'node_modules/@latam-payments/node');
  mkdirSync(installed, { recursive: true });
  copyFileSync(resolve('sdk/package.json'), join(installed, 'package.json'));
  execFileSync(process.execPath, [
    resolve('node_modules/typescript/bin/tsc'),
    '-p',
    resolve('sdk/tsconfig.json'),
    '--outDir',
    join(installed, 'dist'),
  ]);
  const env = { LOCAL_STATE_DIR: stateDir };

  // 1. npm start, which is `node --import tsx bin/local.ts`: on a free port with its own state dir.
  expect(command(/npm start/)).toBe('npm ci && npm start');
  expect(JSON.parse(readFileSync('package.json', 'utf8')).scripts.start).toBe('node --import tsx bin/local.ts');
  const stack = run('node --import tsx bin/local.ts --port 0', { env });
  await waitFor(stack, /ready in \d+ ms/, 'the local stack');
  const sandbox = JSON.parse(readFileSync(join(stateDir, 'sandbox.json'), 'utf8'));
  expect(sandbox.base_url).not.toMatch(/:3000$/);

  // 2. listen, to a free port instead of 4242.
  const port = await freePort();
  const listenCmd = command(/^npm run cli -- listen /);
  expect(listenCmd).toContain('http://localhost:4242/webhooks');
  const listen = run(listenCmd.replace(':4242/', `:${port}/`), { env });
  const [, secret] = await waitFor(listen, /Your webhook signing secret is (whsec_[A-Za-z0-9+/]+=*) /, 'listen');

  // 3. The receiver from the README, run as the README says, with the printed secret.
  const scripts = blocks.filter((b) => b.lang === 'js');
  expect(scripts.map((b) => /^\/\/ (\S+):/.exec(b.code)?.[1])).toEqual(['receiver.mjs', 'pay.mjs']);
  writeFileSync(join(appDir, 'receiver.mjs'), scripts[0]!.code);
  writeFileSync(join(appDir, 'pay.mjs'), scripts[1]!.code);
  const receiverCmd = command(/node receiver\.mjs$/);
  expect(receiverCmd).toContain("WEBHOOK_SECRET='whsec_...'");
  const receiver = run(receiverCmd.replace("'whsec_...'", `'${secret}'`), { cwd: appDir, env: { PORT: String(port) } });
  // listen forwards once, without retries: the receiver must be listening before anything is triggered.
  await accepting(port, receiver, 'the receiver');

  // 4. trigger.
  const trigger = run(command(/^npm run cli -- trigger payment\.success$/), { env });
  expect(await exited(trigger)).toBe(0);
  const [, eventId] = /event_id\s+(evt_\S+) \(payment\.success\)/.exec(trigger.output()) ?? [];
  expect(eventId).toBeDefined();

  // What you see: the receiver verified it, listen printed the delivery with the 200 it got.
  await waitFor(receiver, new RegExp(`verified payment\\.success ${eventId}`), 'the receiver', 60_000);
  await waitFor(listen, new RegExp(`  payment\\.success  ${eventId}  \\[200\\] POST http://localhost:${port}/webhooks`), 'listen', 60_000);
  expect(receiver.output()).not.toContain('rejected');
  // And it does check: the same kind of body signed with another secret is refused.
  const forged = await fetch(`http://localhost:${port}/webhooks`, {
    method: 'POST',
    headers: { 'webhook-id': 'evt_forged', 'webhook-timestamp': String(Math.floor(Date.now() / 1000)), 'webhook-signature': 'v1,AAAA' },
    body: JSON.stringify({ event: 'payment.success', event_id: 'evt_forged' }),
  });
  expect(forged.status).toBe(400);
  await waitFor(receiver, /rejected: /, 'the receiver refusing a forged webhook', 10_000);

  // 5. pay.mjs with the sandbox key: a card payment through the library, its event listed and verified by the receiver.
  const payCmd = command(/node pay\.mjs$/);
  expect(payCmd).toContain("LATAM_API_KEY='sk_test_...'");
  const pay = run(payCmd.replace("'sk_test_...'", `'${sandbox.api_key}'`), { cwd: appDir, env: { LATAM_BASE_URL: sandbox.base_url } });
  expect(await exited(pay)).toBe(0);
  const [, paymentId] = /^payment (pi_\S+) success$/m.exec(pay.output()) ?? [];
  const [, paidEventId] = /^event (evt_\S+) payment\.success$/m.exec(pay.output()) ?? [];
  expect({ paymentId, paidEventId }).toEqual({ paymentId: expect.any(String), paidEventId: expect.any(String) });
  await waitFor(receiver, new RegExp(`verified payment\\.success ${paidEventId}`), 'the receiver verifying the SDK payment', 60_000);

  // Every line of the README's sample output has the shape of a line the commands printed.
  const sample = blocks.find((b) => b.lang === 'text')!.code.split('\n');
  const printed = new Set([trigger, listen, receiver].flatMap((p) => p.output().split('\n')).map(shape));
  const claimed = sample.filter((l) => l.trim() && !l.startsWith('#')).map(shape);
  expect(claimed.length).toBeGreaterThanOrEqual(6);
  expect(claimed.filter((l) => !printed.has(l))).toEqual([]);

  // Ctrl-C stops listen: nothing of its process group is left.
  await interrupt(listen);
  // The shell exits first; its children (npm, tsx, node) follow as they finish: wait for the group, not a guess.
  const groupGone = () => {
    try {
      process.kill(-listen.child.pid!, 0);
      return false;
    } catch (e) {
      return (e as NodeJS.ErrnoException).code === 'ESRCH';
    }
  };
  for (let end = Date.now() + 15_000; !groupGone() && Date.now() < end;) await new Promise((r) => setTimeout(r, 100));
  expect(() => process.kill(-listen.child.pid!, 0)).toThrow(expect.objectContaining({ code: 'ESRCH' }));
  console.log(`README quickstart end to end in ${((Date.now() - started) / 1000).toFixed(1)} s`);
});
