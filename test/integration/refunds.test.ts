/**
 * Refunds over HTTP on the local engines (issue 11): full and partial refunds of direct and checkout PIX and card
 * payments, what is left to refund under sequential and concurrent requests, idempotency, and every refusal.
 * Settlement runs in the real settlement worker; webhooks, failures, vouchers and duplicates: refunds-settlement.test.ts.
 */
import { ScanCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient } from '../../shared/adapters/aws-clients';
import { config } from '../../shared/config';
import { startTestStack, type TestMerchant, type TestStack } from '../support/test-stack';
import { balanceMinor, card, events, ledger, payments } from '../support/payments';
import { ledgerReasons, ledgerSum, paidDaysAgo, pixBeneficiary, refunds } from '../support/refunds';

jest.setTimeout(60_000);

let stack: TestStack;
let m: TestMerchant;
let r: ReturnType<typeof refunds>;

beforeAll(async () => {
  Object.assign(process.env, { REFUND_SETTLEMENT_DELAY_SECONDS: '0', PAYOUT_SETTLEMENT_DELAY_SECONDS: '0' });
  stack = await startTestStack({ workers: true });
  m = await stack.createMerchant();
  r = refunds(stack, m);
});
afterAll(() => stack.stop());

/** A merchant of its own, for assertions on its whole balance and ledger. */
async function own() {
  const fresh = await stack.createMerchant();
  return { fresh, f: refunds(stack, fresh) };
}

describe('full and partial refunds', () => {
  it('direct PIX in full: pending with the documented shape and the debit, then succeeded and the payment refunded', async () => {
    const { fresh, f } = await own();
    const id = await f.paid('pix', { reference_id: 'INV-7' });
    expect(await balanceMinor(fresh)).toBe(2500);
    const res = await f.refundOf(id, { metadata: { ticket: 'T-1' } });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(
      [
        'amount',
        'beneficiary',
        'completed_at',
        'created_at',
        'currency',
        'failure_reason',
        'metadata',
        'payment_id',
        'reason',
        'reference_id',
        'refund_id',
        'status',
        'success',
      ].sort(),
    );
    expect(res.body).toMatchObject({
      success: true,
      refund_id: expect.stringMatching(/^re_[A-Za-z0-9_-]{22,}$/),
      payment_id: id,
      status: 'pending',
      amount: 25,
      currency: 'BRL',
      reason: 'requested_by_customer',
      beneficiary: null,
      failure_reason: null,
      reference_id: 'INV-7',
      metadata: { ticket: 'T-1' },
      completed_at: null,
    });
    expect(await balanceMinor(fresh)).toBe(0);
    expect(await ledgerReasons(fresh)).toEqual(['payment', 'refund']);
    const done = await f.settled(res.body.refund_id);
    expect(done).toMatchObject({ status: 'succeeded', completed_at: expect.any(String), failure_reason: null });
    expect(await f.paymentBecomes(id, 'refunded')).toMatchObject({ refunded_amount: 25, amount: 25 });
    const list = await f.list(id);
    expect(list.body).toMatchObject({ success: true, payment_id: id, payment_status: 'refunded', amount: 25, refunded_amount: 25 });
    expect(list.body.data).toEqual([expect.objectContaining({ refund_id: res.body.refund_id, status: 'succeeded' })]);
    expect(await balanceMinor(fresh)).toBe(0);
    expect(await ledgerSum(fresh)).toBe(0);
    const types = (await events(fresh)).map((e) => e.type);
    expect(types).toEqual(expect.arrayContaining(['refund.created', 'refund.succeeded', 'payment.refunded']));
  });

  it('direct card in parts: the payment stays success with refunded_amount until the rest is refunded', async () => {
    const { fresh, f } = await own();
    const id = await f.paid('card');
    const part = await f.refundOf(id, { amount: 10, reason: 'other' });
    expect(part.body).toMatchObject({ status: 'pending', amount: 10, reason: 'other' });
    await f.settled(part.body.refund_id);
    expect((await f.api.status(id)).body).toMatchObject({ status: 'success', refunded_amount: 10 });
    expect((await events(fresh)).some((e) => e.type === 'payment.refunded')).toBe(false);
    const rest = await f.refundOf(id);
    expect(rest.body).toMatchObject({ status: 'pending', amount: 15 });
    await f.settled(rest.body.refund_id);
    expect(await f.paymentBecomes(id, 'refunded')).toMatchObject({ refunded_amount: 25 });
    expect(await balanceMinor(fresh)).toBe(0);
    expect(await ledgerSum(fresh)).toBe(0);
  });

  it('checkout PIX in part and checkout card in full: the session shows refunded_amount, reference_id is the order number', async () => {
    const pix = await r.paidCheckout('pix');
    const part = await r.refundOf(pix.paymentId, { amount: 0.5 });
    expect(part.body).toMatchObject({ status: 'pending', amount: 0.5, reference_id: 'ORD-1' });
    await r.settled(part.body.refund_id);
    expect((await r.api.getSession(pix.sessionId)).body).toMatchObject({ payment_id: pix.paymentId, refunded_amount: 0.5 });
    expect((await r.api.status(pix.paymentId)).body).toMatchObject({ status: 'success', refunded_amount: 0.5 });

    const cardPaid = await r.paidCheckout('card');
    const full = await r.refundOf(cardPaid.paymentId);
    expect(full.body).toMatchObject({ amount: 100.5, currency: 'BRL' });
    await r.settled(full.body.refund_id);
    await r.paymentBecomes(cardPaid.paymentId, 'refunded');
    expect((await r.api.getSession(cardPaid.sessionId)).body).toMatchObject({ refunded_amount: 100.5 });
  });
});

describe('what is left to refund', () => {
  it('partials summing exactly to the amount, then one more is 409; a partial above what is left is 422', async () => {
    const { fresh, f } = await own();
    const id = await f.paid('pix');
    const first = await f.refundOf(id, { amount: 10 });
    const tooMuch = await f.refundOf(id, { amount: 15.01 });
    expect(tooMuch.status).toBe(422);
    expect(tooMuch.body).toEqual({ success: false, error: expect.objectContaining({ code: 'REFUND_AMOUNT_EXCEEDED' }) });
    expect(tooMuch.body.error.message).toContain('15');
    const second = await f.refundOf(id, { amount: 10 });
    const third = await f.refundOf(id, { amount: 5 });
    for (const x of [first, second, third]) expect(x.status).toBe(200);
    for (const body of [{ amount: 0.01 }, {}]) {
      const more = await f.refundOf(id, body);
      expect(more.status).toBe(409);
      expect(more.body.error.code).toBe('PAYMENT_NOT_REFUNDABLE');
    }
    for (const x of [first, second, third]) await f.settled(x.body.refund_id);
    expect(await f.paymentBecomes(id, 'refunded')).toMatchObject({ refunded_amount: 25 });
    expect((await f.refundOf(id, { amount: 1 })).body.error.code).toBe('PAYMENT_NOT_REFUNDABLE');
    expect(await balanceMinor(fresh)).toBe(0);
    expect(await ledgerSum(fresh)).toBe(0);
    expect((await events(fresh)).filter((e) => e.type === 'payment.refunded')).toHaveLength(1);
  });

  it('20 concurrent partials on one payment: never more than its amount, the rest 422/409, balance = ledger', async () => {
    const { fresh, f } = await own();
    const id = await f.paid('pix'); // 25.00
    const results = await Promise.all(Array.from({ length: 20 }, () => f.refundOf(id, { amount: 2.5 })));
    const ok = results.filter((x) => x.status === 200);
    const refused = results.filter((x) => x.status !== 200);
    expect(ok).toHaveLength(10);
    for (const x of refused) expect([422, 409]).toContain(x.status);
    for (const x of refused) expect(['REFUND_AMOUNT_EXCEEDED', 'PAYMENT_NOT_REFUNDABLE']).toContain(x.body.error.code);
    expect(new Set(ok.map((x) => x.body.refund_id)).size).toBe(10);
    const list = await f.list(id);
    expect(list.body.refunded_amount).toBe(25);
    expect(list.body.data).toHaveLength(10);
    expect(await balanceMinor(fresh)).toBe(0);
    expect(await ledgerSum(fresh)).toBe(0);
    expect(await ledger(fresh)).toHaveLength(11);
    for (const x of ok) await f.settled(x.body.refund_id);
    expect((await f.list(id)).body.refunded_amount).toBe(25);
    expect(await ledgerSum(fresh)).toBe(0);
  });

  // Refunds of one payment settling at once (the worker runs a batch in parallel) are serialised on the settled total.
  it('refunds settling at once that add up to the amount move the payment to refunded, once', async () => {
    const { settleRefund } = await import('../../shared/application/refunds');
    const { paymentDeps } = await import('../../shared/wiring');
    const { fresh, f } = await own();
    const id = await f.paid('pix');
    process.env.REFUND_SETTLEMENT_DELAY_SECONDS = '900'; // the worker stays out of it: this test settles them
    const ids: string[] = [];
    try {
      for (let i = 0; i < 5; i++) ids.push((await f.refundOf(id, { amount: 5 })).body.refund_id);
    } finally {
      process.env.REFUND_SETTLEMENT_DELAY_SECONDS = '0';
    }
    await Promise.all(ids.map((x) => settleRefund(paymentDeps(), x)));
    for (const x of ids) expect((await f.get(x)).body.status).toBe('succeeded');
    expect((await f.api.status(id)).body).toMatchObject({ status: 'refunded', refunded_amount: 25 });
    expect((await events(fresh)).filter((e) => e.type === 'payment.refunded')).toHaveLength(1);
  });
});

describe('idempotency', () => {
  it('the same key and body replay the same refund with one debit; the key with another body is 422', async () => {
    const { fresh, f } = await own();
    const id = await f.paid('card');
    const headers = { 'x-idempotency-key': `rf-${Date.now()}` };
    const a = await f.refundOf(id, { amount: 5, metadata: { n: 1 } }, headers);
    const b = await f.refundOf(id, { amount: 5, metadata: { n: 1 } }, headers);
    expect(a.status).toBe(200);
    expect(b.status).toBe(200);
    expect(b.body.refund_id).toBe(a.body.refund_id);
    expect(b.headers.get('idempotent-replayed')).toBe('true');
    const other = await f.refundOf(id, { amount: 6 }, headers);
    expect(other.status).toBe(422);
    expect(other.body.error.code).toBe('IDEMPOTENCY_KEY_REUSED');
    expect((await f.list(id)).body).toMatchObject({ refunded_amount: 5, data: [expect.objectContaining({ refund_id: a.body.refund_id })] });
    expect((await f.list(id)).body.data).toHaveLength(1);
    expect(await balanceMinor(fresh)).toBe(2000);
    expect(await ledgerReasons(fresh)).toEqual(['payment', 'refund']);
    const elsewhere = await f.refundOf(await f.paid('card'), { amount: 5, metadata: { n: 1 } }, headers);
    expect(elsewhere.status).toBe(422);
    expect(elsewhere.body.error.code).toBe('IDEMPOTENCY_KEY_REUSED');
  });

  // The refund id is derived from merchant + route + key: once the idempotency record has expired (24 h), the same key
  // on another payment finds that id taken and is refused as a reused key. The record's expiry is written back here.
  it('a key reused on another payment after its idempotency record expired is 422 IDEMPOTENCY_KEY_REUSED, not a 500', async () => {
    const { f } = await own();
    const headers = { 'x-idempotency-key': `rf-old-${Date.now()}` };
    const first = (await f.refundOf(await f.paid('card'), { amount: 5 }, headers)).body.refund_id as string;
    const records = await documentClient().send(
      new ScanCommand({
        TableName: config.tableName,
        FilterExpression: 'begins_with(PK, :p) AND contains(#data.body, :id)',
        ExpressionAttributeNames: { '#data': 'data' },
        ExpressionAttributeValues: { ':p': 'IDEMPOTENCY#', ':id': first },
      }),
    );
    expect(records.Items).toHaveLength(1);
    await documentClient().send(
      new UpdateCommand({
        TableName: config.tableName,
        Key: { PK: records.Items![0]!.PK, SK: records.Items![0]!.SK },
        UpdateExpression: 'SET #ttl = :past',
        ExpressionAttributeNames: { '#ttl': 'ttl' },
        ExpressionAttributeValues: { ':past': Math.floor(Date.now() / 1000) - 1 },
      }),
    );
    const later = await f.refundOf(await f.paid('card'), { amount: 5 }, headers);
    expect(later.status).toBe(422);
    expect(later.body.error.code).toBe('IDEMPOTENCY_KEY_REUSED');
  });
});

describe('refusals', () => {
  it('404 for unknown and another merchant’s payments and refunds; 400 for malformed ids', async () => {
    const id = await r.paid('card');
    const refund = (await r.refundOf(id, { amount: 1 })).body.refund_id as string;
    const other = refunds(stack, await stack.createMerchant());
    for (const res of [await other.refundOf(id, { amount: 1 }), await other.list(id), await r.refundOf('pi_AAAAAAAAAAAAAAAAAAAAAA')]) {
      expect(res.status).toBe(404);
      expect(res.body).toEqual({
        success: false,
        error: expect.objectContaining({ code: 'PAYMENT_NOT_FOUND', request_id: expect.any(String) }),
      });
    }
    for (const res of [await other.get(refund), await r.get('re_AAAAAAAAAAAAAAAAAAAAAA')]) {
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('REFUND_NOT_FOUND');
    }
    expect((await r.get('re_short')).status).toBe(400);
    expect((await r.refundOf('not-a-payment', {})).status).toBe(400);
    expect((await r.list(id)).body.refunded_amount).toBe(1);
  });

  it.each([
    [{ amount: 0 }, 'amount'],
    [{ amount: -1 }, 'amount'],
    [{ amount: 1.234 }, 'amount'],
    [{ amount: '5' }, 'amount'],
    [{ reason: 'changed_my_mind' }, 'reason'],
    [{ metadata: { nested: { a: 1 } } }, 'metadata.nested'],
    [{ beneficiary: pixBeneficiary }, 'beneficiary'],
  ])('400 VALIDATION_ERROR for bad body #%# naming the field, nothing written', async (body, field) => {
    const { fresh, f } = await own();
    const id = await f.paid('pix');
    const res = await f.refundOf(id, body);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('VALIDATION_ERROR');
    expect(res.body.error.details.map((d: { field: string }) => d.field)).toContain(field);
    expect((await f.list(id)).body).toMatchObject({ refunded_amount: 0, data: [] });
    expect(await balanceMinor(fresh)).toBe(2500);
  });

  it('a card beneficiary is refused too', async () => {
    const id = await r.paid('card');
    const res = await r.refundOf(id, { beneficiary: pixBeneficiary });
    expect(res.status).toBe(400);
    expect(res.body.error.details).toEqual([expect.objectContaining({ field: 'beneficiary' })]);
  });

  it('409 PAYMENT_NOT_REFUNDABLE for pending, declined and failed payments', async () => {
    const pending = (await r.api.direct()).body.payment_id;
    const declined = (await r.api.direct({ payment_method: 'card', card: card('4000000000000002') })).body.payment_id;
    const failedPix = (await r.api.direct()).body.payment_id;
    await r.api.simulate(failedPix, 'failed');
    for (const id of [pending, declined, failedPix]) {
      const res = await r.refundOf(id, { amount: 1 });
      expect(res.status).toBe(409);
      expect(res.body.error.code).toBe('PAYMENT_NOT_REFUNDABLE');
    }
  });

  it('422 REFUND_WINDOW_EXPIRED: PIX after 90 days, card after 180; inside the window it is accepted', async () => {
    const cases: Array<['pix' | 'card', number, number]> = [
      ['pix', 91, 422],
      ['pix', 89, 200],
      ['card', 181, 422],
      ['card', 179, 200],
    ];
    for (const [method, days, status] of cases) {
      const id = await r.paid(method);
      await paidDaysAgo(id, days);
      const res = await r.refundOf(id, { amount: 1 });
      expect([method, days, res.status]).toEqual([method, days, status]);
      if (status === 422) expect(res.body.error.code).toBe('REFUND_WINDOW_EXPIRED');
    }
  });

  it('400 INSUFFICIENT_BALANCE when a payout has taken the money; nothing reserved, debited or listed', async () => {
    const { fresh, f } = await own();
    const id = await f.paid('pix');
    const payout = await payments(stack, fresh).json('POST', '/api/v1/payout', {
      method_code: 'svc-mt-5',
      amount: 20,
      currency: 'BRL',
      beneficiary: { ...pixBeneficiary, document: '00000000434', instant_transfer_key: '00000000434', instant_transfer_type: 'cpf' },
    });
    expect(payout.body).toMatchObject({ success: true, status: 'pending' });
    expect(await balanceMinor(fresh)).toBe(500);
    const res = await f.refundOf(id, { amount: 10 });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('INSUFFICIENT_BALANCE');
    expect((await f.list(id)).body).toMatchObject({ refunded_amount: 0, data: [] });
    expect(await balanceMinor(fresh)).toBe(500);
    expect(await ledgerSum(fresh)).toBe(500);
    expect((await f.refundOf(id, { amount: 5 })).status).toBe(200);
    expect(await balanceMinor(fresh)).toBe(0);
  });
});
