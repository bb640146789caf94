/**
 * `npm run bench:hot-merchant` (issue 22): one merchant at once from many shoppers, under DynamoDB's conflict
 * rules (the conflict proxy in front of DynamoDB Local). Per burst size (BENCH_BURSTS, default 64,256): that
 * many requests at once, card payments with refunds of earlier payments and PIX payouts mixed in, each with its
 * own X-Idempotency-Key; a 503 BUSY_RETRY_SAME_KEY is sent again with that key after its Retry-After, as the SDK
 * does (issue 34). Per burst: requests, 2xx, 5xx other than that 503 (goal 0), the 503s answered (and retried),
 * conflicts the proxy raised (each retried by the service), p50/p99 from the first send to the final answer, and
 * at the end whether every balance equals the sum of its ledger entries.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { customer, pixBeneficiary } from '../support/sample-data';
import { quantile } from './support';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
process.env.POWERTOOLS_LOG_LEVEL = 'ERROR';
process.env.POWERTOOLS_METRICS_DISABLED = 'true';

const BURSTS = (process.env.BENCH_BURSTS ?? '64,256').split(',').map(Number);
const LATENCY_MS = Number(process.env.BENCH_CONFLICT_LATENCY_MS ?? 2);

async function main() {
  const { startLocalStack } = await import('../../bin/local/stack');
  const { adminService, tableName } = await import('../../shared/wiring');
  const { documentClient } = await import('../../shared/adapters/aws-clients');
  const { ROUTES } = await import('../../shared/manifest/routes');
  const stack = await startLocalStack({
    port: 0,
    memory: true,
    stateDir: mkdtempSync(join(tmpdir(), 'hot-merchant-')),
    emulateConflicts: { latencyMs: LATENCY_MS },
  });
  const s = stack.sandbox;
  await adminService().setRateLimits(
    s.merchant_id,
    Object.fromEntries(ROUTES.filter((r) => r.rateLimitPerMinute).map((r) => [r.id, 10_000_000])),
  );
  const post = async (path: string, body: unknown) => {
    const t = performance.now();
    const key = randomUUID();
    let busy = 0;
    for (;;) {
      const r = await fetch(`${s.base_url}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': s.api_key, 'x-idempotency-key': key },
        body: JSON.stringify(body),
      });
      const json = (await r.json().catch(() => ({}))) as Record<string, unknown>;
      const code = (json.error as { code?: string } | undefined)?.code ?? json.error_code;
      if (r.status === 503 && /^busy_retry_same_key$/i.test(String(code)) && busy < 5) {
        busy++;
        await new Promise((w) => setTimeout(w, Number(r.headers.get('retry-after') ?? 1) * 1000));
        continue;
      }
      return { status: r.status, ms: performance.now() - t, body: json, busy };
    }
  };
  const card = { number: '4242424242424242', holder_name: 'ANA SILVA', cvv: '123', expiry_month: '12', expiry_year: '2039' };
  const pay = () =>
    post('/cashier/cashier/payment', { payment_method: 'card', amount: 20, currency: 'BRL', country: 'BRA', customer, card });
  const paid: string[] = [];
  for (const r of await Promise.all(Array.from({ length: 32 }, pay))) if (r.status === 200) paid.push(String(r.body.payment_id));

  const rows: string[] = [];
  const stats = stack.conflictStats;
  const payoutBody = { method_code: 'svc-mt-5', amount: 1, currency: 'BRL', beneficiary: pixBeneficiary };
  // Each burst size twice: the payouts one request each, then the same payouts in POST /api/v1/payouts/batch requests.
  for (const [n, batched] of BURSTS.flatMap((b) => [[b, false] as const, [b, true] as const])) {
    const before = (stats?.transactionConflicts ?? 0) + (stats?.writeConflicts ?? 0);
    const t0 = performance.now();
    const payouts = Array.from({ length: n }, (_, i) => i % 20).filter((k) => k >= 3 && k < 6).length;
    const batches = batched ? Array.from({ length: Math.ceil(payouts / 100) }, (_, b) => Math.min(100, payouts - b * 100)) : [];
    const results = await Promise.all([
      ...Array.from({ length: n }, (_, i) => {
        const kind = i % 20;
        if (kind < 3 && paid.length) return post(`/api/v1/payments/${paid.pop()}/refunds`, { amount: 1 });
        if (kind < 6) return batched ? null : post('/api/v1/payout', payoutBody);
        return pay();
      }).filter((r) => r !== null),
      ...batches.map((size) => post('/api/v1/payouts/batch', { payouts: Array.from({ length: size }, () => payoutBody) })),
    ]);
    const refused = batched ? results.reduce((sum, r) => sum + (Array.isArray(r.body.results) ? Number(r.body.rejected ?? 0) : 0), 0) : 0;
    if (refused > 0) console.error(`batched burst ${n}: ${refused} payouts refused inside a batch`);
    const seconds = (performance.now() - t0) / 1000;
    const ms = results.map((r) => r.ms).sort((a, b) => a - b);
    const ok = results.filter((r) => r.status >= 200 && r.status < 300).length;
    const fivexx = results.filter((r) => r.status >= 500).length;
    const busy = results.reduce((sum, r) => sum + r.busy, 0);
    for (const r of results) if (r.status === 200 && r.body.status === 'success') paid.push(String(r.body.payment_id));
    const conflicts = (stats?.transactionConflicts ?? 0) + (stats?.writeConflicts ?? 0) - before;
    const label = batched ? `${n} (${payouts} payouts in ${batches.length} batch)` : String(n);
    const cells = [label, results.length, ok, fivexx, busy, conflicts, quantile(ms, 0.5), quantile(ms, 0.99), (n / seconds).toFixed(0)];
    rows.push(`| ${cells.join(' | ')} |`);
  }
  // Ledger = balance, read directly (a bench may Scan), once the stream fold has left no credit pending.
  const scan = async () => {
    const out: Record<string, unknown>[] = [];
    let ExclusiveStartKey: Record<string, unknown> | undefined;
    do {
      const r = await documentClient().send(new ScanCommand({ TableName: tableName(), ConsistentRead: true, ExclusiveStartKey }));
      out.push(...(r.Items ?? []));
      ExclusiveStartKey = r.LastEvaluatedKey;
    } while (ExclusiveStartKey);
    return out;
  };
  const foldStart = performance.now();
  let items = await scan();
  const pendingOf = (all: Record<string, unknown>[]) =>
    all.filter((i) => String(i.PK).startsWith('FOLD#') && i.merchant_id === s.merchant_id);
  while (pendingOf(items).length > 0 && performance.now() - foldStart < 90_000) {
    await new Promise((r) => setTimeout(r, 100));
    items = await scan();
  }
  const foldSeconds = (performance.now() - foldStart) / 1000;
  const unfolded = pendingOf(items).length;
  const ledgerSum = new Map<string, number>();
  for (const l of items.filter((i) => String(i.PK).startsWith(`LEDGER#${s.merchant_id}#`)))
    ledgerSum.set(`${l.mode}#${l.currency}`, (ledgerSum.get(`${l.mode}#${l.currency}`) ?? 0) + Number(l.amount_minor));
  const mismatched = items
    .filter((i) => i.PK === `MERCHANT#${s.merchant_id}` && String(i.SK).startsWith('BALANCE#'))
    .filter((b) => Number(b.available_minor) !== (ledgerSum.get(`${b.mode}#${b.currency}`) ?? 0));
  await stack.stop();
  console.log(`\nOne merchant under DynamoDB's conflict rules (conflict proxy, ${LATENCY_MS} ms held per write)\n`);
  console.log(
    '| burst | requests | 2xx | 5xx (final) | 503 busy (retried with the key) | conflicts met (retried) | p50 ms | p99 ms | req/s |',
  );
  console.log('|---|---|---|---|---|---|---|---|---|');
  for (const r of rows) console.log(r);
  console.log(`\ncredits left unfolded: ${unfolded} (the stream fold caught up ${foldSeconds.toFixed(1)} s after the last burst answered)`);
  console.log(`ledger = balance: ${mismatched.length === 0 ? 'yes, for every balance' : `NO for ${mismatched.length} balances`}`);
}

main().then(
  () => process.exit(0),
  (e: unknown) => {
    console.error(e);
    process.exit(1);
  },
);
