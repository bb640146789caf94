/**
 * `npm run bench:load`: throughput and latency of six endpoints on the local stack under concurrent
 * load (autocannon, in its own process: load-client.ts), each beside a bare baseline in the same run:
 * a plain node:http server in this process, no framework, that does exactly the AWS calls the endpoint
 * made. The baseline's calls are recorded from the service itself (the serialized input of every
 * DynamoDB and SQS command one request sent) and replayed per request with fresh ids in place of the
 * ones the recorded request created, and the baseline's own pending session where the endpoint consumed
 * one; so the items, conditions, transactions and queue messages are the same, and what differs is the
 * service's code: API Gateway event emulation, middleware, validation, use case and views.
 *
 * BENCH_DURATION seconds per run (default 10), BENCH_CONNECTIONS (default 16,64).
 * The service and the baseline never run at the same time; the rate limit of the bench merchant is
 * raised per route (merchant overrides, as ops would) so no request meets a 429.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Result } from 'autocannon';
import { printLatencyReport, runBench } from './support';
import { customer, pixBeneficiary } from '../support/sample-data';
import { recorder, replayer, type Recorded } from './load-replay';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
process.env.POWERTOOLS_LOG_LEVEL = 'ERROR';
process.env.POWERTOOLS_METRICS_DISABLED = 'true';

const DURATION = Number(process.env.BENCH_DURATION ?? 10);
const CONNECTIONS = (process.env.BENCH_CONNECTIONS ?? '16,64').split(',').map(Number);

interface LoadCase {
  readonly name: string;
  readonly method: 'GET' | 'POST';
  readonly path: string;
  readonly body?: unknown;
  /** Requests that consume an object (a pending session): one body per request, and the baseline's own pool. */
  readonly pool?: (n: number) => Promise<string[]>;
  readonly poolBody?: (id: string) => unknown;
}

function runClient(c: Record<string, unknown>): Promise<Result> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', join(import.meta.dirname, 'load-client.ts')], {
      env: { ...process.env, BENCH_LOAD_CASE: JSON.stringify(c) },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.on('exit', (code) => (code === 0 ? resolve(JSON.parse(out) as Result) : reject(new Error(`load client exited ${code}`))));
  });
}

const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

async function main() {
  const { startLocalStack } = await import('../../bin/local/stack');
  const stack = await startLocalStack({ port: 0, memory: true, workers: false, stateDir: mkdtempSync(join(tmpdir(), 'bench-load-')) });
  const { dynamoClient, sqsClient } = await import('../../shared/adapters/aws-clients');
  const rec = recorder(dynamoClient(), sqsClient());
  const base = stack.sandbox.base_url;
  const key = stack.sandbox.api_key;
  const merchant = stack.sandbox.merchant_id;

  const { merchantAdmin } = await import('../../shared/application/merchants');
  const { repositories } = await import('../../shared/wiring');
  const { randomIds, randomSecrets, systemClock } = await import('../../shared/adapters/crypto');
  const admin = merchantAdmin({ ...repositories, ids: randomIds, secrets: randomSecrets, clock: systemClock });
  const { ROUTES } = await import('../../shared/manifest/routes');
  await admin.setRateLimits(merchant, Object.fromEntries(ROUTES.filter((r) => r.rateLimitPerMinute).map((r) => [r.id, 10_000_000])));

  const headers = { 'content-type': 'application/json', 'x-api-key': key };
  const call = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${base}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await res.text();
    if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${text.slice(0, 300)}`);
    return JSON.parse(text) as Record<string, unknown>;
  };
  await call('POST', '/api/v1/sandbox/balance/top-up', { currency: 'BRL', amount: 10_000_000 });
  const sessionBody = {
    amount: 10,
    currency: 'BRL',
    country: 'BRA',
    success_url: 'https://s.example/ok',
    cancel_url: 'https://s.example/no',
  };
  const sessions = async (n: number) => {
    const ids: string[] = [];
    const worker = async () => {
      while (ids.length < n) ids.push((await call('POST', '/api/v1/checkout', sessionBody)).session_id as string);
    };
    await Promise.all(Array.from({ length: 16 }, worker));
    return ids.slice(0, n);
  };
  const pix = await call('POST', '/cashier/cashier/payment', {
    payment_method: 'pix',
    amount: 10,
    currency: 'BRL',
    country: 'BRA',
    customer,
  });
  await call('POST', '/api/v1/payout', payoutBody());

  const cases: LoadCase[] = [
    { name: 'GET /cashier/cashier/status/{m}/{p}', method: 'GET', path: `/cashier/cashier/status/${merchant}/${pix.payment_id as string}` },
    { name: 'POST /api/v1/checkout', method: 'POST', path: '/api/v1/checkout', body: sessionBody },
    {
      name: 'POST /api/v1/checkout/process (pix)',
      method: 'POST',
      path: '/api/v1/checkout/process',
      pool: sessions,
      poolBody: (id) => ({ session_id: id, payment_method: 'pix', customer }),
    },
    {
      name: 'POST /cashier/cashier/payment (card)',
      method: 'POST',
      path: '/cashier/cashier/payment',
      body: {
        payment_method: 'card',
        amount: 10,
        currency: 'BRL',
        country: 'BRA',
        customer,
        card: { number: '4242424242424242', holder_name: 'ANA SILVA', expiry_month: '12', expiry_year: '2031', cvv: '123' },
      },
    },
    { name: 'POST /api/v1/payout (pix)', method: 'POST', path: '/api/v1/payout', body: payoutBody() },
    { name: 'GET /api/v1/payout (list)', method: 'GET', path: '/api/v1/payout?limit=10' },
  ];

  const rows: string[] = [];
  const calls: string[] = [];
  for (const c of cases) {
    // One request through the service, recorded: what the baseline will do per request.
    const pool = c.pool ? await c.pool(1) : [];
    await rec.idle(); // nothing from the previous case still in flight gets recorded as this one's
    await call('GET', '/api/v1/balance'); // the API-key cache is warm, as it is for all but one request per 10 s
    rec.start();
    await call(c.method, c.path, c.poolBody ? c.poolBody(pool[0]!) : c.body);
    const recorded: Recorded = rec.stop(pool[0]);
    calls.push(`| ${c.name} | ${recorded.summary} |`);
    const baseline = await startBaseline(replayer(dynamoClient(), sqsClient(), recorded));

    for (const connections of CONNECTIONS) {
      const need = c.pool ? 500 * DURATION + 500 : 0;
      const run = async (url: string, bodies?: string[]) => {
        // Warm-up (not counted), then the measured run.
        await runClient({ url, method: c.method, headers, connections, duration: 1, ...bodyOf(c, bodies?.splice(0, 500)) });
        const before = cpuMs();
        const r = await runClient({ url, method: c.method, headers, connections, duration: DURATION, ...bodyOf(c, bodies) });
        return { r, cpuPerRequest: (cpuMs() - before) / Math.max(1, r.requests.total) };
      };
      const svc = await run(`${base}${c.path}`, c.pool ? (await c.pool(need)).map((id) => JSON.stringify(c.poolBody!(id))) : undefined);
      const bare = await run(
        `${baseline.url}${c.path}`,
        c.pool ? (await c.pool(need)).map((id) => JSON.stringify({ session_id: id })) : undefined,
      );
      if (svc.r.non2xx > 0 || svc.r.errors > 0)
        throw new Error(`${c.name}: service answered ${svc.r.non2xx} non-2xx, ${svc.r.errors} errors`);
      if (bare.r.non2xx > 0 || bare.r.errors > 0)
        throw new Error(`${c.name}: baseline answered ${bare.r.non2xx} non-2xx, ${bare.r.errors} errors`);
      const ratio = svc.r.requests.average / bare.r.requests.average;
      const p99 = svc.r.latency.p99 / Math.max(1, bare.r.latency.p99);
      rows.push(
        `| ${c.name} | ${connections} | ${svc.r.requests.average.toFixed(0)} | ${svc.r.latency.p50} | ${svc.r.latency.p99} | ` +
          `${bare.r.requests.average.toFixed(0)} | ${bare.r.latency.p50} | ${bare.r.latency.p99} | ${ratio.toFixed(2)} | ` +
          `${p99.toFixed(2)} | ${svc.cpuPerRequest.toFixed(2)} | ${bare.cpuPerRequest.toFixed(2)} |`,
      );
      process.stderr.write(`${rows.at(-1)}\n`);
    }
    await new Promise<void>((r) => baseline.server.close(() => r()));
  }
  printLatencyReport(
    `Load: ${DURATION} s per run after 1 s warm-up, autocannon in its own process, local stack in memory with workers off`,
    '| endpoint | connections | service req/s | p50 ms | p99 ms | baseline req/s | p50 ms | p99 ms | throughput ratio | p99 ratio | ' +
      'service CPU ms/req | baseline CPU ms/req |',
    rows,
  );
  console.log('');
  console.log('| endpoint | AWS calls per request (the service recorded; the baseline replays the same) |');
  console.log('|---|---|');
  for (const line of calls) console.log(line);
  await stack.stop();
}

function payoutBody() {
  return { method_code: 'svc-mt-5', amount: 1, currency: 'BRL', beneficiary: pixBeneficiary };
}

let bodyFiles = 0;
const bodyOf = (c: LoadCase, bodies?: string[]) => {
  if (!bodies) return c.body === undefined ? {} : { body: JSON.stringify(c.body) };
  const bodiesFile = join(tmpdir(), `bench-load-bodies-${process.pid}-${bodyFiles++}.jsonl`);
  writeFileSync(bodiesFile, bodies.join('\n'));
  return { bodiesFile };
};

/** The bare baseline: reads the body, replays the recorded calls (with this request's session id, if any), answers JSON. */
let loggedFailure = false;
async function startBaseline(replay: (subject?: string) => Promise<void>): Promise<{ server: Server; url: string }> {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (d: Buffer) => chunks.push(d));
    req.on('end', () => {
      const body = chunks.length ? (JSON.parse(Buffer.concat(chunks).toString()) as { session_id?: string }) : {};
      replay(body.session_id).then(
        () => {
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end('{"success":true}');
        },
        (e: Error) => {
          res.writeHead(500, { 'content-type': 'application/json' });
          if (!loggedFailure) console.error(`baseline replay failed: ${e.name}: ${e.message}`);
          loggedFailure = true;
          res.end(JSON.stringify({ error: e.name }));
        },
      );
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const address = server.address() as { port: number };
  return { server, url: `http://127.0.0.1:${address.port}` };
}

runBench(main);
