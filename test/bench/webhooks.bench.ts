/**
 * `npm run bench:webhooks`: on the real local stack (in memory), with a receiver on loopback,
 * 1. latency from a state change (the commit of a direct card payment) to the receiver seeing its webhook;
 * 2. deliveries per second one sender process sustains, draining a backlog of events at once.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
process.env.POWERTOOLS_LOG_LEVEL = 'ERROR';
process.env.POWERTOOLS_METRICS_DISABLED = 'true';

const LATENCY_N = Number(process.env.BENCH_LATENCY_N ?? 50);
const BACKLOG = Number(process.env.BENCH_BACKLOG ?? 500);

async function main() {
  const { startReceiver } = await import('../support/receiver');
  const { startLocalStack } = await import('../../bin/local/stack');
  const receiver = await startReceiver();
  const stack = await startLocalStack({ port: 0, memory: true, stateDir: mkdtempSync(join(tmpdir(), 'bench-wh-')) });
  const { merchantAdmin } = await import('../../shared/application/merchants');
  const { repositories } = await import('../../shared/wiring');
  const { randomIds, randomSecrets, systemClock } = await import('../../shared/adapters/crypto');
  const admin = merchantAdmin({ ...repositories, ids: randomIds, secrets: randomSecrets, clock: systemClock });
  const customer = { name: 'Ana Silva', email: 'ana@example.com', document: '52998224725' };
  const card = { number: '4242424242424242', holder_name: 'ANA', expiry_month: '12', expiry_year: '2031', cvv: '123' };

  // 1. Latency, one payment at a time.
  const m = await admin.createMerchant({ name: 'Bench webhooks', notification_url: receiver.url });
  const latencies: number[] = [];
  for (let i = 0; i < LATENCY_N + 5; i++) {
    const res = await fetch(`${stack.sandbox.base_url}/cashier/cashier/payment`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': m.apiKey.secret },
      body: JSON.stringify({
        payment_method: 'card',
        amount: 10,
        currency: 'BRL',
        country: 'BRA',
        customer,
        card: { ...card, installments: 1 },
      }),
    });
    const committedAt = Date.now(); // the response comes after the commit
    const { payment_id } = (await res.json()) as { payment_id: string };
    const [hit] = await receiver.waitFor(1, 30_000, (r) => r.body?.payment_id === payment_id);
    if (i >= 5) latencies.push(hit!.at - committedAt);
  }
  latencies.sort((a, b) => a - b);
  const q = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))]!;

  // 2. Throughput: a backlog of payments committed back to back; the stream dispatches each as it commits.
  const { createDirectPayment } = await import('../../shared/application/payins');
  const { paymentDeps } = await import('../../shared/wiring');
  const { paymentRepository } = await import('../../shared/adapters/dynamodb/payment.repository');
  const { documentClient } = await import('../../shared/adapters/aws-clients');
  const { config } = await import('../../shared/config');
  const quiet = { ...paymentDeps(), store: paymentRepository(documentClient(), () => config.tableName) };
  const m2 = await admin.createMerchant({ name: 'Bench backlog', notification_url: receiver.url });
  const principal = { merchant: m2.merchant, key: m2.apiKey.key, mode: 'test' as const, livemode: false };
  const backlog = new Set<string>();
  const t0 = performance.now();
  for (let i = 0; i < BACKLOG; i++) {
    const p = await createDirectPayment(
      quiet,
      principal,
      { payment_method: 'card', amount: 10, currency: 'BRL', country: 'BRA', customer, card: { ...card, installments: 1 }, metadata: {} },
      randomIds.newId('pi_'),
    );
    backlog.add(p.payment_id);
  }
  await receiver.waitFor(BACKLOG, 300_000, (r) => backlog.has(r.body?.payment_id));
  const seconds = (performance.now() - t0) / 1000;

  await stack.stop();
  await receiver.stop();
  console.log(`Webhook benchmark, Node ${process.version}, ${new Date().toISOString()}`);
  console.log('| measure | value |');
  console.log('|---|---|');
  console.log(`| commit -> receiver, median (${LATENCY_N} payments, one at a time) | ${q(0.5)} ms |`);
  console.log(`| commit -> receiver, p99 | ${q(0.99)} ms |`);
  console.log(
    `| ${BACKLOG} payments committed back to back, each dispatched by the stream and delivered | ` +
      `${(BACKLOG / seconds).toFixed(0)} deliveries/s (${seconds.toFixed(1)} s) |`,
  );
  process.exit(0);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
