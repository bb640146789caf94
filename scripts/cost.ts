/**
 * `npm run cost [-- --json]`: what one million payments cost on AWS (us-east-1 list prices in
 * scripts/cost-model.ts), for three mixes, from what each payment actually used on the local stack with
 * its workers running: every Lambda invocation and its duration (memory from the manifest), every API
 * request, the DynamoDB request units the engine reports (ReturnConsumedCapacity), every SQS request the
 * service and the queue poller made, the log bytes the functions wrote at the live stage's log level
 * with EMF metrics on, and the X-Ray traces its default sampling rule records. COST_RUNS payments per mix (default 50).
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { costLines, PRICES, sampledShare, total, type FunctionUse, type Usage } from './cost-model';

const RUNS = Number(process.env.COST_RUNS ?? 50);
const JSON_OUT = process.argv.includes('--json');

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
process.env.POWERTOOLS_METRICS_DISABLED = 'false';
process.env.PAYOUT_SETTLEMENT_DELAY_SECONDS = '0';

const READS = new Set(['GetItem', 'Query', 'Scan', 'BatchGetItem', 'TransactGetItems']);
const WRITES = new Set(['PutItem', 'UpdateItem', 'DeleteItem', 'BatchWriteItem', 'TransactWriteItems']);

interface Meter {
  invocations: Map<string, { n: number; billedMs: number }>;
  readUnits: number;
  writeUnits: number;
  sqs: Map<string, number>;
  /** Calls and units by DynamoDB command, for the report. */
  dynamo: Map<string, { calls: number; units: number }>;
  logBytes: number;
}
const fresh = (): Meter => ({ invocations: new Map(), readUnits: 0, writeUnits: 0, sqs: new Map(), dynamo: new Map(), logBytes: 0 });
let meter = fresh();

async function main() {
  const { stageConfig } = await import('../lib/stage-config');
  process.env.POWERTOOLS_LOG_LEVEL = stageConfig('live').powertoolsLogLevel;
  const { startReceiver } = await import('../test/support/receiver');
  const { startLocalStack } = await import('../bin/local/stack');
  const { observeInvocations } = await import('../bin/local/handler-loader');
  const receiver = await startReceiver();
  const stack = await startLocalStack({ port: 0, memory: true, stateDir: mkdtempSync(join(tmpdir(), 'cost-')) });
  const { dynamoClient, sqsClient } = await import('../shared/adapters/aws-clients');
  meterDynamoDb(dynamoClient());
  meterSqs(sqsClient());
  observeInvocations((file, ms) => {
    const f = meter.invocations.get(file) ?? { n: 0, billedMs: 0 };
    meter.invocations.set(file, { n: f.n + 1, billedMs: f.billedMs + Math.ceil(ms) });
  });
  meterLogs();

  const { merchantAdmin } = await import('../shared/application/merchants');
  const { repositories } = await import('../shared/wiring');
  const { randomIds, randomSecrets, systemClock } = await import('../shared/adapters/crypto');
  const admin = merchantAdmin({ ...repositories, ids: randomIds, secrets: randomSecrets, clock: systemClock });
  const m = await admin.createMerchant({ name: 'Cost model', notification_url: receiver.url });
  const base = stack.sandbox.base_url;
  const key = m.apiKey.secret;
  const call = async (method: string, path: string, body?: unknown, auth = true) => {
    const headers: Record<string, string> = { 'content-type': 'application/json', ...(auth ? { 'x-api-key': key } : {}) };
    const res = await fetch(`${base}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await res.text();
    if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${text.slice(0, 200)}`);
    return text.startsWith('{') ? (JSON.parse(text) as Record<string, string>) : {};
  };
  await call('POST', '/api/v1/sandbox/balance/top-up', { currency: 'BRL', amount: 1_000_000 });
  const customer = { name: 'Ana Silva', email: 'ana@example.com', document: '52998224725' };
  const delivered = (id: string, type: string) =>
    receiver.waitFor(1, 60_000, (r) => r.body?.event === type && JSON.stringify(r.body).includes(id));

  const mixes: Array<[string, () => Promise<void>]> = [
    [
      'Hosted checkout, PIX',
      async () => {
        const s = await call('POST', '/api/v1/checkout', {
          amount: 10,
          currency: 'BRL',
          country: 'BRA',
          success_url: 'https://shop.example/ok',
          cancel_url: 'https://shop.example/no',
        });
        await call('GET', `/checkout/${s.session_id}`, undefined, false);
        const p = await call('POST', '/api/v1/checkout/process', { session_id: s.session_id, payment_method: 'pix', customer }, false);
        await call('GET', `/checkout/pix-qr/${p.payment_id}`, undefined, false);
        for (let i = 0; i < 3; i++) await call('GET', `/checkout/${s.session_id}/status`, undefined, false);
        await call('POST', `/api/v1/sandbox/payments/${p.payment_id}/simulate`, { outcome: 'success' }); // the provider's notice
        await delivered(p.payment_id!, 'payment.success');
        await call('GET', `/api/v1/checkout/${s.session_id}`);
      },
    ],
    [
      'Direct card',
      async () => {
        const card = { number: '4242424242424242', holder_name: 'ANA SILVA', expiry_month: '12', expiry_year: '2031', cvv: '123' };
        const p = await call('POST', '/cashier/cashier/payment', {
          payment_method: 'card',
          amount: 10,
          currency: 'BRL',
          country: 'BRA',
          customer,
          card,
        });
        await delivered(p.payment_id!, 'payment.success');
        await call('GET', `/cashier/cashier/status/${m.merchant.merchant_id}/${p.payment_id}`);
      },
    ],
    [
      'Payout, PIX',
      async () => {
        const beneficiary = {
          name: 'Ana Silva',
          document: '52998224725',
          document_type: 'CPF',
          instant_transfer_key: 'ana@example.com',
          instant_transfer_type: 'email',
        };
        const p = await call('POST', '/api/v1/payout', { method_code: 'svc-mt-5', amount: 1, currency: 'BRL', beneficiary });
        await delivered(p.payout_id!, 'payout.completed');
        await call('GET', `/api/v1/payout/${p.payout_id}`);
      },
    ],
  ];

  const { functionEntries, DEFAULT_MEMORY_MB } = await import('../lib/bundling');
  const { MANIFEST } = await import('../lib/manifest');
  const entries = functionEntries(MANIFEST);
  const jobFiles = new Set(MANIFEST.jobs.map((j) => j.handler));
  const routeFiles = new Set([...MANIFEST.routes.map((r) => r.handler), MANIFEST.fallback.handler]);
  const results: Array<{ mix: string; usage: Usage; lines: ReturnType<typeof costLines>; total: number }> = [];

  for (const [mix, once] of mixes) {
    await once(); // warm: handler modules loaded, caches filled
    await new Promise((r) => setTimeout(r, 1500));
    meter = fresh();
    for (let i = 0; i < RUNS; i++) await once();
    await new Promise((r) => setTimeout(r, 1500)); // the last deliveries' bookkeeping
    const used = meter;
    const functions: Record<string, FunctionUse> = {};
    let apiRequests = 0;
    for (const [file, f] of used.invocations) {
      if (jobFiles.has(file)) continue; // scheduled every minute whatever the traffic: a fixed cost, below
      const entry = entries.find((e) => e.handlerFile === file)!;
      if (routeFiles.has(file)) apiRequests += f.n;
      functions[entry.id] = { invocations: f.n / RUNS, billedMs: f.billedMs / RUNS, memoryMb: entry.memoryMb ?? DEFAULT_MEMORY_MB };
    }
    const usage: Usage = {
      functions,
      apiRequests: apiRequests / RUNS,
      readUnits: used.readUnits / RUNS,
      writeUnits: used.writeUnits / RUNS,
      sqsRequests: [...used.sqs.values()].reduce((a, b) => a + b, 0) / RUNS,
      logBytes: used.logBytes / RUNS,
      traces: (apiRequests / RUNS) * sampledShare(apiRequests / RUNS),
    };
    const lines = costLines(usage);
    results.push({ mix, usage, lines, total: total(lines) });
    if (!JSON_OUT) {
      console.log(`\n${mix}: $${total(lines).toFixed(2)} per 1M payments (${RUNS} measured)`);
      console.log('| component | per payment | $ per 1M payments |\n|---|---|---|');
      for (const l of lines) console.log(`| ${l.component} | ${l.perPayment} | ${l.dollarsPerMillion.toFixed(3)} |`);
      const byCall = [...used.dynamo].map(([c, d]) => `${c} ${(d.calls / RUNS).toFixed(2)} (${(d.units / RUNS).toFixed(1)} units)`);
      console.log(`DynamoDB calls per payment: ${byCall.join(', ')}`);
      console.log(`SQS requests by kind: ${[...used.sqs].map(([c, n]) => `${c} ${(n / RUNS).toFixed(2)}`).join(', ')}`);
    }
  }

  // Scheduled jobs: every minute whatever the traffic (43,200 runs a month each); their duration when idle.
  const jobs = MANIFEST.jobs.map((j) => ({ id: j.id, memoryMb: j.memoryMb ?? DEFAULT_MEMORY_MB }));
  const fixed = jobs.reduce((sum, j) => sum + 43_200 * (PRICES.lambdaRequest + 0.05 * (j.memoryMb / 1024) * PRICES.lambdaArmGbSecond), 0);
  if (JSON_OUT) console.log(JSON.stringify({ prices: PRICES, runs: RUNS, results, fixedMonthlyJobsDollars: fixed }, null, 2));
  else {
    console.log(`\nPrices: us-east-1 list prices taken ${PRICES.takenOn} (scripts/cost-model.ts). Goal: <= $8 per 1M payments.`);
    console.log(`Fixed, not per payment: the ${jobs.length} scheduled jobs, every minute, ~$${fixed.toFixed(2)} a month at 50 ms each.`);
  }
  await receiver.stop();
  await stack.stop();
}

/** Asks DynamoDB for the capacity each call consumed and adds it up (reads and writes apart). */
function meterDynamoDb(client: import('@aws-sdk/client-dynamodb').DynamoDBClient) {
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const command = String(context.commandName).replace(/Command$/, '');
      const input = args.input as Record<string, unknown>;
      if (READS.has(command) || WRITES.has(command)) input.ReturnConsumedCapacity = 'TOTAL';
      const out = await next(args);
      const consumed = (out.output as { ConsumedCapacity?: unknown }).ConsumedCapacity;
      const units = [consumed ?? []].flat().reduce((sum: number, c) => sum + ((c as { CapacityUnits?: number }).CapacityUnits ?? 0), 0);
      const d = meter.dynamo.get(command) ?? { calls: 0, units: 0 };
      meter.dynamo.set(command, { calls: d.calls + 1, units: d.units + units });
      if (READS.has(command)) meter.readUnits += units;
      else if (WRITES.has(command)) meter.writeUnits += units;
      return out;
    },
    { step: 'initialize', name: 'costMeter' },
  );
}

function meterSqs(client: import('@aws-sdk/client-sqs').SQSClient) {
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const command = String(context.commandName).replace(/Command$/, '');
      meter.sqs.set(command, (meter.sqs.get(command) ?? 0) + 1);
      // Each message sent is later received and deleted by the queue's Lambda event source mapping (AWS
      // polls; locally the poller's own client): at payment rates a receive brings ~1 message, so 2 requests.
      const entries =
        command === 'SendMessageBatch' ? ((args.input as { Entries?: unknown[] }).Entries?.length ?? 0) : command === 'SendMessage' ? 1 : 0;
      if (entries)
        meter.sqs.set(
          'ReceiveMessage+DeleteMessage (event source mapping)',
          (meter.sqs.get('ReceiveMessage+DeleteMessage (event source mapping)') ?? 0) + 2 * entries,
        );
      return next(args);
    },
    { step: 'initialize', name: 'costMeter' },
  );
}

/** Counts what the functions log (Powertools JSON lines and EMF metric lines) and keeps it off the screen. */
function meterLogs() {
  const write = process.stdout.write.bind(process.stdout);
  process.stdout.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
    const text = typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString();
    if (text.startsWith('{')) {
      meter.logBytes += Buffer.byteLength(text);
      return true;
    }
    return (write as (c: string | Uint8Array, ...r: unknown[]) => boolean)(chunk, ...rest);
  }) as typeof process.stdout.write;
}

main().then(
  () => process.exit(0),
  (e: unknown) => {
    console.error(e);
    process.exit(1);
  },
);
