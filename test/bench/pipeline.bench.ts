/**
 * `npm run bench`: what the request pipeline costs per request.
 *
 * The same handler is timed bare (just its business logic and JSON shaping) and
 * through the full middy chain (tracer, logger, metrics, request id, error
 * mapping, authentication, rate limit, validation, idempotency), with DynamoDB
 * answered in-process by a stub in the SDK's own middleware stack, so the
 * difference is the pipeline's CPU cost, not network time. It also counts the
 * DynamoDB calls each kind of request makes.
 */
import { performance } from 'node:perf_hooks';
import type { Context } from 'aws-lambda';

Object.assign(process.env, {
  STAGE: 'sandbox',
  TABLE_NAME: 'bench',
  DYNAMODB_ENDPOINT: 'http://127.0.0.1:1', // never reached: the stub answers first
  AWS_REGION: 'us-east-1',
  AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
  POWERTOOLS_LOG_LEVEL: 'INFO',
  POWERTOOLS_METRICS_DISABLED: 'false',
  POWERTOOLS_TRACE_ENABLED: 'false',
  AUTH_CACHE_TTL_MS: '10000',
});

const ITERATIONS = Number(process.env.BENCH_ITERATIONS ?? 5000);
const WARMUP = 500;
const API_KEY = 'sk_test_benchbenchbenchbenchbenchbenchbenchbenchben';

const merchant = {
  merchant_id: 'mch_benchbenchbenchbenchbe',
  name: 'Bench',
  status: 'active',
  countries: ['BRA', 'MEX'],
  methods: ['svc-mt-1', 'svc-mt-2', 'svc-mt-4', 'svc-mt-8', 'svc-mt-23'],
  notification_url: null,
  created_at: '2026-01-01T00:00:00.000Z',
  updated_at: '2026-01-01T00:00:00.000Z',
};
const apiKey = {
  key_id: 'key_bench',
  merchant_id: merchant.merchant_id,
  mode: 'test',
  scopes: ['*'],
  status: 'active',
  hint: 'x',
  created_at: '',
  revoked_at: null,
};

const calls = new Map<string, number>();
let counting = false;
let windowCount = 0;

async function main() {
  const { dynamoClient } = await import('../../shared/adapters/aws-clients');
  // The stub: answers every DynamoDB command before it is serialised.
  dynamoClient().middlewareStack.add(
    () => async (args) => {
      // Document-client commands carry plain values here; Powertools' raw-client commands carry AttributeValues.
      const rawPk = (args.input as { Key?: { PK?: string | { S?: string } } }).Key?.PK;
      const pk = typeof rawPk === 'string' ? rawPk : (rawPk?.S ?? '');
      const command = commandName(args.input as Record<string, unknown>);
      if (counting) calls.set(command, (calls.get(command) ?? 0) + 1);
      let output: Record<string, unknown> = { $metadata: {} };
      if (command === 'GetItem' && pk.startsWith('APIKEY#')) output = { ...output, Item: apiKey };
      else if (command === 'GetItem' && pk.startsWith('MERCHANT#')) output = { ...output, Item: merchant };
      else if (command === 'UpdateItem' && pk.startsWith('RATELIMIT#'))
        output = { ...output, Attributes: { count: (windowCount = (windowCount % 50) + 1) } };
      return { output, response: {} } as never;
    },
    { step: 'initialize', name: 'benchStub', priority: 'high' },
  );

  const { handler: listMethods } = await import('../../functions/discovery/list-methods.handler');
  const { listPaymentMethods } = await import('../../shared/application/merchants');
  const { listMethodsQuery } = await import('../../shared/domain/catalog/discovery.schemas');
  const { httpHandler } = await import('../../shared/http/handler');
  const { idempotent } = await import('../../shared/http/idempotent');
  const { jsonResult } = await import('../../shared/http/responses');
  const { z } = await import('zod');

  const createRoute = {
    id: 'benchCreate',
    method: 'POST' as const,
    path: '/bench',
    handler: 'test/bench/pipeline.bench.ts',
    auth: 'api_key' as const,
    rateLimitPerMinute: 100,
    family: 'checkout' as const,
    idempotent: true,
    access: { table: 'readwrite' as const },
    summary: 'bench',
  };
  const bodySchema = z.object({ amount: z.number().positive(), currency: z.string().length(3), description: z.string().max(200) });
  const create = httpHandler({
    route: createRoute,
    idempotency: idempotent,
    body: bodySchema,
    handler: async ({ body, newId }) => ({ body: { success: true, id: newId('bch_'), amount: body.amount } }),
  });

  const context = {
    functionName: 'bench',
    awsRequestId: 'req',
    getRemainingTimeInMillis: () => 10_000,
  } as unknown as Context;
  let seq = 0;
  const event = (method: string, path: string, { headers, ...extra }: Record<string, unknown> = {}) => ({
    version: '2.0',
    routeKey: `${method} ${path}`,
    rawPath: path,
    rawQueryString: 'country=BRA',
    headers: { 'x-api-key': API_KEY, 'content-type': 'application/json', ...(headers as object) },
    queryStringParameters: { country: 'BRA' },
    requestContext: { requestId: `r${seq++}`, http: { method, path }, routeKey: `${method} ${path}` },
    isBase64Encoded: false,
    ...extra,
  });
  const body = JSON.stringify({ amount: 10.5, currency: 'BRL', description: 'bench order' });

  const cases: Array<[string, () => Promise<unknown>]> = [
    [
      'bare: GET /api/v1/methods logic + JSON',
      async () => jsonResult(200, listPaymentMethods(merchant as never, listMethodsQuery.parse({ country: 'BRA' }))),
    ],
    ['pipeline: GET /api/v1/methods', () => listMethods(event('GET', '/api/v1/methods') as never, context as never)],
    [
      'bare: POST create logic + JSON',
      async () => jsonResult(200, { success: true, id: 'bch_x', amount: bodySchema.parse(JSON.parse(body)).amount }),
    ],
    ['pipeline: POST create, no idempotency key', () => create(event('POST', '/bench', { body }) as never, context as never)],
    [
      'pipeline: POST create with X-Idempotency-Key',
      () => create(event('POST', '/bench', { body, headers: { 'x-idempotency-key': `k${seq}` } }) as never, context as never),
    ],
  ];

  // EMF metrics are written to stdout once per request: keep them out of the report.
  const write = process.stdout.write.bind(process.stdout);
  const rows: string[] = [];
  for (const [name, run] of cases) {
    process.stdout.write = (() => true) as typeof process.stdout.write;
    for (let i = 0; i < WARMUP; i++) await run();
    calls.clear();
    counting = true;
    const samples: number[] = [];
    for (let i = 0; i < ITERATIONS; i++) {
      const t = performance.now();
      const res = (await run()) as { statusCode?: number };
      samples.push((performance.now() - t) * 1000);
      if (res.statusCode !== 200) throw new Error(`${name}: status ${res.statusCode}`);
    }
    counting = false;
    process.stdout.write = write;
    samples.sort((a, b) => a - b);
    const q = (p: number) => samples[Math.min(samples.length - 1, Math.floor(p * samples.length))]!;
    const perRequest = [...calls.entries()].map(([c, n]) => `${c} ${(n / ITERATIONS).toFixed(2)}`).join(', ') || 'none';
    rows.push(`| ${name} | ${q(0.5).toFixed(1)} | ${q(0.99).toFixed(1)} | ${perRequest} |`);
  }
  console.log(
    `Pipeline benchmark: ${ITERATIONS} requests per case after ${WARMUP} warm-up, Node ${process.version}, ${new Date().toISOString()}`,
  );
  console.log('| case | median µs | p99 µs | DynamoDB calls per request |');
  console.log('|---|---|---|---|');
  for (const r of rows) console.log(r);
}

function commandName(input: Record<string, unknown>): string {
  if ('TransactItems' in input) return 'TransactWriteItems';
  if ('UpdateExpression' in input) return 'UpdateItem';
  if ('Item' in input) return 'PutItem';
  if ('KeyConditionExpression' in input) return 'Query';
  if ('Key' in input && 'ConditionExpression' in input) return 'DeleteItem';
  if ('Key' in input) return 'GetItem';
  return 'Other';
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
