/**
 * `npm run cost [-- --json]`: what one million payments cost on AWS (us-east-1 list prices in scripts/cost-model.ts)
 * for three mixes, from what each payment used on the local stack with its workers running (COST_RUNS payments per
 * mix, default 50): every Lambda invocation and its duration (memory from the manifest), every API request, the
 * DynamoDB request units (the engine's ReturnConsumedCapacity, transactions recomputed from item sizes), every SQS
 * request of the service and of the event source mappings, the log bytes at the live log level with EMF on, and the
 * X-Ray traces Lambda's sampling records. Usage is attributed to the function in whose invocation it happened.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GetItemCommand, ScanCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { SQSClient } from '@aws-sdk/client-sqs';
import { customer, pixBeneficiary } from '../test/support/sample-data';
import * as M from './cost-model';

const RUNS = Number(process.env.COST_RUNS ?? 50);
const JSON_OUT = process.argv.includes('--json');
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
process.env.POWERTOOLS_METRICS_DISABLED = 'false'; // EMF lines are log bytes too
process.env.PAYOUT_SETTLEMENT_DELAY_SECONDS = '0';

const READS = new Set(['GetItem', 'Query', 'Scan', 'BatchGetItem', 'TransactGetItems']);
const WRITES = new Set(['PutItem', 'UpdateItem', 'DeleteItem', 'BatchWriteItem', 'TransactWriteItems']);
const OUTSIDE = '(outside any handler)';
const SHOP_URLS = { success_url: 'https://shop.example/ok', cancel_url: 'https://shop.example/no' };
type FnMeter = M.Counted;
const freshPhase = () => ({
  fns: new Map<string, FnMeter>(),
  dynamo: new Map<string, { calls: number; units: number }>(),
  sqs: new Map<string, number>(),
  tx: { engine: 0, table: 0, index: 0 },
  conditionalFailures: 0,
  warnLines: 0,
});
type Phase = ReturnType<typeof freshPhase>;
let phase: Phase = freshPhase();
/** The invocation running: its handler file, and the time the meter itself spent in it (reads around transactions). */
const als = new AsyncLocalStorage<{ file: string; meterMs: number }>();
const fnMeter = (file = als.getStore()?.file ?? OUTSIDE) => {
  let f = phase.fns.get(file);
  if (!f) phase.fns.set(file, (f = M.emptyCount()));
  return f;
};
const bump = (map: Map<string, number>, key: string, n: number) => map.set(key, (map.get(key) ?? 0) + n);
const sqsChunks = (bytes: number) => Math.max(1, Math.ceil(bytes / 65536));
/** Every metric series the EMF lines define (namespace, dimensions and their values, metric): each is a custom metric. */
const emfSeries = new Set<string>();
let inFlight = 0;
/** A mix or the fixed cost over the bill's guard (M.GOALS, M.FIXED_GOAL_PER_MONTH): the run exits 1. */
let overGuard = false;
let lastActivity = 0;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** Waits until no invocation has run for `ms` (the last deliveries' bookkeeping). */
const quiet = async (ms = 1500) => {
  while (inFlight > 0 || performance.now() - lastActivity < ms) await sleep(100);
};

async function main() {
  const { stageConfig } = await import('../lib/stage-config');
  const logLevel = stageConfig('live').powertoolsLogLevel;
  const tracing = stageConfig('live').tracing;
  const systemLogLevel = stageConfig('live').systemLogLevel;
  process.env.POWERTOOLS_LOG_LEVEL = logLevel;
  const { functionEntries, DEFAULT_MEMORY_MB } = await import('../lib/bundling');
  const { MANIFEST } = await import('../lib/manifest');
  const { TABLE } = await import('../shared/manifest/table');
  const entries = functionEntries(MANIFEST);
  const entryOf = (file: string) => entries.find((e) => e.handlerFile === file);
  const memoryOf = (file: string) => entryOf(file)?.memoryMb ?? DEFAULT_MEMORY_MB;
  const jobFiles = new Set(MANIFEST.jobs.map((j) => j.handler));
  const routeFiles = new Set([...MANIFEST.routes.map((r) => r.handler), MANIFEST.fallback.handler]);
  const consumerFiles = new Set(MANIFEST.queues.flatMap((q) => (q.consumer ? [q.consumer.handler] : [])));

  const { startReceiver } = await import('../test/support/receiver');
  const { startLocalStack, LOCAL_TABLE } = await import('../bin/local/stack');
  const { hookInvocations, loadHandler } = await import('../bin/local/handler-loader');
  const { dynamoClientFor } = await import('../bin/local/services');
  const { lambdaContext, scheduledEvent } = await import('../bin/local/lambda-events');
  const receiver = await startReceiver();
  const stack = await startLocalStack({ port: 0, memory: true, stateDir: mkdtempSync(join(tmpdir(), 'cost-')) });
  const raw = dynamoClientFor(stack.dynamodbEndpoint); // unmetered: item sizes around transactions, the storage scan
  const { dynamoClient, sqsClient } = await import('../shared/adapters/aws-clients');
  meterDynamoDb(dynamoClient(), raw, TABLE.indexes);
  meterSqs(sqsClient());
  meterLogs();
  hookInvocations(async (file, event, invoke) => {
    const wall = performance.now();
    const cpu = process.cpuUsage();
    const ctx = { file, meterMs: 0 };
    inFlight++;
    try {
      return await als.run(ctx, invoke);
    } finally {
      inFlight--;
      lastActivity = performance.now();
      const ms = lastActivity - wall - ctx.meterMs;
      const used = process.cpuUsage(cpu);
      const cpuMs = Math.min(ms, (used.user + used.system) / 1000);
      const f = fnMeter(file);
      f.n++;
      f.billedMs += Math.ceil(ms);
      f.cpuShareMs += Math.ceil(ms - cpuMs + cpuMs * Math.max(1, M.FULL_VCPU_MB / memoryOf(file)));
      const records = (event as { Records?: Array<{ body?: string }> }).Records;
      if (consumerFiles.has(file) && records) {
        const chunks = sqsChunks(records.reduce((s, r) => s + Buffer.byteLength(r.body ?? ''), 0));
        f.sqs += chunks + 1;
        bump(phase.sqs, 'ReceiveMessage (event source mapping)', chunks);
        bump(phase.sqs, 'DeleteMessageBatch (event source mapping)', 1);
      }
    }
  });

  const { merchantAdmin } = await import('../shared/application/merchants');
  const { repositories } = await import('../shared/wiring');
  const { randomIds, randomSecrets, systemClock } = await import('../shared/adapters/crypto');
  const admin = merchantAdmin({ ...repositories, ids: randomIds, secrets: randomSecrets, clock: systemClock });
  const m = await admin.createMerchant({ name: 'Cost model', notification_url: receiver.url });
  const merchantId = m.merchant.merchant_id;
  // Limits out of the way (the rate-limit write still happens on every request, so nothing is saved).
  await admin.setRateLimits(merchantId, Object.fromEntries(MANIFEST.routes.filter((r) => r.rateLimitPerMinute).map((r) => [r.id, 1e7])));
  const base = stack.sandbox.base_url;
  const call = async (method: string, path: string, body?: unknown, opts: { auth?: boolean; idempotent?: boolean } = {}) => {
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (opts.auth !== false) headers['x-api-key'] = m.apiKey.secret;
    if (opts.idempotent) headers['x-idempotency-key'] = crypto.randomUUID();
    const res = await fetch(`${base}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await res.text();
    if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${text.slice(0, 200)}`);
    return text.startsWith('{') ? (JSON.parse(text) as Record<string, string>) : {};
  };
  await call('POST', '/api/v1/sandbox/balance/top-up', { currency: 'BRL', amount: 1_000_000 });
  emfSeries.clear(); // count the series of the mixes only
  const delivered = (id: string, type: string) =>
    receiver.waitFor(1, 60_000, (r) => r.body?.event === type && JSON.stringify(r.body).includes(id));
  const shopper = { auth: false };

  const mixes: Array<{ name: string; what: string; once: () => Promise<void> }> = [
    {
      name: 'Hosted checkout, PIX',
      what:
        'create session, page, process (pix), QR image, 2 status polls, provider callback (sandbox simulate), webhook, ' +
        '1 poll that sees it paid, merchant GET',
      once: async () => {
        const checkout = { amount: 10, currency: 'BRL', country: 'BRA', ...SHOP_URLS };
        const s = await call('POST', '/api/v1/checkout', checkout, { idempotent: true });
        await call('GET', `/checkout/${s.session_id}`, undefined, shopper);
        const p = await call('POST', '/api/v1/checkout/process', { session_id: s.session_id, payment_method: 'pix', customer }, shopper);
        await call('GET', new URL(p.pix_qr_code!).pathname, undefined, shopper); // the page's <img src>
        for (let i = 0; i < 2; i++) await call('GET', `/checkout/${s.session_id}/status`, undefined, shopper);
        await call('POST', `/api/v1/sandbox/payments/${p.payment_id}/simulate`, { outcome: 'success' });
        await delivered(p.payment_id!, 'payment.success');
        await call('GET', `/checkout/${s.session_id}/status`, undefined, shopper);
        await call('GET', `/api/v1/checkout/${s.session_id}`);
      },
    },
    {
      name: 'Direct card',
      what: 'POST /cashier/cashier/payment (4242424242424242), webhook, merchant GET status',
      once: async () => {
        const card = { number: '4242424242424242', holder_name: 'ANA SILVA', expiry_month: '12', expiry_year: '2031', cvv: '123' };
        const body = { payment_method: 'card', amount: 10, currency: 'BRL', country: 'BRA', customer, card };
        const p = await call('POST', '/cashier/cashier/payment', body, { idempotent: true });
        await delivered(p.payment_id!, 'payment.success');
        await call('GET', `/cashier/cashier/status/${merchantId}/${p.payment_id}`);
      },
    },
    {
      name: 'Payout, PIX',
      what: 'POST /api/v1/payout (PIX key), settlement worker, webhooks (processing, completed), merchant GET payout',
      once: async () => {
        const body = { method_code: 'svc-mt-5', amount: 1, currency: 'BRL', beneficiary: pixBeneficiary };
        const p = await call('POST', '/api/v1/payout', body, { idempotent: true });
        await delivered(p.payout_id!, 'payout.completed');
        await call('GET', `/api/v1/payout/${p.payout_id}`);
      },
    },
  ];

  /** Per-payment usage of the functions `keep` selects, from a phase of `runs` payments. */
  const usageOf = (ph: Phase, runs: number, keep: (file: string) => boolean, mode = tracing) =>
    M.usageFrom(
      [...ph.fns]
        .filter(([file]) => keep(file))
        .map(([file, c]) => ({ id: entryOf(file)?.id ?? file, memoryMb: memoryOf(file), route: routeFiles.has(file), c })),
      runs,
      mode,
      systemLogLevel,
    );
  const scan = async () => {
    const items: M.Item[] = [];
    let start: M.Item | undefined;
    do {
      const page = await raw.send(new ScanCommand({ TableName: LOCAL_TABLE, ExclusiveStartKey: start }));
      items.push(...(page.Items ?? []));
      start = page.LastEvaluatedKey;
    } while (start);
    const bytes = (ttl: boolean) =>
      M.storageBytes(
        items.filter((i) => (i.ttl !== undefined) === ttl),
        TABLE.indexes,
      );
    return { retained: bytes(false), expiring: bytes(true) };
  };

  /**
   * Waits until the stream fold has taken every pending credit (its batching window, 30 s, is part of the flow):
   * the fold's invocation and writes belong to the mix whose payments it folds.
   */
  const folded = async () => {
    const pending = async () => {
      let n = 0;
      let start: M.Item | undefined;
      do {
        const page = await raw.send(
          new ScanCommand({
            TableName: LOCAL_TABLE,
            FilterExpression: 'begins_with(PK, :fold)',
            ExpressionAttributeValues: { ':fold': { S: 'FOLD#' } },
            ExclusiveStartKey: start,
          }),
        );
        n += (page.Items ?? []).length;
        start = page.LastEvaluatedKey;
      } while (start);
      return n;
    };
    while ((await pending()) > 0) await sleep(500);
  };

  const results = [];
  const report: string[] = [];
  for (const mix of mixes) {
    await mix.once(); // warm: handler modules loaded, caches filled
    await folded();
    await quiet();
    const before = await scan();
    const receivedBefore = receiver.received.length;
    phase = freshPhase();
    for (let i = 0; i < RUNS; i++) await mix.once();
    await folded();
    await quiet();
    const ph = phase;
    phase = freshPhase();
    const after = await scan();
    const inMix = (f: string) => !jobFiles.has(f) && f !== OUTSIDE;
    const usage = usageOf(ph, RUNS, inMix);
    const activeTraces = usageOf(ph, RUNS, inMix, 'active').tracesRecorded;
    const lines = M.costLines(usage);
    const sum = M.total(lines);
    const per = (n: number) => (n / RUNS).toFixed(2);
    const $ = (n: number) => `$${n.toFixed(2)}`;
    const invocations = Object.values(usage.functions).reduce((n, f) => n + f.invocations, 0);
    const xray = (traces: number) => traces * (M.PRICES.xrayTraceRecorded + M.PRICES.xrayTraceRetrieved) * 1e6;
    const sharedTraces = invocations * M.sampledShare(invocations);
    const floor = M.floorDollars(M.FLOORS[mix.name] ?? [], usage);
    const webhooks = new Map<string, number>();
    for (const r of receiver.received.slice(receivedBefore)) bump(webhooks, String(r.body?.event), 1);
    const kept = (after.retained - before.retained) / RUNS;
    const byFunction = [...ph.fns].filter(([, f]) => f.readUnits + f.writeUnits > 0);
    const xrayActive = $(xray(activeTraces));
    const compute = (k: 'billedMs' | 'cpuShareMs') => $(M.lambdaComputeDollars(usage.functions, k));
    const tx = ph.tx;
    const notes = [
      `tracing ${tracing} (the live stage's setting); with it active the mix costs ` +
        `${$(sum - xray(usage.tracesRecorded) + xray(activeTraces))} ` +
        `(X-Ray ${xrayActive}; with one 1/s reservoir for all functions ${sharedTraces.toFixed(2)} traces, ${$(xray(sharedTraces))})`,
      `floor ${$(floor)} (the requests this flow cannot avoid, scripts/cost-model.ts FLOORS; compute and logs as measured); ` +
        `goal ${$(M.GOALS[mix.name] ?? NaN)}`,
      `Lambda compute ${compute('billedMs')} as measured; ${compute('cpuShareMs')} if each invocation's CPU time ` +
        "(process-wide, an upper bound) ran at its memory's share of a vCPU (1,769 MB = 1 vCPU)",
      `DynamoDB calls per payment: ${[...ph.dynamo].map(([c, d]) => `${c} ${per(d.calls)} (${per(d.units)} units)`).join(', ')}`,
      'DynamoDB per payment by function: ' +
        byFunction.map(([file, f]) => `${entryOf(file)?.id ?? file} ${per(f.writeUnits)} WRU / ${per(f.readUnits)} RRU`).join(', '),
      `TransactWriteItems: DynamoDB Local reported ${per(tx.engine)} WRU per payment; from item sizes ${per(tx.table)} on the table (2x)` +
        ` + ${per(tx.index)} on indexes = ${per(tx.table + tx.index)} (used); were index writes doubled too, +${per(tx.index)} WRU` +
        ` (+${$((tx.index / RUNS) * M.PRICES.dynamoWriteUnit * 1e6)})`,
      ...(ph.conditionalFailures ? [`failed conditional writes per payment: ${per(ph.conditionalFailures)} (1 WRU each)`] : []),
      `SQS requests per payment: ${[...ph.sqs].map(([c, n]) => `${c} ${per(n)}`).join(', ')}`,
      `webhooks delivered per payment: ${[...webhooks].map(([t, n]) => `${t} ${per(n)}`).join(', ')}`,
      `storage: ${(kept / 1024).toFixed(2)} KB kept per payment (items and index copies, 100 B overhead each; ` +
        `+${((after.expiring - before.expiring) / RUNS / 1024).toFixed(2)} KB that expires by TTL): ` +
        `${$((kept / 1024 ** 3) * M.PRICES.dynamoStorageGbMonth * 1e6)} per month per 1M payments kept`,
      ...(ph.warnLines ? [`handler log lines at WARN or above per payment: ${per(ph.warnLines)}`] : []),
      ...(ph.fns.has(OUTSIDE) ? [`not attributed to a function (excluded): ${JSON.stringify(ph.fns.get(OUTSIDE))}`] : []),
    ];
    results.push({ mix: mix.name, flow: mix.what, runs: RUNS, usage, lines, total: sum, floor, goal: M.GOALS[mix.name] ?? NaN, notes });
    report.push(M.renderMix(mix.name, mix.what, RUNS, lines, notes));
  }

  // Fixed, whatever the traffic: each scheduled job's idle run, measured, at its schedule (traces, with tracing
  // active: all recorded at 1/min), and the event source mappings' idle long polling.
  const fixed = [];
  for (const job of MANIFEST.jobs) {
    phase = freshPhase();
    const handler = await loadHandler(job.handler);
    for (let i = 0; i < 3; i++) await handler(scheduledEvent(job.id), lambdaContext(job.id, job.timeoutSeconds));
    const u = usageOf(phase, 3, (f) => f === job.handler);
    const runsPerMonth = (M.SECONDS_PER_MONTH / 60) * (1 / job.everyMinutes);
    const invs = Object.values(u.functions).reduce((n, f) => n + f.invocations, 0);
    const traced = tracing === 'active' ? invs : 0; // a schedule starts no trace: pass-through records none
    const perRun = M.total(M.costLines({ ...u, tracesRecorded: traced, tracesRetrieved: traced })) / 1e6;
    const ms = Object.values(u.functions)[0]?.billedMs ?? 0;
    fixed.push({ id: job.id, runsPerMonth, msPerRun: ms, readUnitsPerRun: u.readUnits, dollarsPerMonth: perRun * runsPerMonth });
  }
  const esmQueues = consumerFiles.size;
  const esmIdle = esmQueues * M.ESM_IDLE_RECEIVES_PER_MONTH * M.PRICES.sqsRequest;
  const metricsMonthly = emfSeries.size * M.PRICES.customMetricMonth;
  const stage = await stageResources();
  const fixedTotal = fixed.reduce((s, j) => s + j.dollarsPerMonth, 0) + esmIdle + metricsMonthly + stage.dollars;
  overGuard = results.some((r) => !(r.total <= r.goal)) || !(fixedTotal <= M.FIXED_GOAL_PER_MONTH);

  if (JSON_OUT) {
    const metrics = { series: emfSeries.size, dollarsPerMonth: metricsMonthly };
    const fixedMonthly = { jobs: fixed, esmIdleDollars: esmIdle, metrics, stageResources: stage, total: fixedTotal };
    console.log(JSON.stringify({ prices: M.PRICES, runs: RUNS, logLevel, assumptions: M.ASSUMPTIONS, results, fixedMonthly }, null, 2));
  } else {
    console.log(`## AWS cost per 1M payments (us-east-1 list prices of ${M.PRICES.takenOn}, scripts/cost-model.ts)`);
    console.log(
      `\nLocal stack in memory with its workers, live log level ${logLevel}, Node ${process.version}, ${new Date().toISOString()}.`,
    );
    console.log(report.join('\n'));
    console.log('\n| mix | $ per 1M payments | floor | goal | |\n|---|---|---|---|---|');
    for (const r of results) {
      const verdict = r.total <= r.goal ? 'within' : `over by $${(r.total - r.goal).toFixed(2)}`;
      console.log(`| ${r.mix} | ${r.total.toFixed(2)} | ${r.floor.toFixed(2)} | ${r.goal.toFixed(2)} | ${verdict} |`);
    }
    const jobs = fixed.map(
      (j) => `${j.id} ${j.msPerRun.toFixed(1)} ms, ${j.readUnitsPerRun.toFixed(1)} RRU, $${j.dollarsPerMonth.toFixed(2)}`,
    );
    const fixedVerdict = fixedTotal <= M.FIXED_GOAL_PER_MONTH ? 'within' : 'over';
    console.log(
      `\nFixed per month per stage (live), not per payment: $${fixedTotal.toFixed(2)} (goal $${M.FIXED_GOAL_PER_MONTH}: ${fixedVerdict}):`,
    );
    const d = (n: number, price: number) => `$${(n * price).toFixed(2)}`;
    console.log(
      `- the stage's own resources (synthesized): ${stage.alarms} alarms evaluating ${stage.alarmMetrics} metrics ` +
        `${d(stage.alarmMetrics, M.PRICES.alarmMetricMonth)}, ` +
        `${stage.dashboards} dashboard ${d(stage.dashboards, M.PRICES.dashboardMonth)}, ` +
        `${stage.kmsKeys} KMS keys ${d(stage.kmsKeys, M.PRICES.kmsKeyMonth)}, ` +
        `${stage.secrets} secret ${d(stage.secrets, M.PRICES.secretMonth)};`,
    );
    console.log(`- the scheduled jobs every minute, idle runs measured: ${jobs.join('; ')};`);
    console.log(`- idle long polling of the ${esmQueues} event source mappings (5 pollers, 20 s): $${esmIdle.toFixed(2)};`);
    console.log(
      `- the ${emfSeries.size} custom metrics (EMF series) these mixes emitted: $${metricsMonthly.toFixed(2)} (other routes add theirs).`,
    );
    console.log(`\nAssumptions:\n${M.ASSUMPTIONS.map((a) => `- ${a}`).join('\n')}`);
  }
  await receiver.stop();
  await stack.stop();
}

/** What the live stage bills by the month whatever the traffic: alarms (per metric evaluated), dashboards, KMS keys, secrets. */
async function stageResources() {
  const { App } = await import('aws-cdk-lib');
  const { Template } = await import('aws-cdk-lib/assertions');
  const { buildApp } = await import('../lib/app');
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  const built = buildApp(app, 'live');
  // The stateless stack's nested stacks (workers, provider callbacks) hold alarms too.
  const { workers, providerCallbacks } = built.stateless;
  const resources = [built.stateful, built.stateless, workers, providerCallbacks, ...(built.edge ? [built.edge] : [])].flatMap(
    (stack) =>
      Object.values(Template.fromStack(stack).toJSON().Resources ?? {}) as Array<{ Type: string; Properties?: { Metrics?: unknown[] } }>,
  );
  const of = (type: string) => resources.filter((r) => r.Type === type);
  const alarms = of('AWS::CloudWatch::Alarm');
  const alarmMetrics = alarms.reduce(
    (n, a) => n + Math.max(1, (a.Properties?.Metrics ?? []).filter((m) => !(m as { Expression?: string }).Expression).length),
    0,
  );
  const counts = {
    alarms: alarms.length,
    alarmMetrics,
    dashboards: of('AWS::CloudWatch::Dashboard').length,
    kmsKeys: of('AWS::KMS::Key').length,
    secrets: of('AWS::SecretsManager::Secret').length,
  };
  const dollars =
    counts.alarmMetrics * M.PRICES.alarmMetricMonth +
    counts.dashboards * M.PRICES.dashboardMonth +
    counts.kmsKeys * M.PRICES.kmsKeyMonth +
    counts.secrets * M.PRICES.secretMonth;
  return { ...counts, dollars };
}

/** Asks DynamoDB for the capacity of every call and adds it to the function that made it (reads and writes apart). */
function meterDynamoDb(client: DynamoDBClient, raw: DynamoDBClient, indexes: readonly M.IndexKeys[]) {
  type TxItem = { [k in M.ItemChange['action']]?: { TableName?: string; Item?: M.Item; Key?: M.Item } };
  const read = (table: string, key: M.Item) =>
    raw.send(new GetItemCommand({ TableName: table, Key: key, ConsistentRead: true })).then((r) => r.Item);
  const keyOf = (item: M.Item) => ({ PK: item.PK!, SK: item.SK! });
  const commandOf = (context: { commandName?: string }) => String(context.commandName).replace(/Command$/, '');
  client.middlewareStack.add(
    (next, context) => (args) => {
      const command = commandOf(context);
      if (READS.has(command) || WRITES.has(command)) (args.input as Record<string, unknown>).ReturnConsumedCapacity = 'INDEXES';
      return next(args);
    },
    { step: 'initialize', name: 'costCapacity' },
  );
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const command = commandOf(context);
      const input = args.input as Record<string, unknown>;
      const f = fnMeter();
      // TransactWriteItems: DynamoDB Local counts one item for the whole transaction, so units come from the items.
      const tx = command === 'TransactWriteItems' ? (input.TransactItems as TxItem[]) : [];
      const t0 = performance.now();
      const changes = await Promise.all(
        tx.map(async (t) => {
          const action = Object.keys(t)[0] as M.ItemChange['action'];
          const op = t[action]!;
          const key = op.Key ?? keyOf(op.Item!);
          return { action, table: op.TableName!, key, before: await read(op.TableName!, key) };
        }),
      );
      const t1 = performance.now();
      let out: Awaited<ReturnType<typeof next>>;
      try {
        out = await next(args);
      } catch (e) {
        if ((e as { name?: string }).name === 'ConditionalCheckFailedException') {
          phase.conditionalFailures++;
          f.writeUnits += 1;
        }
        throw e;
      }
      const consumed = (out.output as { ConsumedCapacity?: unknown }).ConsumedCapacity;
      let units = [consumed ?? []].flat().reduce((sum: number, c) => sum + ((c as { CapacityUnits?: number }).CapacityUnits ?? 0), 0);
      // DynamoDB Local reports 0 for a Query or Scan page that finds nothing; DynamoDB bills its minimum read.
      if ((command === 'Query' || command === 'Scan') && units === 0) units = input.ConsistentRead ? 1 : 0.5;
      const t2 = performance.now();
      if (changes.length > 0) {
        const after = await Promise.all(changes.map((c) => read(c.table, c.key)));
        const r = M.transactWriteUnits(
          changes.map((c, i) => ({ action: c.action, before: c.before, after: after[i] })),
          indexes,
        );
        const ctx = als.getStore();
        if (ctx) ctx.meterMs += t1 - t0 + (performance.now() - t2);
        phase.tx.engine += units;
        phase.tx.table += r.table;
        phase.tx.index += r.index;
        units = r.table + r.index;
      }
      const d = phase.dynamo.get(command) ?? { calls: 0, units: 0 };
      phase.dynamo.set(command, { calls: d.calls + 1, units: d.units + units });
      if (READS.has(command)) f.readUnits += units;
      else if (WRITES.has(command)) f.writeUnits += units;
      return out;
    },
    { step: 'build', name: 'costMeter' }, // after the document client's marshalling: input as AttributeValues
  );
}

/** Counts every SQS request of the service (per 64 KB chunk of what it sends) against the function that made it. */
function meterSqs(client: SQSClient) {
  type Msg = { MessageBody?: string; MessageAttributes?: unknown };
  const size = (m: Msg) => Buffer.byteLength(m.MessageBody ?? '') + (m.MessageAttributes ? JSON.stringify(m.MessageAttributes).length : 0);
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const command = String(context.commandName).replace(/Command$/, '');
      const input = args.input as Msg & { Entries?: Msg[] };
      const bytes =
        command === 'SendMessage'
          ? size(input)
          : command === 'SendMessageBatch'
            ? (input.Entries ?? []).reduce((s, e) => s + size(e), 0)
            : 0;
      const n = sqsChunks(bytes);
      fnMeter().sqs += n;
      bump(phase.sqs, command, n);
      return next(args);
    },
    { step: 'initialize', name: 'costMeter' },
  );
}

/** Counts what the handlers log (Powertools JSON and EMF lines, stdout and stderr) and keeps it off the screen. */
function meterLogs() {
  for (const stream of [process.stdout, process.stderr]) {
    const write = stream.write.bind(stream) as (c: string | Uint8Array, ...r: unknown[]) => boolean;
    stream.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
      const text = typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString();
      if (!als.getStore() || !text.startsWith('{')) return write(chunk, ...rest);
      const f = fnMeter();
      f.logBytes += Buffer.byteLength(text);
      f.logEvents += text.split('\n').filter(Boolean).length;
      if (/"level":"(WARN|ERROR|CRITICAL)"/.test(text)) phase.warnLines++;
      for (const line of text.split('\n')) M.emfSeriesKeys(line).forEach((k) => emfSeries.add(k));
      return true;
    }) as typeof stream.write;
  }
}

main().then(
  () => {
    if (overGuard) console.error("\nnpm run cost: over the bill's guard (scripts/cost-model.ts GOALS, FIXED_GOAL_PER_MONTH)");
    process.exit(overGuard ? 1 : 0);
  },
  (e: unknown) => {
    console.error(e);
    process.exit(1);
  },
);
