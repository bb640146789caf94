/**
 * `npm run bench:endpoints`: median and p95 latency of each endpoint on the real
 * local stack (DynamoDB Local + fauxqs, in-memory), one request at a time over
 * HTTP, and the DynamoDB calls each request makes (counted in the SDK's
 * middleware stack of the service's own client).
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { countCalls, measureCase, printLatencyReport, runBench } from './support';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
process.env.POWERTOOLS_LOG_LEVEL = 'ERROR';
process.env.POWERTOOLS_METRICS_DISABLED = 'true';

const N = Number(process.env.BENCH_ITERATIONS ?? 60);

async function main() {
  const { startLocalStack } = await import('../../bin/local/stack');
  const stack = await startLocalStack({ port: 0, memory: true, workers: false, stateDir: mkdtempSync(join(tmpdir(), 'bench-')) });
  const { dynamoClient } = await import('../../shared/adapters/aws-clients');
  const calls = countCalls(dynamoClient());
  const base = stack.sandbox.base_url;
  // Each case runs as its own merchant, so setup requests never meet the per-merchant rate limits.
  const { merchantAdmin } = await import('../../shared/application/merchants');
  const { repositories } = await import('../../shared/wiring');
  const { randomIds, randomSecrets, systemClock } = await import('../../shared/adapters/crypto');
  const admin = merchantAdmin({ ...repositories, ids: randomIds, secrets: randomSecrets, clock: systemClock });
  let key = stack.sandbox.api_key;
  let mch = stack.sandbox.merchant_id;
  const customer = { name: 'Ana Silva', email: 'ana@example.com', document: '52998224725' };
  const card = (number: string) => ({ number, holder_name: 'ANA', expiry_month: '12', expiry_year: '2031', cvv: '123' });
  const post = (path: string, body: unknown, auth = true) =>
    fetch(`${base}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(auth ? { 'x-api-key': key } : {}) },
      body: JSON.stringify(body),
    });
  const get = (path: string) => fetch(`${base}${path}`, { headers: { 'x-api-key': key } });
  const session = async () =>
    (
      (await (
        await post('/api/v1/checkout', {
          amount: 10,
          currency: 'BRL',
          country: 'BRA',
          success_url: 'https://s.example/ok',
          cancel_url: 'https://s.example/no',
        })
      ).json()) as { session_id: string }
    ).session_id;
  const pix = async () =>
    (
      (await (
        await post('/cashier/cashier/payment', { payment_method: 'pix', amount: 10, currency: 'BRL', country: 'BRA', customer })
      ).json()) as { payment_id: string }
    ).payment_id;

  type Case = [string, () => Promise<() => Promise<Response>>];
  const cases: Case[] = [
    ['GET /health', async () => () => fetch(`${base}/health`)],
    ['GET /api/v1/methods?country=BRA', async () => () => get('/api/v1/methods?country=BRA')],
    [
      'POST /api/v1/checkout',
      async () => () =>
        post('/api/v1/checkout', {
          amount: 10,
          currency: 'BRL',
          country: 'BRA',
          success_url: 'https://s.example/ok',
          cancel_url: 'https://s.example/no',
        }),
    ],
    [
      'GET /api/v1/checkout/{id}',
      async () => {
        const s = await session();
        return () => get(`/api/v1/checkout/${s}`);
      },
    ],
    [
      'POST /api/v1/checkout/{id}/cancel',
      async () => {
        const s = await session();
        return () => post(`/api/v1/checkout/${s}/cancel`, {});
      },
    ],
    [
      'POST /api/v1/checkout/process (pix)',
      async () => {
        const s = await session();
        return () => post('/api/v1/checkout/process', { session_id: s, payment_method: 'pix', customer }, false);
      },
    ],
    [
      'POST /api/v1/checkout/process (card, approved)',
      async () => {
        const s = await session();
        return () =>
          post('/api/v1/checkout/process', { session_id: s, payment_method: 'card', customer, card: card('4242424242424242') }, false);
      },
    ],
    [
      'POST /cashier/cashier/payment (pix, with QR data URI)',
      async () => () => post('/cashier/cashier/payment', { payment_method: 'pix', amount: 10, currency: 'BRL', country: 'BRA', customer }),
    ],
    [
      'POST /cashier/cashier/payment (card, approved)',
      async () => () =>
        post('/cashier/cashier/payment', {
          payment_method: 'card',
          amount: 10,
          currency: 'BRL',
          country: 'BRA',
          customer,
          card: card('4242424242424242'),
        }),
    ],
    [
      'GET /cashier/cashier/status/{m}/{p}',
      async () => {
        const p = await pix();
        return () => get(`/cashier/cashier/status/${mch}/${p}`);
      },
    ],
    [
      'POST /api/v1/sandbox/payments/{p}/simulate',
      async () => {
        const p = await pix();
        return () => post(`/api/v1/sandbox/payments/${p}/simulate`, { outcome: 'success' });
      },
    ],
    [
      'GET /checkout/{id} (hosted page)',
      async () => {
        const s = await session();
        return () => fetch(`${base}/checkout/${s}`);
      },
    ],
  ];

  const rows: string[] = [];
  for (const [name, setup] of cases) {
    const created = await admin.createMerchant({ name: `Bench ${name}` });
    key = created.apiKey.secret;
    mch = created.merchant.merchant_id;
    rows.push(
      await measureCase(name, {
        iterations: N,
        warmup: 5,
        calls,
        prepare: () => setup(), // a fresh object per request where the endpoint changes it
        ok: (status) => status < 400 || (name.includes('cancel') && status === 409),
      }),
    );
  }
  await stack.stop();
  printLatencyReport(
    `Endpoint latency on the local stack: ${N} sequential requests per endpoint after 5 warm-up`,
    '| endpoint | median ms | p95 ms | DynamoDB calls per request (warm auth cache) |',
    rows,
  );
}

runBench(main);
