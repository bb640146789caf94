/**
 * `npm run bench:payouts`: on the real local stack (in memory), the latency of payout
 * create, and of the list endpoint for one merchant holding 10,000 payouts, with the
 * DynamoDB calls each request makes.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { countCalls, measureCase, printReport } from './support';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
process.env.POWERTOOLS_LOG_LEVEL = 'ERROR';
process.env.POWERTOOLS_METRICS_DISABLED = 'true';
process.env.PAYOUT_SETTLEMENT_DELAY_SECONDS = '900'; // keep the created payouts still while we measure

const PAYOUTS = Number(process.env.BENCH_PAYOUTS ?? 10_000);
// 4 list cases x (N + 3) requests stay under the list route's 100/min for the one merchant.
const N = Number(process.env.BENCH_ITERATIONS ?? 20);

async function main() {
  const { startLocalStack } = await import('../../bin/local/stack');
  const stack = await startLocalStack({ port: 0, memory: true, workers: false, stateDir: mkdtempSync(join(tmpdir(), 'bench-po-')) });
  const { dynamoClient, documentClient } = await import('../../shared/adapters/aws-clients');
  const { BatchWriteCommand, PutCommand } = await import('@aws-sdk/lib-dynamodb');
  const { config } = await import('../../shared/config');
  const { payoutEntity, payoutCountersEntity } = await import('../../shared/adapters/dynamodb/entities/payout.entity');
  const { envelope } = await import('../../shared/adapters/dynamodb/keys');
  const { merchantAdmin } = await import('../../shared/application/merchants');
  const { seedSandboxBalances } = await import('../../shared/application/payouts');
  const { payoutDeps } = await import('../../shared/wiring');
  const { repositories } = await import('../../shared/wiring');
  const { randomIds, randomSecrets, systemClock } = await import('../../shared/adapters/crypto');
  const admin = merchantAdmin({
    ...repositories,
    ids: randomIds,
    secrets: randomSecrets,
    clock: systemClock,
    seedTestBalances: (id) => seedSandboxBalances(payoutDeps(), id),
  });

  const calls = countCalls(dynamoClient());

  // 10,000 payouts for one merchant, written straight to the table (as the service stores them) with their counters.
  const big = await admin.createMerchant({ name: 'Bench 10k payouts' });
  const statuses = ['completed', 'completed', 'completed', 'failed', 'pending', 'processing'] as const;
  const counts: Record<string, number> = { total: 0 };
  const start = Date.now() - PAYOUTS * 60_000;
  for (let i = 0; i < PAYOUTS; i += 25) {
    const batch = [];
    for (let j = i; j < Math.min(PAYOUTS, i + 25); j++) {
      const status = statuses[j % statuses.length]!;
      counts.total = (counts.total ?? 0) + 1;
      counts[status] = (counts[status] ?? 0) + 1;
      const at = new Date(start + j * 60_000).toISOString();
      batch.push({
        PutRequest: {
          Item: payoutEntity.item({
            payout_id: randomIds.newId('po_'),
            merchant_id: big.merchant.merchant_id,
            livemode: false,
            method_code: 'svc-mt-5',
            country: 'BRA',
            amount_minor: 1000 + j,
            currency: 'BRL',
            status,
            sandbox_outcome: 'complete',
            beneficiary: {
              name: `Beneficiary ${j}`,
              document: '***725',
              document_type: 'CPF',
              instant_transfer_key: 'a***@example.com',
              instant_transfer_type: 'email',
              bank_code: null,
              account_number: null,
              account_type: null,
              wallet_id: null,
            },
            description: null,
            notification_url: null,
            metadata: {},
            failure_reason: null,
            created_at: at,
            updated_at: at,
            completed_at: status === 'completed' ? at : null,
          }),
        },
      });
    }
    await documentClient().send(new BatchWriteCommand({ RequestItems: { [config.tableName]: batch } }));
  }
  await documentClient().send(
    new PutCommand({
      TableName: config.tableName,
      Item: { ...payoutCountersEntity.key(big.merchant.merchant_id, 'test'), ...envelope(payoutCountersEntity), ...counts },
    }),
  );

  const base = stack.sandbox.base_url;
  const get = (key: string, path: string) => fetch(`${base}${path}`, { headers: { 'x-api-key': key } });
  const beneficiary = {
    name: 'Ana Silva',
    document: '00000000434',
    document_type: 'CPF',
    instant_transfer_key: 'ana@example.com',
    instant_transfer_type: 'email',
  };
  const createKey = async () => (await admin.createMerchant({ name: 'Bench create' })).apiKey.secret;
  let creator = await createKey();
  const from = new Date(start + (PAYOUTS / 2) * 60_000).toISOString();
  const to = new Date(start + (PAYOUTS / 2 + 1440) * 60_000).toISOString();

  const cases: Array<[string, (i: number) => Promise<() => Promise<Response>>]> = [
    [
      'POST /api/v1/payout (PIX, debit + ledger + counters)',
      async (i) => {
        if (i % 40 === 0) creator = await createKey(); // stay under 50/min per merchant
        return () =>
          fetch(`${base}/api/v1/payout`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', 'x-api-key': creator },
            body: JSON.stringify({ method_code: 'svc-mt-5', amount: 10, currency: 'BRL', beneficiary }),
          });
      },
    ],
    [`GET /api/v1/payout (first page of ${PAYOUTS})`, async () => () => get(big.apiKey.secret, '/api/v1/payout?limit=20')],
    ['GET /api/v1/payout?status=completed', async () => () => get(big.apiKey.secret, '/api/v1/payout?status=completed&limit=20')],
    ['GET /api/v1/payout?offset=5000', async () => () => get(big.apiKey.secret, '/api/v1/payout?limit=20&offset=5000')],
    [
      'GET /api/v1/payout?from_date&to_date (one day, 1,440 payouts)',
      async () => () => get(big.apiKey.secret, `/api/v1/payout?limit=20&from_date=${from}&to_date=${to}`),
    ],
  ];
  const rows: string[] = [];
  for (const [name, prepare] of cases) {
    rows.push(
      await measureCase(name, {
        iterations: N,
        warmup: 3,
        calls,
        prepare,
        ok: (status) => status === 200,
        note: (body) => {
          const total = (JSON.parse(body) as { pagination?: { total: number } }).pagination?.total;
          return total === undefined ? '' : ` (total ${total})`;
        },
      }),
    );
  }
  await stack.stop();
  printReport(
    `Payout benchmark on the local stack: ${N} sequential requests per case after 3 warm-up` +
      `, Node ${process.version}, ${new Date().toISOString()}`,
    '| request | median ms | p95 ms | DynamoDB calls per request |',
    rows,
  );
  process.exit(0);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
