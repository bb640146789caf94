/**
 * `npm run bench:refunds`: on the real local stack (in memory), the latency of refund create (reservation on
 * the payment + balance debit + ledger entry + event, one transaction) and of the refund reads, with the
 * DynamoDB calls each request makes. Payments are created through the direct API first (untimed).
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { countCalls, measureCase, printLatencyReport, runBench } from './support';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
process.env.POWERTOOLS_LOG_LEVEL = 'ERROR';
process.env.POWERTOOLS_METRICS_DISABLED = 'true';
process.env.REFUND_SETTLEMENT_DELAY_SECONDS = '900'; // keep the refunds pending while we measure

const N = Number(process.env.BENCH_ITERATIONS ?? 20);

async function main() {
  const { startLocalStack } = await import('../../bin/local/stack');
  const stack = await startLocalStack({ port: 0, memory: true, workers: false, stateDir: mkdtempSync(join(tmpdir(), 'bench-re-')) });
  const { dynamoClient } = await import('../../shared/adapters/aws-clients');
  const { adminService } = await import('../../shared/wiring');
  const admin = adminService();
  const calls = countCalls(dynamoClient());
  const base = stack.sandbox.base_url;
  const customer = { name: 'Ana Silva', email: 'ana@example.com', document: '52998224725' };
  const card = { number: '4242424242424242', holder_name: 'ANA', expiry_month: '12', expiry_year: '2031', cvv: '123', installments: 1 };

  const m = await admin.createMerchant({ name: 'Bench refunds' });
  const key = m.apiKey.secret;
  const post = (path: string, body: unknown) =>
    fetch(`${base}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': key },
      body: JSON.stringify(body),
    });
  const payments: string[] = [];
  for (let i = 0; i < N + 3; i++) {
    const res = await post('/cashier/cashier/payment', {
      payment_method: 'card',
      amount: 100,
      currency: 'BRL',
      country: 'BRA',
      customer,
      card,
    });
    payments.push(((await res.json()) as { payment_id: string }).payment_id);
  }
  const refunds: string[] = [];
  const cases: Array<[string, (i: number) => Promise<() => Promise<Response>>]> = [
    [
      'POST /api/v1/payments/{id}/refunds (partial, card)',
      async (i) => async () => {
        const res = await post(`/api/v1/payments/${payments[i]}/refunds`, { amount: 10, reason: 'requested_by_customer' });
        const clone = res.clone();
        refunds.push(((await clone.json()) as { refund_id: string }).refund_id);
        return res;
      },
    ],
    ['GET /api/v1/refunds/{id}', async (i) => () => fetch(`${base}/api/v1/refunds/${refunds[i]}`, { headers: { 'x-api-key': key } })],
    [
      'GET /api/v1/payments/{id}/refunds',
      async (i) => () => fetch(`${base}/api/v1/payments/${payments[i]}/refunds`, { headers: { 'x-api-key': key } }),
    ],
  ];
  const rows: string[] = [];
  for (const [name, prepare] of cases) {
    rows.push(await measureCase(name, { iterations: N, warmup: 3, calls, prepare, ok: (status) => status === 200 }));
  }
  await stack.stop();
  printLatencyReport(
    `Refund benchmark on the local stack: ${N} sequential requests per case after 3 warm-up`,
    '| request | median ms | p95 ms | DynamoDB calls per request |',
    rows,
  );
}

runBench(main);
