/**
 * The AWS bill of one payment, from what `npm run cost` measured on the local stack: list prices, DynamoDB's
 * size rules (item size, transactional and index write units, storage) and the arithmetic. Pure; unit-tested
 * in test/unit/cost-model.test.ts.
 */
import type { AttributeValue } from '@aws-sdk/client-dynamodb';

/**
 * us-east-1 list prices, as published on the AWS pricing pages named here; taken 2026-11-23 (written from the
 * published price lists, not read from the live pages that day). Free tiers are ignored throughout.
 */
export const PRICES = {
  takenOn: '2026-11-23',
  /** "AWS Lambda Pricing": Arm, per GB-second (first 6 billion GB-s a month), and per request. */
  lambdaArmGbSecond: 0.0000133334,
  lambdaRequest: 0.2 / 1e6,
  /** "Amazon API Gateway Pricing": HTTP APIs, per request (first 300 million a month; per 512 KB, our sizes are far below). */
  httpApiRequest: 1.0 / 1e6,
  /**
   * "Amazon DynamoDB Pricing for On-Demand Capacity", after the cut of 1 November 2024 (on-demand throughput
   * halved): per write and read request unit; Standard table class storage per GB-month.
   */
  dynamoWriteUnit: 0.625 / 1e6,
  dynamoReadUnit: 0.125 / 1e6,
  dynamoStorageGbMonth: 0.25,
  /** "Amazon SQS Pricing": standard queues, per request (each 64 KB chunk of a payload is one request). */
  sqsRequest: 0.4 / 1e6,
  /** "Amazon CloudWatch Pricing": Logs, Standard log class, ingestion per GB. */
  logsIngestedGb: 0.5,
  /** "Amazon CloudWatch Pricing": custom metrics (EMF series included), per metric-month, first 10,000. */
  customMetricMonth: 0.3,
  /** "Amazon CloudWatch Pricing": standard-resolution alarm, per metric it evaluates, per month. */
  alarmMetricMonth: 0.1,
  /** "Amazon CloudWatch Pricing": a dashboard a month (beyond the account's 3 free ones). */
  dashboardMonth: 3.0,
  /** "AWS Key Management Service Pricing": a customer managed key a month (rotation's extra versions ignored). */
  kmsKeyMonth: 1.0,
  /** "AWS Secrets Manager Pricing": a secret a month. */
  secretMonth: 0.4,
  /** "AWS X-Ray Pricing": per trace recorded, per trace retrieved or scanned. */
  xrayTraceRecorded: 5.0 / 1e6,
  xrayTraceRetrieved: 0.5 / 1e6,
} as const;

/** The rate the per-payment figures are taken at: one million payments in a 30-day month (0.39 a second). */
export const PAYMENTS_PER_MONTH = 1e6;
export const SECONDS_PER_MONTH = 30 * 24 * 3600;
/** Lambda gives a function one full vCPU at 1,769 MB and a proportional share below. */
export const FULL_VCPU_MB = 1769;
/** An idle SQS event source mapping long-polls with 5 pollers, 20 s each: 15 ReceiveMessage a minute per queue. */
export const ESM_IDLE_RECEIVES_PER_MONTH = 5 * 3 * 60 * 24 * 30;

const RID = '3f1c2a9e-6b7d-4e21-9c1a-5d2b8e7f4a60';
/** What Lambda itself writes per invocation (text log format, active tracing): START, END, REPORT and its XRAY line. */
export const PLATFORM_LOG_LINES = [
  `START RequestId: ${RID} Version: $LATEST\n`,
  `END RequestId: ${RID}\n`,
  `REPORT RequestId: ${RID}\tDuration: 23.45 ms\tBilled Duration: 24 ms\tMemory Size: 256 MB\tMax Memory Used: 92 MB\t\n` +
    `XRAY TraceId: 1-6741b2c3-4d5e6f708192a3b4c5d6e7f8\tSegmentId: 0a1b2c3d4e5f6789\tSampled: true\t\n`,
];
export const PLATFORM_LOG_BYTES_PER_INVOCATION = PLATFORM_LOG_LINES.reduce((n, l) => n + Buffer.byteLength(l), 0);
/** Bytes CloudWatch Logs adds to each log event's message when it sizes a PutLogEvents batch; assumed billed too. */
export const LOG_EVENT_OVERHEAD_BYTES = 26;

// ---- DynamoDB size rules (each index's projection as shared/manifest/table.ts declares it) ----

export type Item = Record<string, AttributeValue>;
export interface IndexKeys {
  readonly name: string;
  readonly partitionKey: string;
  readonly sortKey: string;
  /** ALL when absent. KEYS_ONLY: the index copy is the table's and the index's keys. */
  readonly projection?: 'ALL' | 'KEYS_ONLY';
}
/** The table's own key attributes, which a KEYS_ONLY index copy carries with its own. */
const TABLE_KEYS = ['PK', 'SK'];

const utf8 = (s: string) => Buffer.byteLength(s, 'utf8');
/** A number: 1 byte per two significant digits, plus 1. */
const numberSize = (n: string) => {
  const digits = n
    .replace(/e.*$/i, '')
    .replace(/[^0-9]/g, '')
    .replace(/^0+/, '')
    .replace(/0+$/, '');
  return Math.ceil(Math.max(digits.length, 1) / 2) + 1;
};

/** The size DynamoDB bills for an attribute value (Developer Guide, "Item sizes and formats"). */
export function valueSize(v: AttributeValue): number {
  if (v.S !== undefined) return utf8(v.S);
  if (v.N !== undefined) return numberSize(v.N);
  if (v.B !== undefined) return v.B.byteLength;
  if (v.BOOL !== undefined || v.NULL !== undefined) return 1;
  if (v.SS) return v.SS.reduce((s, x) => s + utf8(x), 0);
  if (v.NS) return v.NS.reduce((s, x) => s + numberSize(x), 0);
  if (v.BS) return v.BS.reduce((s, x) => s + x.byteLength, 0);
  if (v.L) return 3 + v.L.reduce((s, x) => s + valueSize(x) + 1, 0);
  if (v.M) return 3 + Object.entries(v.M).reduce((s, [k, x]) => s + utf8(k) + valueSize(x) + 1, 0);
  return 0;
}

/** Attribute names plus values. */
export const itemSize = (item: Item) => Object.entries(item).reduce((s, [k, v]) => s + utf8(k) + valueSize(v), 0);

const kb = (bytes: number) => Math.max(1, Math.ceil(bytes / 1024));
const inIndex = (item: Item | undefined, ix: IndexKeys): item is Item =>
  item?.[ix.partitionKey] !== undefined && item[ix.sortKey] !== undefined;
/** What of an item an index holds: all of it, or (KEYS_ONLY) its table and index keys. */
const projected = (item: Item, ix: IndexKeys): Item =>
  ix.projection !== 'KEYS_ONLY'
    ? item
    : Object.fromEntries(Object.entries(item).filter(([k]) => [...TABLE_KEYS, ix.partitionKey, ix.sortKey].includes(k)));
const canonical = (item: Item) => JSON.stringify(Object.entries(item).sort(([a], [b]) => (a < b ? -1 : 1)));

/**
 * Write units one index spends when an item changes from `before` to `after` (either may be absent): a put into
 * the index, a delete from it, both when its key changes, one update when only projected attributes change.
 */
export function indexWriteUnits(itemBefore: Item | undefined, itemAfter: Item | undefined, ix: IndexKeys): number {
  const before = itemBefore && projected(itemBefore, ix);
  const after = itemAfter && projected(itemAfter, ix);
  const was = inIndex(before, ix);
  const is = inIndex(after, ix);
  if (was && is) {
    const sameKey =
      canonical({ p: before[ix.partitionKey]!, s: before[ix.sortKey]! }) ===
      canonical({ p: after[ix.partitionKey]!, s: after[ix.sortKey]! });
    if (!sameKey) return kb(itemSize(before)) + kb(itemSize(after));
    return canonical(before) === canonical(after) ? 0 : kb(Math.max(itemSize(before), itemSize(after)));
  }
  if (was) return kb(itemSize(before));
  if (is) return kb(itemSize(after));
  return 0;
}

export interface ItemChange {
  readonly action: 'Put' | 'Update' | 'Delete' | 'ConditionCheck';
  readonly before?: Item;
  readonly after?: Item;
}

/**
 * Write units of one TransactWriteItems: every item twice on the table (prepare and commit) per 1 KB of the
 * larger of its sizes before and after, a ConditionCheck like a write of the item it checks; index writes once
 * each (they propagate after the commit like any write; DynamoDB Local doubles them, see `indexDoubled`).
 */
export function transactWriteUnits(changes: readonly ItemChange[], indexes: readonly IndexKeys[]) {
  let table = 0;
  let index = 0;
  for (const c of changes) {
    table += 2 * kb(Math.max(c.before ? itemSize(c.before) : 0, c.after ? itemSize(c.after) : 0));
    if (c.action !== 'ConditionCheck') for (const ix of indexes) index += indexWriteUnits(c.before, c.after, ix);
  }
  return { table, index, indexDoubled: 2 * index };
}

/** Bytes of storage billed: every item plus 100 bytes of overhead, and its copy (as projected) in every index that holds it. */
export function storageBytes(items: readonly Item[], indexes: readonly IndexKeys[]): number {
  return items.reduce((sum, it) => {
    const copies = indexes.filter((ix) => inIndex(it, ix)).reduce((n, ix) => n + itemSize(projected(it, ix)) + 100, 0);
    return sum + itemSize(it) + 100 + copies;
  }, 0);
}

// ---- The bill ----

export interface FunctionUse {
  readonly invocations: number;
  /** Billed duration: each invocation's wall time rounded up to the millisecond. */
  readonly billedMs: number;
  /** The same if each invocation's CPU time ran at the memory's share of a vCPU (FULL_VCPU_MB), rounded likewise. */
  readonly cpuShareMs: number;
  readonly memoryMb: number;
}

/** What one payment of a mix used, on average. */
export interface Usage {
  readonly functions: Readonly<Record<string, FunctionUse>>;
  readonly apiRequests: number;
  readonly readUnits: number;
  readonly writeUnits: number;
  readonly sqsRequests: number;
  /** What the functions wrote (Powertools JSON and EMF lines), and how many lines. */
  readonly logBytes: number;
  readonly logEvents: number;
  readonly tracesRecorded: number;
  readonly tracesRetrieved: number;
  /** Lambda's own START/END/REPORT lines are written (system log level INFO); false at WARN. */
  readonly platformLogs?: boolean;
}

export interface Line {
  readonly component: string;
  readonly perPayment: string;
  /** US dollars per one million payments. */
  readonly dollarsPerMillion: number;
}

/** What the meter counted for one function over a phase of payments. */
export interface Counted {
  n: number;
  billedMs: number;
  cpuShareMs: number;
  readUnits: number;
  writeUnits: number;
  sqs: number;
  logBytes: number;
  logEvents: number;
}
export const emptyCount = (): Counted => ({
  n: 0,
  billedMs: 0,
  cpuShareMs: 0,
  readUnits: 0,
  writeUnits: 0,
  sqs: 0,
  logBytes: 0,
  logEvents: 0,
});

/** Per-payment usage from what each function counted over `runs` payments; X-Ray sampled per function. */
export function usageFrom(
  fns: ReadonlyArray<{ id: string; memoryMb: number; route: boolean; c: Counted }>,
  runs: number,
  tracing: 'active' | 'pass-through' = 'active',
  systemLogLevel: 'INFO' | 'WARN' = 'INFO',
): Usage {
  const sum = (k: keyof Counted, only = (_f: (typeof fns)[number]) => true) => fns.reduce((s, f) => s + (only(f) ? f.c[k] : 0), 0) / runs;
  const functions: Record<string, FunctionUse> = {};
  for (const { id, memoryMb, c } of fns.filter((f) => f.c.n > 0))
    functions[id] = { invocations: c.n / runs, billedMs: c.billedMs / runs, cpuShareMs: c.cpuShareMs / runs, memoryMb };
  // pass-through: nothing upstream samples (the HTTP API does not trace), so no function records a trace.
  const traces = tracing === 'active' ? fns.reduce((s, f) => s + (f.c.n / runs) * sampledShare(f.c.n / runs), 0) : 0;
  return {
    functions,
    apiRequests: sum('n', (f) => f.route),
    readUnits: sum('readUnits'),
    writeUnits: sum('writeUnits'),
    sqsRequests: sum('sqs'),
    logBytes: sum('logBytes'),
    logEvents: sum('logEvents'),
    tracesRecorded: traces,
    tracesRetrieved: traces,
    platformLogs: systemLogLevel === 'INFO',
  };
}

const gbSeconds = (ms: number, memoryMb: number) => (ms / 1000) * (memoryMb / 1024);

/** Lambda compute of all functions, $ per 1M payments, from the billed or the CPU-share duration. */
export const lambdaComputeDollars = (fns: Usage['functions'], key: 'billedMs' | 'cpuShareMs') =>
  Object.values(fns).reduce((sum, f) => sum + gbSeconds(f[key], f.memoryMb) * PRICES.lambdaArmGbSecond * 1e6, 0);

/** Log bytes ingested per payment: the functions' lines and Lambda's own, each event with its overhead. */
export function logBytesIngested(u: Usage): number {
  const invocations = Object.values(u.functions).reduce((n, f) => n + f.invocations, 0);
  const platform =
    u.platformLogs === false ? 0 : invocations * (PLATFORM_LOG_BYTES_PER_INVOCATION + PLATFORM_LOG_LINES.length * LOG_EVENT_OVERHEAD_BYTES);
  return u.logBytes + u.logEvents * LOG_EVENT_OVERHEAD_BYTES + platform;
}

export function costLines(u: Usage): Line[] {
  const m = 1e6;
  const lines: Line[] = [];
  let invocations = 0;
  for (const [name, f] of Object.entries(u.functions).sort(([a], [b]) => (a < b ? -1 : 1))) {
    invocations += f.invocations;
    lines.push({
      component: `Lambda ${name} (${f.memoryMb} MB)`,
      perPayment: `${f.invocations.toFixed(2)} inv, ${f.billedMs.toFixed(1)} ms`,
      dollarsPerMillion: gbSeconds(f.billedMs, f.memoryMb) * PRICES.lambdaArmGbSecond * m,
    });
  }
  const per = (component: string, perPayment: string, dollars: number) =>
    lines.push({ component, perPayment, dollarsPerMillion: dollars * m });
  per('Lambda requests', `${invocations.toFixed(2)} inv`, invocations * PRICES.lambdaRequest);
  per('API Gateway HTTP API', `${u.apiRequests.toFixed(2)} req`, u.apiRequests * PRICES.httpApiRequest);
  per('DynamoDB writes', `${u.writeUnits.toFixed(1)} WRU`, u.writeUnits * PRICES.dynamoWriteUnit);
  per('DynamoDB reads', `${u.readUnits.toFixed(1)} RRU`, u.readUnits * PRICES.dynamoReadUnit);
  per('SQS', `${u.sqsRequests.toFixed(2)} req`, u.sqsRequests * PRICES.sqsRequest);
  const logBytes = logBytesIngested(u);
  per('CloudWatch Logs ingestion', `${(logBytes / 1024).toFixed(2)} KB`, (logBytes / 1024 ** 3) * PRICES.logsIngestedGb);
  per('X-Ray traces recorded', `${u.tracesRecorded.toFixed(2)}`, u.tracesRecorded * PRICES.xrayTraceRecorded);
  per('X-Ray traces retrieved', `${u.tracesRetrieved.toFixed(2)}`, u.tracesRetrieved * PRICES.xrayTraceRetrieved);
  return lines;
}

/**
 * The share of a function's invocations X-Ray records under Lambda's fixed sampling (the first request each
 * second and 5% of the others), at PAYMENTS_PER_MONTH spread evenly, for `perPayment` invocations a payment.
 */
export function sampledShare(perPayment: number): number {
  const perSecond = (PAYMENTS_PER_MONTH / SECONDS_PER_MONTH) * perPayment;
  return perSecond <= 1 ? 1 : (1 + 0.05 * (perSecond - 1)) / perSecond;
}

/** The metric series (custom metrics) one EMF log line defines: namespace, dimension names and values, metric name. */
export function emfSeriesKeys(line: string): string[] {
  if (!line.startsWith('{"_aws"')) return [];
  type Emf = { _aws: { CloudWatchMetrics: Array<{ Namespace: string; Dimensions: string[][]; Metrics: Array<{ Name: string }> }> } };
  const emf = JSON.parse(line) as Emf & Record<string, unknown>;
  return emf._aws.CloudWatchMetrics.flatMap((d) =>
    d.Dimensions.flatMap((dims) => d.Metrics.map((m) => JSON.stringify([d.Namespace, dims.map((k) => [k, emf[k]]), m.Name]))),
  );
}

/** What `npm run cost` assumes, printed with its tables. */
export const ASSUMPTIONS = [
  'Lambda: warm invocations only (cold starts and their billed INIT not counted); duration = wall time on the local stack ' +
    '(DynamoDB Local, a JVM on the same 2 shared cores) rounded up to 1 ms per invocation; memory from the manifest.',
  'DynamoDB: units as DynamoDB Local reports them (checked: GSI puts, updates, key changes and deletes, 0.5 RRU eventually ' +
    'consistent reads, transactional reads 2x) except TransactWriteItems, which it under-reports (one or two items of a ' +
    'transaction counted): recomputed from item sizes read before and after, 2x per item on the table, index writes 1x. ' +
    'A failed conditional write counts 1 WRU; a Query page that finds nothing 0.5 RRU (DynamoDB Local says 0).',
  'SQS: every request of the service (per 64 KB chunk); each consumer invocation adds the event source mapping’s ' +
    'ReceiveMessage and DeleteMessageBatch (the local poller’s pattern; at these rates a receive brings one message). ' +
    'Idle long polling is fixed cost.',
  'Logs: bytes the handlers wrote at the live stage’s log level (Powertools JSON, EMF on), 26 bytes per log event, ' +
    'plus Lambda’s START/END/REPORT+XRAY lines per invocation when the stage’s system log level is INFO (none at WARN).',
  'X-Ray: priced at the live stage’s tracing setting (lib/stage-config.ts). Active: every invocation is a trace (SQS ' +
    'consumers start their own, linked to the producer’s); Lambda samples per function the first request each second and ' +
    '5% of the rest, at 1M payments a month spread evenly; each recorded trace retrieved once. Pass-through: nothing ' +
    'records (the HTTP API starts no trace). Free tiers ignored.',
  'Merchant POSTs that create send X-Idempotency-Key; the auth cache is warm (a miss adds 2 GetItem, 1 RRU).',
];

/** One mix as Markdown: its table, the total, the three largest components, then the notes. */
export function renderMix(name: string, flow: string, runs: number, lines: readonly Line[], notes: readonly string[]): string {
  const sum = total(lines);
  const largest = [...lines].sort((a, b) => b.dollarsPerMillion - a.dollarsPerMillion).slice(0, 3);
  const share = (l: Line) => `${l.component} $${l.dollarsPerMillion.toFixed(2)} (${((100 * l.dollarsPerMillion) / sum).toFixed(0)}%)`;
  return [
    `\n### ${name}: $${sum.toFixed(2)} per 1M payments (${runs} measured)\n\nFlow: ${flow}.\n`,
    '| component | per payment | $ per 1M payments |\n|---|---|---|',
    ...lines.map((l) => `| ${l.component} | ${l.perPayment} | ${l.dollarsPerMillion.toFixed(3)} |`),
    `| **total** | | **${sum.toFixed(2)}** |\n`,
    `- Largest: ${largest.map(share).join(', ')}.`,
    ...notes.map((n) => `- ${n}.`),
  ].join('\n');
}

export const total = (lines: readonly Line[]) => lines.reduce((sum, l) => sum + l.dollarsPerMillion, 0);

/**
 * The bill's guard (issue 40), $ per 1M payments per mix (by name), and per stage a month: `npm run cost` exits 1
 * when a mix or the fixed cost is over it, and a new feature must not raise an existing flow's cost. Issue 31 had set
 * $31, $13.50 and $20 as goals to reach; issue 40 kept the payout counters item and the events and fixed these.
 */
export const GOALS: Readonly<Record<string, number>> = {
  'Hosted checkout, PIX': 35,
  'Direct card': 15.5,
  'Payout, PIX': 27,
};
export const FIXED_GOAL_PER_MONTH = 20;

/** One AWS request (or unit) a flow cannot do without, and why. */
export interface FloorItem {
  readonly what: string;
  readonly why: string;
  readonly apiRequests?: number;
  readonly invocations?: number;
  readonly writeUnits?: number;
  readonly readUnits?: number;
  readonly sqsRequests?: number;
}

/**
 * The floor of each mix: the AWS requests its flow cannot avoid whatever the design, priced like the measured
 * usage. Lambda compute and log bytes are left at what was measured (the work is the work), so the floor is
 * the request-priced part of the bill at its minimum.
 */
export const FLOORS: Readonly<Record<string, readonly FloorItem[]>> = {
  'Direct card': [
    { what: 'create: 1 HTTP API request, 1 invocation', why: 'the merchant calls us once', apiRequests: 1, invocations: 1 },
    {
      what: 'merchant GET status: 1 request, 1 invocation, 1 RRU',
      why: 'the flow reads it back once',
      apiRequests: 1,
      invocations: 1,
      readUnits: 1,
    },
    {
      what: 'idempotency record: 1 WRU',
      why: 'SPEC: a keyed create must answer its replay; one put carrying the response is the least',
      writeUnits: 1,
    },
    {
      what: 'payment, its event and its ledger entry in one transaction: 3 items x 2 WRU',
      why: 'the state change, its event and its money movement must commit together (DESIGN: one transaction)',
      writeUnits: 6,
    },
    {
      what: 'webhook: 1 SQS send + receive + delete, 1 invocation',
      why: 'every state change is delivered by a queue worker',
      sqsRequests: 3,
      invocations: 1,
    },
    { what: 'delivery record: 1 WRU', why: 'the event list shows each delivery attempt (SPEC)', writeUnits: 1 },
  ],
  'Payout, PIX': [
    { what: 'create: 1 request, 1 invocation', why: 'the merchant calls us once', apiRequests: 1, invocations: 1 },
    {
      what: 'merchant GET payout: 1 request, 1 invocation, 1 RRU',
      why: 'the flow reads it back once',
      apiRequests: 1,
      invocations: 1,
      readUnits: 1,
    },
    { what: 'idempotency record: 1 WRU', why: 'keyed create', writeUnits: 1 },
    {
      what: 'payout, balance debit, ledger entry, event: 4 items x 2 WRU',
      why: 'the debit must be conditional on the balance and commit with the payout',
      writeUnits: 8,
    },
    {
      what: 'settlement: 1 SQS step (send, receive, delete), 1 invocation, payout + 2 events in one transaction (3 x 2 WRU)',
      why: 'processing and completed are two state changes with a webhook each',
      sqsRequests: 3,
      invocations: 1,
      writeUnits: 6,
    },
    {
      what: 'webhooks: 2 x (SQS send + receive + delete), 2 invocations, 2 delivery records',
      why: 'two events',
      sqsRequests: 6,
      invocations: 2,
      writeUnits: 2,
    },
  ],
  'Hosted checkout, PIX': [
    {
      what: 'session create: 1 request, 1 invocation, 1 item (1 WRU)',
      why: 'the merchant creates it',
      apiRequests: 1,
      invocations: 1,
      writeUnits: 1,
    },
    {
      what: 'hosted page: 1 request, 1 invocation, session read (1 RRU)',
      why: 'the shopper opens it',
      apiRequests: 1,
      invocations: 1,
      readUnits: 1,
    },
    {
      what: 'process PIX: 1 request, 1 invocation, payment + session link in one transaction (2 x 2 WRU)',
      why: 'the shopper picks PIX',
      apiRequests: 1,
      invocations: 1,
      writeUnits: 4,
      readUnits: 1,
    },
    { what: 'QR image: 1 request, 1 invocation, 1 RRU', why: 'the page shows the code', apiRequests: 1, invocations: 1, readUnits: 1 },
    {
      what: 'paid: payment + session + event + ledger entry in one transaction (4 x 2 WRU), 1 invocation',
      why: 'the provider reports the payment once',
      apiRequests: 1,
      invocations: 1,
      writeUnits: 8,
      readUnits: 1,
    },
    {
      what: 'status poll that sees it paid: 1 request, 1 invocation, 1 RRU',
      why: 'the page learns it',
      apiRequests: 1,
      invocations: 1,
      readUnits: 1,
    },
    {
      what: 'merchant GET: 1 request, 1 invocation, 1 RRU',
      why: 'the flow reads it back once',
      apiRequests: 1,
      invocations: 1,
      readUnits: 1,
    },
    {
      what: 'webhook: SQS send + receive + delete, 1 invocation, 1 delivery record',
      why: 'payment.success',
      sqsRequests: 3,
      invocations: 1,
      writeUnits: 1,
    },
  ],
};

/** A floor's requests priced with the measured Lambda compute and log bytes of the mix. */
export function floorDollars(items: readonly FloorItem[], measured: Usage): number {
  const n = (k: keyof FloorItem) => items.reduce((s, i) => s + Number(i[k] ?? 0), 0);
  const compute = lambdaComputeDollars(measured.functions, 'billedMs') / 1e6;
  const invocations = n('invocations');
  const logBytes =
    measured.platformLogs === false
      ? 0
      : invocations * (PLATFORM_LOG_BYTES_PER_INVOCATION + PLATFORM_LOG_LINES.length * LOG_EVENT_OVERHEAD_BYTES);
  return (
    1e6 *
    (compute +
      invocations * PRICES.lambdaRequest +
      n('apiRequests') * PRICES.httpApiRequest +
      n('writeUnits') * PRICES.dynamoWriteUnit +
      n('readUnits') * PRICES.dynamoReadUnit +
      n('sqsRequests') * PRICES.sqsRequest +
      (logBytes / 1024 ** 3) * PRICES.logsIngestedGb)
  );
}
