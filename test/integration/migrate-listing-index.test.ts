/**
 * `npm run cli -- migrate listing-index` (issue 31) on DynamoDB Local: a table built before the KEYS_ONLY
 * listing index (GSI1, projection ALL, only) gets GSI1K built from its items as they are; the merchant's lists
 * (payouts, events, a payment's refunds, API keys) read the same objects through it; GSI1 goes last.
 */
import { DescribeTableCommand, UpdateTableCommand } from '@aws-sdk/client-dynamodb';
import { dynamoClient } from '../../shared/adapters/aws-clients';
import { config } from '../../shared/config';
import { indexInput, RETIRED_INDEXES, TABLE } from '../../shared/manifest/table';
import { cli } from '../support/cli';
import { refunds } from '../support/refunds';
import { startTestStack, type TestStack } from '../support/test-stack';

jest.setTimeout(240_000);
let stack: TestStack;
beforeAll(async () => {
  stack = await startTestStack({ ownEngine: true });
});
afterAll(() => stack.stop());

const indexes = async () =>
  ((await dynamoClient().send(new DescribeTableCommand({ TableName: config.tableName }))).Table?.GlobalSecondaryIndexes ?? []).map((i) => ({
    name: i.IndexName,
    projection: i.Projection?.ProjectionType,
    status: i.IndexStatus,
  }));

async function untilIndexes(expected: string[]) {
  // DynamoDB Local builds an index in the background: slow on a loaded machine.
  const end = Date.now() + 90_000;
  for (;;) {
    const now = await indexes();
    if (
      now
        .map((i) => i.name)
        .sort()
        .join() === [...expected].sort().join() &&
      now.every((i) => i.status === 'ACTIVE')
    )
      return now;
    if (Date.now() > end) throw new Error(`indexes ${JSON.stringify(now)}, expected ${expected.join()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** The table as a stage deployed before issue 31 has it: GSI1 (ALL) and GSI2, no GSI1K. */
async function versionBeforeListingKeysOnly() {
  const listing = TABLE.indexes.find((i) => i.role === 'listing')!;
  const retired = RETIRED_INDEXES[0]!;
  await dynamoClient().send(
    new UpdateTableCommand({ TableName: config.tableName, GlobalSecondaryIndexUpdates: [{ Delete: { IndexName: listing.name } }] }),
  );
  await untilIndexes(['GSI2']);
  await dynamoClient().send(
    new UpdateTableCommand({
      TableName: config.tableName,
      AttributeDefinitions: [retired.partitionKey, retired.sortKey].map((AttributeName) => ({ AttributeName, AttributeType: 'S' })),
      GlobalSecondaryIndexUpdates: [{ Create: indexInput(retired) }],
    }),
  );
  await untilIndexes(['GSI1', 'GSI2']);
}

it('builds GSI1K from the items, the lists read the same objects through it, and GSI1 is dropped last', async () => {
  await versionBeforeListingKeysOnly();
  // Objects written while only GSI1 exists (as on the deployed stage before the first deploy).
  const m = await stack.createMerchant();
  const r = refunds(stack, m);
  const paymentId = await r.paid('card');
  const refund = await r.refundOf(paymentId, { amount: 5 });
  expect(refund.status).toBe(200);
  await r.api.json('POST', '/api/v1/sandbox/balance/top-up', { currency: 'BRL', amount: 1000 });
  const beneficiary = {
    name: 'Ana Silva',
    document: '52998224725',
    document_type: 'CPF',
    instant_transfer_key: 'ana@example.com',
    instant_transfer_type: 'email',
  };
  const payoutIds: string[] = [];
  for (const amount of [10, 20, 30]) {
    const p = await r.api.json('POST', '/api/v1/payout', { method_code: 'svc-mt-5', amount, currency: 'BRL', beneficiary });
    expect(p.status).toBe(200);
    payoutIds.push(p.body.payout_id as string);
  }

  // Before the index exists the check says so and changes nothing.
  const check = await cli('migrate', 'listing-index', '--json');
  expect(check.code).toBe(1);
  expect(JSON.parse(check.out)).toMatchObject({ index: 'GSI1K', ready: false, created: false });
  expect((await indexes()).map((i) => i.name).sort()).toEqual(['GSI1', 'GSI2']);

  const applied = await cli('migrate', 'listing-index', '--apply', '--json');
  expect(applied.code).toBe(0);
  const report = JSON.parse(applied.out);
  expect(report).toMatchObject({
    index: 'GSI1K',
    projection: 'KEYS_ONLY',
    status: 'ACTIVE',
    created: true,
    retiredDropped: false,
    ready: true,
  });
  expect(report.counts.listing).toBe(report.counts.retired);
  expect(report.counts.listing).toBeGreaterThanOrEqual(3 + 1 + 1 + 1); // payouts, refund, events, API key
  expect(await indexes()).toEqual(
    expect.arrayContaining([
      { name: 'GSI1', projection: 'ALL', status: 'ACTIVE' },
      { name: 'GSI1K', projection: 'KEYS_ONLY', status: 'ACTIVE' },
    ]),
  );

  const lists = async () => {
    const payouts = await r.api.json('GET', '/api/v1/payout?limit=2');
    const events = await r.api.json('GET', '/api/v1/events?limit=100');
    const refundList = await r.list(paymentId);
    const keys = await cli('keys', 'list', m.merchantId, '--json');
    return {
      payouts: { ids: payouts.body.data.map((p: { payout_id: string }) => p.payout_id), total: payouts.body.pagination.total },
      eventTypes: new Set((events.body.data as Array<{ type: string }>).map((e) => e.type)),
      refunds: (refundList.body.data as Array<{ refund_id: string }>).map((x) => x.refund_id),
      keys: (JSON.parse(keys.out) as Array<{ key_id: string }>).map((k) => k.key_id),
    };
  };
  const through = await lists();
  expect(through.payouts).toEqual({ ids: [payoutIds[2], payoutIds[1]], total: 3 }); // newest first, the page of 2
  expect([...through.eventTypes]).toEqual(expect.arrayContaining(['payment.success', 'refund.created']));
  expect(through.refunds).toEqual([refund.body.refund_id]);
  expect(through.keys).toHaveLength(1);

  const dropped = await cli('migrate', 'listing-index', '--apply', '--drop-retired', '--json');
  expect(dropped.code).toBe(0);
  expect(JSON.parse(dropped.out)).toMatchObject({ created: false, retiredDropped: true, ready: true });
  expect((await indexes()).map((i) => i.name).sort()).toEqual(['GSI1K', 'GSI2']);
  expect(await lists()).toEqual(through);

  // Run again: nothing left to do.
  const again = await cli('migrate', 'listing-index', '--apply', '--drop-retired', '--json');
  expect(JSON.parse(again.out)).toMatchObject({ created: false, retiredDropped: false, counts: null, ready: true });
});
