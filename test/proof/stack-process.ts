/**
 * The local stack as a child process group, for the proofs: started detached in its own group, as `npm start`
 * runs it (node with tsx as its loader), ready when it prints its banner, killed as a group (SIGKILL mid-load is
 * the point), restarted on the same state dir.
 * DynamoDB Local is not in that group: the proof starts it once, on the state dir's data, and every stack uses it
 * (--dynamodb-endpoint). What a crash proof kills is the service, as a Lambda dies; DynamoDB does not die with
 * it, and what it acknowledged stays written. DynamoDB Local's JVM gives no such promise when it is itself
 * SIGKILLed: measured, 2 runs in 3 lost one acknowledged TransactWriteItems of about 1,000 (puts were kept), which
 * once showed as a SPEI deposit answered but its payment never settled. Whatever ends the proof, no stack or
 * engine survives it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, readFileSync, type WriteStream } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, ScanCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { startDynamoDbLocal } from '../../bin/local/services';
export { freePort } from '../../bin/local/free-port';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

export interface Stack {
  readonly n: number;
  readonly child: ChildProcess;
  readonly pid: number;
  readonly baseUrl: string;
  readonly apiKey: string;
  readonly merchantId: string;
  readonly webhookSecret: string;
  readonly db: DynamoDBDocumentClient;
  readonly tableName: string;
  readonly readyAt: number;
  alive: boolean;
}

export interface StackOptions {
  /** Arguments after `bin/local.ts --state-dir DIR --port PORT` (the live stage: --stage live --providers FILE). */
  readonly args?: readonly string[];
  readonly env?: Readonly<Record<string, string>>;
  /** The seeded merchant's file in the state dir: sandbox.json, or live.json on the live stage. */
  readonly merchantFile?: string;
}

const children = new Set<ChildProcess>();

export function killGroup(pid: number, signal: NodeJS.Signals) {
  try {
    process.kill(-pid, signal);
  } catch {
    // already gone
  }
}

function groupAlive(pid: number) {
  try {
    process.kill(-pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Exit handlers and the hard time limit: past it (or on any signal or uncaught error) every stack is killed. */
export function guardProcess(hardLimitMs: number) {
  process.on('exit', () => {
    for (const c of children) if (c.pid) killGroup(c.pid, 'SIGKILL');
  });
  for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    process.on(sig, () => {
      console.error(`\n[proof] ${sig}: killing the stack and exiting`);
      process.exit(130);
    });
  }
  process.on('uncaughtException', (e) => {
    console.error('[proof] uncaught exception:', e);
    process.exit(2);
  });
  process.on('unhandledRejection', (e) => {
    console.error('[proof] unhandled rejection:', e);
    process.exit(2);
  });
  setTimeout(() => {
    console.error(`[proof] hard limit of ${Math.round(hardLimitMs / 1000)} s reached: killing the stack`);
    process.exit(2);
  }, hardLimitMs).unref();
}

/** The proof's DynamoDB Local per state dir: started with the first stack, it outlives every kill (ended on exit). */
const engines = new Map<string, Promise<{ endpoint: string }>>();
const engineFor = (stateDir: string) => {
  let engine = engines.get(stateDir);
  if (!engine) engines.set(stateDir, (engine = startDynamoDbLocal({ dataDir: join(stateDir, 'dynamodb') })));
  return engine;
};

export async function startStack(n: number, stateDir: string, port: number, opts: StackOptions = {}): Promise<Stack> {
  const logFile: WriteStream = createWriteStream(join(stateDir, `stack-${n}.log`));
  const { endpoint } = await engineFor(stateDir);
  const args = ['bin/local.ts', '--state-dir', stateDir, '--port', String(port), '--dynamodb-endpoint', endpoint, ...(opts.args ?? [])];
  const child = spawn(process.execPath, ['--import', 'tsx', ...args], {
    cwd: ROOT,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, POWERTOOLS_LOG_LEVEL: process.env.POWERTOOLS_LOG_LEVEL ?? 'WARN', ...opts.env },
  });
  if (!child.pid) throw new Error('could not spawn the local stack');
  children.add(child);
  child.once('exit', () => children.delete(child));
  let out = '';
  let ready = false;
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`stack ${n} not ready within 90 s (see ${stateDir}/stack-${n}.log)`)), 90_000);
    child.stdout?.on('data', (d: Buffer) => {
      logFile.write(d);
      if (ready) return;
      out += d.toString();
      if (out.includes('Local payments API ready')) {
        ready = true;
        clearTimeout(timer);
        resolve();
      }
    });
    child.stderr?.on('data', (d: Buffer) => logFile.write(d));
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`stack ${n} exited (${code ?? signal}) before it was ready (see ${stateDir}/stack-${n}.log)`));
    });
  });
  const info = JSON.parse(readFileSync(join(stateDir, 'stack.json'), 'utf8')) as {
    base_url: string;
    dynamodb_endpoint: string;
    table_name: string;
    region: string;
  };
  const merchant = JSON.parse(readFileSync(join(stateDir, opts.merchantFile ?? 'sandbox.json'), 'utf8')) as {
    merchant_id: string;
    api_key: string;
    webhook_secret: string;
  };
  const db = DynamoDBDocumentClient.from(
    new DynamoDBClient({
      endpoint: info.dynamodb_endpoint,
      region: info.region,
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    }),
  );
  return {
    n,
    child,
    pid: child.pid,
    baseUrl: info.base_url,
    apiKey: merchant.api_key,
    merchantId: merchant.merchant_id,
    webhookSecret: merchant.webhook_secret,
    db,
    tableName: info.table_name,
    readyAt: Date.now(),
    alive: true,
  };
}

/** Signals the whole process group and waits until every member is gone. */
export async function stopStack(s: Stack, signal: NodeJS.Signals, log: (msg: string) => void): Promise<void> {
  s.alive = false;
  const exited = new Promise<void>((r) =>
    s.child.exitCode !== null || s.child.signalCode !== null ? r() : s.child.once('exit', () => r()),
  );
  killGroup(s.pid, signal);
  const escalate = setTimeout(() => killGroup(s.pid, 'SIGKILL'), 10_000);
  await exited;
  const end = Date.now() + 12_000;
  while (groupAlive(s.pid) && Date.now() < end) await sleep(50);
  clearTimeout(escalate);
  if (groupAlive(s.pid)) {
    killGroup(s.pid, 'SIGKILL');
    log(`warning: process group ${s.pid} still has members after ${signal}`);
  }
  s.db.destroy();
}

/** Points the seeded merchant's webhooks at a receiver (no CLI command changes a notification_url). */
export async function setNotificationUrl(s: Stack, url: string) {
  await s.db.send(
    new UpdateCommand({
      TableName: s.tableName,
      Key: { PK: `MERCHANT#${s.merchantId}`, SK: 'PROFILE' },
      UpdateExpression: 'SET notification_url = :u',
      ConditionExpression: 'attribute_exists(PK)',
      ExpressionAttributeValues: { ':u': url },
    }),
  );
}

/** The whole table, read directly (the proofs may Scan; the service never does). */
export type Item = Record<string, any>;

export async function scanAll(s: Stack): Promise<Item[]> {
  const items: Item[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const r = await s.db.send(new ScanCommand({ TableName: s.tableName, ConsistentRead: true, ExclusiveStartKey: start }));
    items.push(...(r.Items ?? []));
    start = r.LastEvaluatedKey;
  } while (start);
  return items;
}

export interface Snapshot {
  readonly events: Item[];
  readonly payouts: Item[];
  readonly payments: Item[];
  readonly sessions: Item[];
  readonly refunds: Item[];
  readonly balances: Item[];
  readonly ledger: Item[];
  /** Credits committed and not yet folded into the balance (issue 22): the fold must leave none. */
  readonly pendingCredits: Item[];
  /** The idempotency records of keyed requests (issue 31: a create's answer is committed with its effect). */
  readonly records: Item[];
}

export async function snapshot(s: Stack): Promise<Snapshot> {
  const items = await scanAll(s);
  const pk = (prefix: string) => items.filter((i) => String(i.PK).startsWith(prefix));
  const merchant = items.filter((i) => i.PK === `MERCHANT#${s.merchantId}`);
  return {
    events: pk('EVENT#'),
    payouts: pk('PAYOUT#'),
    payments: pk('PAYMENT#'),
    sessions: pk('SESSION#'),
    refunds: pk('REFUND#'),
    balances: merchant.filter((i) => String(i.SK).startsWith('BALANCE#')),
    ledger: pk(`LEDGER#${s.merchantId}#`),
    pendingCredits: pk('FOLD#').filter((i) => i.merchant_id === s.merchantId),
    records: pk('IDEMPOTENCY#'),
  };
}

/**
 * The live proofs' load under kills: `kills` times the load runs for part of a phase (`killWithin`, fractions of it:
 * by default a random half to whole), then the stack's process group is SIGKILLed mid-load (`kill`: by default at
 * once; a proof may wait for a chosen provider call first) and started again on the same state dir (`restart`, which
 * logs what is still unanswered and may redeliver); the last phase's load runs to its end.
 */
export async function underKills(o: {
  readonly kills: number;
  readonly phaseSeconds: number;
  readonly load: (phase: number) => Promise<void>;
  readonly current: () => Stack;
  readonly restart: (n: number) => Promise<void>;
  readonly log: (msg: string) => void;
  readonly kill?: (phase: number) => Promise<void>;
  readonly killWithin?: readonly [number, number];
}): Promise<void> {
  const [from, to] = o.killWithin ?? [0.5, 1];
  for (let phase = 0; phase <= o.kills; phase++) {
    const running = o.load(phase);
    if (phase === o.kills) {
      await running;
      break;
    }
    await sleep(o.phaseSeconds * 1000 * (from + Math.random() * (to - from)));
    if (o.kill) await o.kill(phase);
    else {
      o.log(`phase ${phase}: SIGKILL process group ${o.current().pid}`);
      await stopStack(o.current(), 'SIGKILL', o.log);
    }
    await running;
    await o.restart(phase + 1);
  }
}

/**
 * The live proofs' knobs and log, read once: PROOF_KILLS (0 to 3, default 2), PROOF_PHASE_SECONDS (at least 1,
 * default 4), PROOF_SETTLE_SECONDS (at least `minSettle`, default `settle`); a log line prefixed with the proof's name
 * and its age; and the guard that ends a proof that outlives every phase and its settle bound.
 */
export function liveProofKnobs(name: string, o: { readonly settle: number; readonly minSettle: number; readonly guardExtra: number }) {
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  const num = (key: string, fallback: number) =>
    process.env[key] !== undefined && Number.isFinite(Number(process.env[key])) ? Number(process.env[key]) : fallback;
  const kills = Math.max(0, Math.min(3, Math.floor(num('PROOF_KILLS', 2))));
  const phaseSeconds = Math.max(1, num('PROOF_PHASE_SECONDS', 4));
  const settleSeconds = Math.max(o.minSettle, num('PROOF_SETTLE_SECONDS', o.settle));
  const started = Date.now();
  const log = (msg: string) => console.log(`[${name} proof +${((Date.now() - started) / 1000).toFixed(1)}s] ${msg}`);
  guardProcess((settleSeconds + (kills + 1) * (phaseSeconds * 1.3 + 45) + o.guardExtra) * 1000);
  return { kills, phaseSeconds, settleSeconds, log };
}

/**
 * The local live stage on a providers file, with the reconciliation job quick (every 2 s, first read-back at 3 s) and
 * intents that never reached the provider failed after `lostIntentSeconds`: what the pay-in proofs run.
 */
export const livePayinStackOptions = (providersFile: string, lostIntentSeconds: number): StackOptions => ({
  args: ['--stage', 'live', '--providers', providersFile],
  merchantFile: 'live.json',
  env: {
    JOBS_INTERVAL_SECONDS: '2',
    PROVIDER_FIRST_CHECK_SECONDS: '3',
    PROVIDER_CHECK_INTERVAL_SECONDS: '3',
    PROVIDER_LOST_INTENT_SECONDS: String(lostIntentSeconds),
    REFUND_SETTLEMENT_DELAY_SECONDS: '1',
  },
});

/** A POST to the stack's API as its seeded merchant (every live proof's load), answered within 15 s. */
export async function postAs(stack: Stack, path: string, body: unknown, headers: Record<string, string> = {}) {
  const r = await fetch(`${stack.baseUrl}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': stack.apiKey, ...headers },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(15_000),
  });
  return { status: r.status, body: (await r.json().catch(() => ({}))) as Record<string, any> };
}

/** Runs a proof's main and exits with its code: 1 on a violation, 2 when the proof itself could not run. */
export function runProof(name: string, main: () => Promise<number>): void {
  main().then(
    (code) => process.exit(code),
    (e: unknown) => {
      console.error(`[${name}] could not run:`, e);
      process.exit(2);
    },
  );
}

/** A proof's verdict: its first 40 violations printed, PASSED or FAILED logged; the exit code (1 on any violation). */
export function verdict(log: (line: string) => void, violations: readonly string[], stateDir: string): 0 | 1 {
  for (const x of violations.slice(0, 40)) console.log(`  VIOLATION ${x}`);
  log(violations.length ? `FAILED: ${violations.length} violations (state dir ${stateDir})` : 'PASSED: every check holds');
  return violations.length ? 1 : 0;
}
