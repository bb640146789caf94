/**
 * No hot item on the payment path (issue 22 part 2): a payment's credit is a ledger entry and a pending credit,
 * never an update of the merchant's balance item; the fold adds pending credits to the balance, each once, from
 * the table's stream, from the sweep, and before a balance read or a debit the balance refused.
 */
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import type { DynamoDBStreamEvent } from 'aws-lambda';
import { documentClient } from '../../shared/adapters/aws-clients';
import { balanceEntity } from '../../shared/adapters/dynamodb/entities/balance.entity';
import { sweepPendingCredits } from '../../shared/application/balance';
import { config } from '../../shared/config';
import { ledgerFoldDeps } from '../../shared/wiring';
import { balanceMinor, card, ledger, payments, pendingCredits } from '../support/payments';
import { pixBeneficiary } from '../support/sample-data';
import { startTestStack, type TestMerchant, type TestStack } from '../support/test-stack';

/** The balance item alone, as stored (what the fold has added so far). */
async function balanceItem(m: TestMerchant, currency = 'BRL'): Promise<number | null> {
  const r = await documentClient().send(
    new GetCommand({ TableName: config.tableName, Key: balanceEntity.key(m.merchantId, 'test', currency), ConsistentRead: true }),
  );
  return r.Item ? Number(r.Item.available_minor) : null;
}

const ledgerSum = async (m: TestMerchant) => (await ledger(m)).reduce((s, e) => s + Number(e.amount_minor), 0);

async function paid(stack: TestStack, m: TestMerchant, n: number, amount = 10) {
  const api = payments(stack, m);
  const results = await Promise.all(
    Array.from({ length: n }, () => api.direct({ payment_method: 'card', amount, card: card('4242424242424242') })),
  );
  expect(results.map((r) => r.status)).toEqual(results.map(() => 200));
  return results;
}

async function until(check: () => Promise<boolean>, ms = 10_000) {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('credits without the balance item (no stream worker running)', () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startTestStack();
  });
  afterAll(() => stack.stop());

  it('a card payment writes its ledger entry and a pending credit, and leaves the balance item alone', async () => {
    const m = await stack.createMerchant();
    await paid(stack, m, 3);
    expect(await balanceItem(m)).toBeNull();
    expect((await pendingCredits(m)).map((c) => Number(c.amount_minor))).toEqual([1000, 1000, 1000]);
    expect(await ledgerSum(m)).toBe(3000);
  });

  it("GET /api/v1/balance counts them: it folds the merchant's pending credits first, then the balance item holds them", async () => {
    const m = await stack.createMerchant();
    await paid(stack, m, 4);
    const r = await stack.request('/api/v1/balance', { apiKey: m.apiKey });
    expect(r.status).toBe(200);
    expect(r.body.balances.find((b: { currency: string }) => b.currency === 'BRL').available).toBe(40);
    expect(await pendingCredits(m)).toEqual([]);
    expect(await balanceItem(m)).toBe(4000);
  });

  it('a payout of everything right after the payments that fund it is accepted (the refused debit folds, then commits)', async () => {
    const m = await stack.createMerchant();
    await paid(stack, m, 5);
    const payout = (amount: number) =>
      stack.request('/api/v1/payout', {
        method: 'POST',
        apiKey: m.apiKey,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ method_code: 'svc-mt-5', amount, currency: 'BRL', beneficiary: pixBeneficiary }),
      });
    const r = await payout(50);
    expect(r.status).toBe(200);
    expect(await balanceItem(m)).toBe(0);
    expect(await ledgerSum(m)).toBe(0);
    const more = await payout(1);
    expect(more.status).toBe(400);
    expect(more.body.error.code).toBe('INSUFFICIENT_BALANCE');
  });

  it('the sweep folds what is still pending after its grace, and only that', async () => {
    const m = await stack.createMerchant();
    await paid(stack, m, 2);
    expect((await sweepPendingCredits(ledgerFoldDeps(), new Date())).folded).toBe(0); // younger than the grace
    const later = new Date(Date.now() + 180_000);
    const r = await sweepPendingCredits(ledgerFoldDeps(), later);
    expect(r.folded).toBeGreaterThanOrEqual(2);
    expect(await pendingCredits(m)).toEqual([]);
    expect(await balanceItem(m)).toBe(2000);
  });

  it('a stream batch delivered twice (and a record twice in one batch) is counted once', async () => {
    const m = await stack.createMerchant();
    await paid(stack, m, 3);
    const pending = await pendingCredits(m);
    const { handler } = await import('../../functions/payouts/fold-ledger.handler');
    const { marshall } = await import('@aws-sdk/util-dynamodb');
    const records = pending.map((item, i) => ({
      eventName: 'INSERT' as const,
      dynamodb: { NewImage: marshall(item) as never, SequenceNumber: String(i), StreamViewType: 'NEW_IMAGE' as const },
    }));
    const event: DynamoDBStreamEvent = { Records: [...records, records[0]!] };
    const context = { getRemainingTimeInMillis: () => 60_000, functionName: 'fold', awsRequestId: 'x' } as never;
    await handler(event, context);
    await handler(event, context);
    expect(await pendingCredits(m)).toEqual([]);
    expect(await balanceItem(m)).toBe(3000);
    expect(await ledgerSum(m)).toBe(3000);
  });
});

describe('the stream worker', () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startTestStack({ streams: true });
  });
  afterAll(() => stack.stop());

  it('folds a burst of 24 payments into the balance item without a balance read, in batches', async () => {
    const m = await stack.createMerchant();
    await paid(stack, m, 24, 5);
    await until(async () => (await pendingCredits(m)).length === 0);
    expect(await balanceItem(m)).toBe(24 * 500);
    expect(await balanceMinor(m)).toBe(await ledgerSum(m));
  });
});
