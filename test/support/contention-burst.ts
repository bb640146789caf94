/**
 * One merchant under contention (issue 34), shared by test/integration/contention*.test.ts: 64 concurrent requests,
 * heavy in payouts and refunds (each a debit of the one balance item), under DynamoDB's conflict rules (the conflict
 * proxy). A request that does not get its turn on the balance within its budget must be answered 503
 * BUSY_RETRY_SAME_KEY with Retry-After, never a 500; sent again with the same X-Idempotency-Key (as the SDK does)
 * it is done exactly once; the ledger equals the balance. Each retry follows the 503 it answers (an event), not a
 * timer. One stack per test file: the service's DynamoDB client is one per process, bound to the first proxy.
 */
import { randomUUID } from 'node:crypto';
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient } from '../../shared/adapters/aws-clients';
import { config } from '../../shared/config';
import { INDEX, indexKeys } from '../../shared/adapters/dynamodb/keys';
import { ROUTES } from '../../shared/manifest/routes';
import { balanceMinor, card, customer, ledger, payments } from './payments';
import { pixBeneficiary } from './sample-data';
import { startTestStack, type TestMerchant, type TestStack } from './test-stack';

interface Answer {
  readonly status: number;
  readonly headers: Headers;
  readonly body: Record<string, unknown>;
}

/** Every payout of the merchant (test mode), from its listing index. */
async function payoutItems(m: TestMerchant): Promise<Record<string, unknown>[]> {
  const out: Record<string, unknown>[] = [];
  let ExclusiveStartKey: Record<string, unknown> | undefined;
  do {
    const r = await documentClient().send(
      new QueryCommand({
        TableName: config.tableName,
        IndexName: INDEX.listing,
        KeyConditionExpression: 'GSI1PK = :pk',
        ExpressionAttributeValues: { ':pk': indexKeys.listing(m.merchantId, 'test', 'PAYOUT').GSI1PK },
        ExclusiveStartKey,
      }),
    );
    // The listing index keeps keys only (issue 31): each payout is named by its primary key.
    out.push(...(r.Items ?? []).map((i) => ({ ...i, payout_id: String(i.PK).replace(/^PAYOUT#/, '') })));
    ExclusiveStartKey = r.LastEvaluatedKey;
  } while (ExclusiveStartKey);
  return out;
}

/** The suite, on a stack whose conflict proxy holds each write `latencyMs`; `forced`: some 503s must occur. */
export function contentionSuite({ latencyMs, forced }: { latencyMs: number; forced: boolean }): void {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startTestStack({ conflicts: { latencyMs }, streams: true });
  });
  afterAll(() => stack.stop());

  it('no 500: a write that cannot get its turn answers 503 BUSY_RETRY_SAME_KEY; retried with its key, each is done once', async () => {
    const m = await stack.createMerchant();
    // The burst and its retries are one merchant's hundred-odd creates in a minute: above the default limits.
    await stack.admin.setRateLimits(
      m.merchantId,
      Object.fromEntries(ROUTES.filter((r) => r.rateLimitPerMinute).map((r) => [r.id, 1_000_000])),
    );
    const api = payments(stack, m);
    const post = async (path: string, body: unknown, key: string): Promise<Answer> => {
      const r = await stack.request(path, {
        method: 'POST',
        apiKey: m.apiKey,
        headers: { 'content-type': 'application/json', 'x-idempotency-key': key },
        body: JSON.stringify(body),
      });
      return { status: r.status, headers: r.headers, body: (r.body ?? {}) as Record<string, unknown> };
    };
    expect((await post('/api/v1/sandbox/balance/top-up', { amount: 1000, currency: 'BRL' }, randomUUID())).status).toBe(200);
    const paid = await Promise.all(
      Array.from({ length: 16 }, () => api.direct({ payment_method: 'card', amount: 20, card: card('4242424242424242') })),
    );
    expect(paid.map((r) => r.status)).toEqual(paid.map(() => 200));

    // 24 payouts and 16 refunds (debits of the one BRL balance), 24 card payments (credits); a key each.
    const requests = [
      ...Array.from({ length: 24 }, () => ({
        kind: 'payout',
        path: '/api/v1/payout',
        body: { method_code: 'svc-mt-5', amount: 15, currency: 'BRL', beneficiary: pixBeneficiary },
      })),
      ...paid.map((p) => ({ kind: 'refund', path: `/api/v1/payments/${p.body.payment_id}/refunds`, body: { amount: 5 } })),
      ...Array.from({ length: 24 }, () => ({
        kind: 'payment',
        path: '/cashier/cashier/payment',
        body: { payment_method: 'card', amount: 20, currency: 'BRL', country: 'BRA', customer, card: card('4242424242424242') },
      })),
    ].map((r) => ({ ...r, key: randomUUID() }));

    const busy: Answer[] = [];
    const unexpected: string[] = [];
    /** Sends the request; on 503 BUSY_RETRY_SAME_KEY, again with the same key as soon as it is answered. */
    const untilDone = async (r: (typeof requests)[number]): Promise<Answer> => {
      for (let attempt = 1; attempt <= 20; attempt++) {
        const a = await post(r.path, r.body, r.key);
        if (a.status !== 503) {
          if (a.status >= 500 || (attempt > 1 && a.status === 409)) unexpected.push(`${r.kind} ${a.status} ${JSON.stringify(a.body)}`);
          return a;
        }
        busy.push(a);
      }
      throw new Error(`${r.kind} ${r.key} still busy after 20 attempts`);
    };
    const answers = await Promise.all(requests.map(untilDone));

    // No 5xx but the 503 of contention, each with Retry-After and the code that says "same key"; a retry is never
    // refused as "still in flight" (409): the attempt's idempotency record went with its 503.
    expect(unexpected).toEqual([]);
    for (const b of busy) {
      expect(Number(b.headers.get('retry-after'))).toBeGreaterThan(0);
      const code = (b.body.error as { code?: string } | undefined)?.code ?? b.body.error_code;
      expect(code).toMatch(/^(BUSY_RETRY_SAME_KEY|busy_retry_same_key)$/);
    }
    // Held 150 ms a write, the debits queue past the budget: some are answered busy (at DynamoDB's pace, on a
    // quiet machine, none are: test/bench/hot-merchant.bench.ts measures how many on this one).
    if (forced) expect(busy.length).toBeGreaterThan(0);
    expect(answers.map((a) => a.status)).toEqual(answers.map(() => 200));

    // Exactly once: one payout per key (its id derives from the key), and each key's answer names it.
    const payoutIds = requests.map((r, i) => (r.kind === 'payout' ? String(answers[i]!.body.payout_id) : null)).filter(Boolean);
    expect(new Set(payoutIds).size).toBe(24);
    const stored = await payoutItems(m);
    expect(stored.map((p) => String(p.payout_id)).sort()).toEqual([...payoutIds].sort());
    const refundIds = requests.map((r, i) => (r.kind === 'refund' ? String(answers[i]!.body.refund_id) : null)).filter(Boolean);
    expect(new Set(refundIds).size).toBe(16);

    // Ledger = balance: 1000 topped up, 40 payments of 20 in, 24 payouts of 15 and 16 refunds of 5 out.
    const sum = (await ledger(m)).reduce((s, e) => s + Number(e.amount_minor), 0);
    expect(sum).toBe((1000 + 40 * 20 - 24 * 15 - 16 * 5) * 100);
    expect(await balanceMinor(m)).toBe(sum);
  });
}
