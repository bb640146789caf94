/**
 * `npm run bench:payouts`: on the real local stack (in memory), the latency of payout
 * create, of the list endpoint for one merchant holding 10,000 payouts (deep pages by
 * offset and by starting_after cursor), and of the balance transactions list over a
 * 10,000-entry ledger, with the DynamoDB calls each request makes.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { countCalls, measureCase, printLatencyReport, runBench } from './support';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
process.env.POWERTOOLS_LOG_LEVEL = 'ERROR';
process.env.POWERTOOLS_METRICS_DISABLED = 'true';
process.env.PAYOUT_SETTLEMENT_DELAY_SECONDS = '900'; // keep the created payouts still while we measure

const PAYOUTS = Number(process.env.BENCH_PAYOUTS ?? 10_000);
// Each list case starts in a fresh rate-limit window (see freshWindow), so N + 3 requests stay under 100/min.
const N = Number(process.env.BENCH_ITERATIONS ?? 20);
/** Entries written to the big merchant's BRL ledger for the balance transactions cases. */
const LEDGER = Number(process.env.BENCH_LEDGER ?? 10_000);

async function main() {
  const { startLocalStack } = await import('../../bin/local/stack');
  const stack = await startLocalStack({ port: 0, memory: true, workers: false, stateDir: mkdtempSync(join(tmpdir(), 'bench-po-')) });
  const { dynamoClient, documentClient } = await import('../../shared/adapters/aws-clients');
  const { BatchWriteCommand, DeleteCommand, PutCommand, QueryCommand, UpdateCommand } = await import('@aws-sdk/lib-dynamodb');
  const { config } = await import('../../shared/config');
  const { payoutEntity, payoutCountersEntity } = await import('../../shared/adapters/dynamodb/entities/payout.entity');
  const { envelope } = await import('../../shared/adapters/dynamodb/keys');
  const { balanceEntity, ledgerEntryEntity } = await import('../../shared/adapters/dynamodb/entities/balance.entity');
  const { rateLimitWindowEntity } = await import('../../shared/adapters/dynamodb/entities/rate-limit-window.entity');
  const { balanceTransactions } = await import('../../shared/application/balance');
  const { balanceDeps } = await import('../../shared/wiring');
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
  /** Payout ids by creation order (index 0 the oldest): the listing shows them newest first. */
  const ids: string[] = [];
  for (let i = 0; i < PAYOUTS; i += 25) {
    const batch = [];
    for (let j = i; j < Math.min(PAYOUTS, i + 25); j++) {
      const status = statuses[j % statuses.length]!;
      counts.total = (counts.total ?? 0) + 1;
      counts[status] = (counts[status] ?? 0) + 1;
      const at = new Date(start + j * 60_000).toISOString();
      ids.push(randomIds.newId('po_'));
      batch.push({
        PutRequest: {
          Item: payoutEntity.item({
            payout_id: ids[j]!,
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
      Item: { ...payoutCountersEntity.key(big.merchant.merchant_id, 'test', 0), ...envelope(payoutCountersEntity), ...counts },
    }),
  );

  // A 10,000-entry BRL ledger for the same merchant (top-ups, one a minute), its balance item raised by their sum.
  const merchantId = big.merchant.merchant_id;
  let ledgerSum = 0;
  const ledgerStart = Date.now() - LEDGER * 60_000;
  for (let i = 0; i < LEDGER; i += 25) {
    const batch = [];
    for (let j = i; j < Math.min(LEDGER, i + 25); j++) {
      const at = new Date(ledgerStart + j * 60_000).toISOString();
      const entryId = randomIds.newId('le_');
      const amount = 100 + (j % 997);
      ledgerSum += amount;
      batch.push({
        PutRequest: {
          Item: {
            ...ledgerEntryEntity.key(merchantId, 'test', 'BRL', at, entryId),
            ...envelope(ledgerEntryEntity),
            entry_id: entryId,
            merchant_id: merchantId,
            mode: 'test',
            currency: 'BRL',
            amount_minor: amount,
            reason: 'test_top_up',
            object_id: merchantId,
            created_at: at,
          },
        },
      });
    }
    await documentClient().send(new BatchWriteCommand({ RequestItems: { [config.tableName]: batch } }));
  }
  await documentClient().send(
    new UpdateCommand({
      TableName: config.tableName,
      Key: balanceEntity.key(merchantId, 'test', 'BRL'),
      UpdateExpression: 'ADD available_minor :sum',
      ExpressionAttributeValues: { ':sum': ledgerSum },
    }),
  );
  // The cursor 5,000 entries down the BRL ledger, paged through the use case (untimed, no HTTP).
  let ledgerCursor: string | undefined;
  for (let read = 0; read < 5000; read += 100) {
    const page = await balanceTransactions(
      balanceDeps(),
      { merchantId, mode: 'test' },
      { currency: 'BRL', limit: 100, starting_after: ledgerCursor },
    );
    ledgerCursor = page.next_cursor!;
  }

  /** Bench bookkeeping, untimed: drop the merchant's rate-limit windows on a route so each case starts with a full budget. */
  const freshWindow = async (routeId: string) => {
    const pk = rateLimitWindowEntity.key(merchantId, routeId, 0).PK;
    const r = await documentClient().send(
      new QueryCommand({ TableName: config.tableName, KeyConditionExpression: 'PK = :pk', ExpressionAttributeValues: { ':pk': pk } }),
    );
    for (const item of r.Items ?? []) {
      await documentClient().send(new DeleteCommand({ TableName: config.tableName, Key: { PK: item.PK, SK: item.SK } }));
    }
  };
  /** A list case on the big merchant: a fresh rate-limit window before its first request. */
  const listCase =
    (routeId: string, path: string) =>
    async (i: number): Promise<() => Promise<Response>> => {
      if (i === 0) await freshWindow(routeId);
      return () => get(big.apiKey.secret, path);
    };
  /** The payout at `depth` in the newest-first listing: the starting_after of the page at offset depth. */
  const cursorAt = (depth: number) => ids[PAYOUTS - depth]!;

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
    [`GET /api/v1/payout (first page of ${PAYOUTS})`, listCase('listPayouts', '/api/v1/payout?limit=20')],
    ['GET /api/v1/payout?status=completed', listCase('listPayouts', '/api/v1/payout?status=completed&limit=20')],
    ['GET /api/v1/payout?offset=5000', listCase('listPayouts', '/api/v1/payout?limit=20&offset=5000')],
    [
      'GET /api/v1/payout?starting_after (cursor at 5,000)',
      listCase('listPayouts', `/api/v1/payout?limit=20&starting_after=${cursorAt(5000)}`),
    ],
    [`GET /api/v1/payout?offset=${PAYOUTS - 20} (last page)`, listCase('listPayouts', `/api/v1/payout?limit=20&offset=${PAYOUTS - 20}`)],
    [
      `GET /api/v1/payout?starting_after (cursor at ${PAYOUTS - 20}, last page)`,
      listCase('listPayouts', `/api/v1/payout?limit=20&starting_after=${cursorAt(PAYOUTS - 20)}`),
    ],
    [
      'GET /api/v1/payout?from_date&to_date (one day, 1,440 payouts)',
      listCase('listPayouts', `/api/v1/payout?limit=20&from_date=${from}&to_date=${to}`),
    ],
    [
      `GET /api/v1/balance/transactions (first page; 7 currencies, ${LEDGER} BRL entries)`,
      listCase('listBalanceTransactions', '/api/v1/balance/transactions?limit=20'),
    ],
    [
      'GET /api/v1/balance/transactions?currency=BRL (first page)',
      listCase('listBalanceTransactions', '/api/v1/balance/transactions?currency=BRL&limit=20'),
    ],
    [
      'GET /api/v1/balance/transactions?currency=BRL (cursor at 5,000)',
      listCase('listBalanceTransactions', `/api/v1/balance/transactions?currency=BRL&limit=20&starting_after=${ledgerCursor}`),
    ],
    [
      'GET /api/v1/balance/transactions?type=payout (none: the bounded scan)',
      listCase('listBalanceTransactions', '/api/v1/balance/transactions?currency=BRL&type=payout&limit=20'),
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
          const b = JSON.parse(body) as { pagination?: { total: number }; data?: unknown[]; has_more?: boolean };
          const total = b.pagination?.total === undefined ? '' : `total ${b.pagination.total}, `;
          return b.data ? ` (${total}${b.data.length} items, has_more ${b.has_more})` : '';
        },
      }),
    );
  }
  await stack.stop();
  printLatencyReport(
    `Payout benchmark on the local stack: ${N} sequential requests per case after 3 warm-up`,
    '| request | median ms | p95 ms | DynamoDB calls per request |',
    rows,
  );
}

runBench(main);
