/**
 * `npm run cli -- migrate ledger-v2` (issue 22): a stage deployed before the sharded ledger keeps its
 * balance transactions and payout totals once migrated, and the migration can run again, or after a cut.
 */
import { PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient } from '../../shared/adapters/aws-clients';
import { ledgerEntryEntity } from '../../shared/adapters/dynamodb/entities/balance.entity';
import { config } from '../../shared/config';
import { cli } from '../support/cli';
import { startTestStack, type TestMerchant, type TestStack } from '../support/test-stack';

let stack: TestStack;
beforeAll(async () => {
  stack = await startTestStack();
});
afterAll(() => stack.stop());

const put = (Item: Record<string, unknown>) => documentClient().send(new PutCommand({ TableName: config.tableName, Item }));

/** A merchant as version 1 stored it: ledger entries on its own partition, its balance, one counters item. */
async function versionOneMerchant(): Promise<{ m: TestMerchant; entries: Array<{ id: string; at: string; amount: number }> }> {
  const m = await stack.createMerchant();
  const entries = [
    { id: 'le_one', at: '2026-11-01T10:00:00.000Z', amount: 10000, reason: 'test_top_up', object: m.merchantId },
    { id: 'le_two', at: '2026-11-02T10:00:00.000Z', amount: 2500, reason: 'payment', object: 'pi_old' },
    { id: 'le_three', at: '2026-11-03T10:00:00.000Z', amount: -3000, reason: 'payout', object: 'po_old' },
  ];
  for (const e of entries) {
    await put({
      PK: `MERCHANT#${m.merchantId}`,
      SK: `LEDGER#test#BRL#${e.at}#${e.id}`,
      entity: 'ledger_entry',
      version: 1,
      entry_id: e.id,
      merchant_id: m.merchantId,
      mode: 'test',
      currency: 'BRL',
      amount_minor: e.amount,
      reason: e.reason,
      object_id: e.object,
      created_at: e.at,
    });
  }
  await put({
    PK: `MERCHANT#${m.merchantId}`,
    SK: 'BALANCE#test#BRL',
    entity: 'balance',
    version: 1,
    available_minor: 9500,
    currency: 'BRL',
    mode: 'test',
    merchant_id: m.merchantId,
  });
  await put({
    PK: `MERCHANT#${m.merchantId}`,
    SK: 'PAYOUTCOUNT#test',
    entity: 'payout_counters',
    version: 1,
    total: 3,
    completed: 2,
    failed: 1,
  });
  return { m, entries: entries.map((e) => ({ id: e.id, at: e.at, amount: e.amount })) };
}

const transactions = async (m: TestMerchant) =>
  (await stack.request('/api/v1/balance/transactions?currency=BRL&limit=100', { apiKey: m.apiKey })).body.data as Array<{
    id: string;
    amount: number;
    balance_after: number;
  }>;

it('moves ledger entries to the sharded ledger and counters into shards; the API sees them; a second run moves nothing', async () => {
  const { m, entries } = await versionOneMerchant();
  expect(await transactions(m)).toEqual([]); // what the new code reads before the migration: nothing

  const dry = await cli('migrate', 'ledger-v2', '--dry-run', '--json');
  expect(dry.code).toBe(0);
  expect(JSON.parse(dry.out)).toMatchObject({ ledgerEntries: 3, counters: 1 });
  expect(await transactions(m)).toEqual([]);

  const run = await cli('migrate', 'ledger-v2', '--json');
  expect(run.code).toBe(0);
  expect(JSON.parse(run.out)).toEqual({ ledgerEntries: 3, counters: 1, alreadyMoved: 0 });
  const listed = await transactions(m);
  expect(listed.map((t) => t.id)).toEqual(entries.map((e) => e.id).reverse());
  expect(listed.map((t) => t.balance_after)).toEqual([95, 125, 100]);
  const payouts = await stack.request('/api/v1/payout', { apiKey: m.apiKey });
  expect(payouts.body.pagination.total).toBe(3);
  const old = await documentClient().send(
    new QueryCommand({
      TableName: config.tableName,
      KeyConditionExpression: 'PK = :pk AND begins_with(SK, :sk)',
      ExpressionAttributeValues: { ':pk': `MERCHANT#${m.merchantId}`, ':sk': 'LEDGER#' },
      ConsistentRead: true,
    }),
  );
  expect(old.Items).toEqual([]);

  const again = await cli('migrate', 'ledger-v2', '--json');
  expect(JSON.parse(again.out)).toEqual({ ledgerEntries: 0, counters: 0, alreadyMoved: 0 });
  expect((await stack.request('/api/v1/payout', { apiKey: m.apiKey })).body.pagination.total).toBe(3);
});

it('an entry whose new item exists already (a run cut short) loses only its old item: never counted twice', async () => {
  const { m, entries } = await versionOneMerchant();
  const first = entries[0]!;
  await put({
    ...ledgerEntryEntity.key(m.merchantId, 'test', 'BRL', first.at, first.id),
    entity: 'ledger_entry',
    version: 2,
    entry_id: first.id,
    merchant_id: m.merchantId,
    mode: 'test',
    currency: 'BRL',
    amount_minor: first.amount,
    reason: 'test_top_up',
    object_id: m.merchantId,
    created_at: first.at,
  });
  const run = JSON.parse((await cli('migrate', 'ledger-v2', '--json')).out);
  expect(run).toMatchObject({ ledgerEntries: 3, alreadyMoved: 1 });
  const listed = await transactions(m);
  expect(listed).toHaveLength(3);
  expect(listed[0]!.balance_after).toBe(95);
});
