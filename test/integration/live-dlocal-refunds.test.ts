/**
 * Live refunds of payments dLocal holds (issue 32), over real HTTP on the local engines against the fake dLocal: a
 * full and a partial refund succeed (signed refund.succeeded, balance and ledger), a rejection fails the refund and
 * credits the balance back, a send whose answer is lost is read back (one refund at dLocal, never a second), refund
 * notifications duplicated and out of order settle once and only from the read-back, and a 5xx leaves the refund
 * pending until the settlement resume job settles it. A PSE payment (Colombia), a Servipag ticket and a Webpay payment
 * (Chile, whose refunds take a refund-only bank-account rail) are refunded as bank transfers: with a beneficiary
 * account, which stays here masked and is never sent to dLocal.
 */
import '../support/log-level-info';
import { resumeSettlements } from '../../shared/application/payouts';
import { settleRefund } from '../../shared/application/refunds';
import { orderIdOf, refundReferenceOf } from '../../shared/adapters/providers/dlocal/dlocal.transformers';
import { paymentDeps, settlementDeps, settlementGraceSeconds } from '../../shared/wiring';
import { startFakeDlocal, type FakeDlocal } from '../support/fake-dlocal';
import { verifyWebhook } from '../support/merchant-verify';
import { balanceMinorOf, expectLedgerEqualsBalance, startLiveStage, type LiveMerchant, type LiveStage } from '../support/live-stage';
import type { TestMerchant, TestStack } from '../support/test-stack';
import { payments } from '../support/payments';

let fake: FakeDlocal;
let stack: TestStack;
let merchant: LiveMerchant;
let live: LiveStage;

beforeAll(async () => {
  process.env.REFUND_SETTLEMENT_DELAY_SECONDS = '0';
  fake = await startFakeDlocal({ hangMs: 5_000 });
  live = await startLiveStage(
    { dlocal: fake.dlocalConfig({ timeouts: { connect_ms: 1000, total_ms: 1500 } }) },
    { merchantName: 'Tienda Cusco', receiver: true },
  );
  ({ stack, merchant } = live);
});

afterEach(() => {
  expect(fake.violations).toEqual([]);
});

afterAll(async () => {
  await live?.stop();
  await fake?.close();
  delete process.env.REFUND_SETTLEMENT_DELAY_SECONDS;
});

const shopper = { name: 'Rosa Quispe', email: 'rosa@example.pe', document: '45678912' };
const balance = () => balanceMinorOf(stack, merchant.apiKey, 'PEN');
const storedRefund = async (id: string) => (await paymentDeps().refunds.get(id))!;
const storedPayment = async (id: string) => (await paymentDeps().store.getPayment(id))!;
const sentFor = (refundId: string) =>
  fake.requests.filter(
    (q) =>
      q.method === 'POST' &&
      q.path === '/refunds' &&
      (q.body as { order_refund_id?: string }).order_refund_id === refundReferenceOf(refundId),
  ).length;
/** Read-backs of one refund by our reference, GET /orders/{order_refund_id} (dLocal's "Retrieve an order" of a refund). */
const readBacks = (refundId: string) =>
  fake.requests.filter((q) => q.method === 'GET' && q.path === `/orders/${refundReferenceOf(refundId)}`).length;
const resume = () => {
  const grace = settlementGraceSeconds();
  return resumeSettlements(settlementDeps(), new Date(Date.now() + (grace + 5) * 1000), grace);
};

async function until(what: string, cond: () => Promise<boolean> | boolean, timeoutMs = 15_000) {
  const end = Date.now() + timeoutMs;
  while (!(await cond())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** A Yape payment (a wallet: refunded to the payer's instrument) paid at dLocal and settled here. */
async function paid(amount: number) {
  const api = payments(stack, merchant as TestMerchant);
  const session = await api.createSession({ amount, currency: 'PEN', country: 'PER' });
  const r = await api.process(session.body.session_id as string, 'wallet', { customer: shopper });
  expect(r.status).toBe(200);
  const id = r.body.payment_id as string;
  fake.setStatus(orderIdOf(id), 'PAID');
  expect((await fake.notify(orderIdOf(id))).status).toBe(200);
  expect((await storedPayment(id)).status).toBe('success');
  return id;
}

const refund = (paymentId: string, body: Record<string, unknown> = {}) =>
  stack.request(`/api/v1/payments/${paymentId}/refunds`, {
    method: 'POST',
    apiKey: merchant.apiKey,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
const refundWebhook = (refundId: string, type: string) =>
  live.receiver.waitFor(1, 20_000, (r) => r.body?.event === type && r.body?.refund_id === refundId);
/** The refund dLocal holds for ours, once the settlement worker has sent it. */
async function heldAtDlocal(refundId: string) {
  await until('the refund at dLocal', () => fake.refundsFor(refundReferenceOf(refundId)).length > 0);
  return fake.refundsFor(refundReferenceOf(refundId))[0]!;
}

describe('live refunds of dLocal payments', () => {
  it('a full refund dLocal pays at once: refund.succeeded signed, payment refunded, balance and ledger', async () => {
    const before = await balance();
    const id = await paid(120);
    expect(await balance()).toBe(before + 12_000);
    fake.nextRefund('SUCCESS');
    const r = await refund(id);
    expect(r.status).toBe(200);
    const refundId = r.body.refund_id as string;
    const [h] = await refundWebhook(refundId, 'refund.succeeded');
    expect(verifyWebhook(h!.rawBody, h!.headers as Record<string, string>, merchant.webhookSecret).ok).toBe(true);
    const held = fake.refundsFor(refundReferenceOf(refundId));
    expect(held).toHaveLength(1);
    expect(
      fake.requests.find(
        (q) =>
          q.path === '/refunds' &&
          q.method === 'POST' &&
          (q.body as { order_refund_id?: string }).order_refund_id === refundReferenceOf(refundId),
      )?.body,
    ).toEqual({
      payment_id: fake.payment(orderIdOf(id))!.id,
      amount: 120,
      currency: 'PEN',
      notification_url: `${stack.baseUrl}/providers/dlocal/notifications`,
      order_refund_id: refundReferenceOf(refundId),
    });
    await until('payment refunded', async () => (await storedPayment(id)).status === 'refunded');
    expect(await balance()).toBe(before);
    await expectLedgerEqualsBalance(stack, merchant, 'PEN');
  });

  it('a partial refund left pending: settled by its notification after a read-back; duplicates and stale copies move nothing', async () => {
    const before = await balance();
    const id = await paid(100);
    const r = await refund(id, { amount: 40 });
    expect(r.status).toBe(200);
    const refundId = r.body.refund_id as string;
    const held = await heldAtDlocal(refundId);
    await until('worker done', async () => sentFor(refundId) === 1);
    expect((await storedRefund(refundId)).status).toBe('pending');
    expect(await balance()).toBe(before + 6_000);

    // A PENDING notification moves nothing.
    expect((await fake.notifyRefund(held.id)).status).toBe(200);
    expect((await storedRefund(refundId)).status).toBe('pending');
    // A notification claiming SUCCESS while dLocal still holds it pending: the read-back wins, nothing moves.
    expect((await fake.notifyRefund(held.id, { status: 'SUCCESS' })).status).toBe(200);
    expect((await storedRefund(refundId)).status).toBe('pending');

    fake.setRefundStatus(held.id, 'SUCCESS');
    // Read back by our reference: GET /orders/{order_refund_id}, once per notification.
    const reads = readBacks(refundId);
    expect((await fake.notifyRefund(held.id)).status).toBe(200);
    expect(readBacks(refundId)).toBe(reads + 1);
    expect((await storedRefund(refundId)).status).toBe('succeeded');
    await refundWebhook(refundId, 'refund.succeeded');
    // A duplicate, then a stale PENDING copy (out of order): nothing more moves.
    expect((await fake.notifyRefund(held.id)).status).toBe(200);
    expect((await fake.notifyRefund(held.id, { status: 'PENDING' })).status).toBe(200);
    expect((await storedRefund(refundId)).status).toBe('succeeded');
    expect((await storedPayment(id)).status).toBe('success');
    expect(await balance()).toBe(before + 6_000);
    expect(fake.refundsFor(refundReferenceOf(refundId))).toHaveLength(1);
    await expectLedgerEqualsBalance(stack, merchant, 'PEN');
  });

  it('rejected by dLocal: refund.failed and the balance credited back', async () => {
    const id = await paid(50);
    const after = await balance();
    fake.nextRefund('REJECTED');
    const r = await refund(id, { amount: 20 });
    expect(r.status).toBe(200);
    const refundId = r.body.refund_id as string;
    await refundWebhook(refundId, 'refund.failed');
    expect(await storedRefund(refundId)).toMatchObject({ status: 'failed', failure_reason: 'rejected_by_provider' });
    expect(await balance()).toBe(after);
    expect((await storedPayment(id)).refunded_minor ?? 0).toBe(0);
    await expectLedgerEqualsBalance(stack, merchant, 'PEN');
  });

  it('a send whose answer is lost: read back by our reference, one refund at dLocal, never a second', async () => {
    const id = await paid(70);
    const after = await balance();
    fake.failNext('refunds', { hangAfter: true });
    const r = await refund(id, { amount: 30 });
    const refundId = r.body.refund_id as string;
    const held = await heldAtDlocal(refundId);
    // The worker's send timed out: the refund stays pending, the money reserved.
    await until('the send timed out', () => Date.now() - fake.requests.filter((q) => q.path === '/refunds').at(-1)!.at > 2_000);
    expect((await storedRefund(refundId)).status).toBe('pending');
    expect(await balance()).toBe(after - 3_000);

    // The resume job asks again: read back (pending there), not sent again.
    await resume();
    await new Promise((res) => setTimeout(res, 1_000));
    expect(sentFor(refundId)).toBe(1);
    expect((await storedRefund(refundId)).status).toBe('pending');

    fake.setRefundStatus(held.id, 'SUCCESS');
    await resume();
    await until('refund settled', async () => (await storedRefund(refundId)).status === 'succeeded');
    expect(sentFor(refundId)).toBe(1);
    expect(fake.refundsFor(refundReferenceOf(refundId))).toHaveLength(1);
    expect(await balance()).toBe(after - 3_000);
    await expectLedgerEqualsBalance(stack, merchant, 'PEN');
  });

  it('a read-back with no answer sends nothing: pending until the resume job reads back and sends it', async () => {
    const id = await paid(60);
    fake.failNext('refund', { status: 503 }, 2);
    const r = await refund(id, { amount: 10 });
    const refundId = r.body.refund_id as string;
    // The read-back by our reference got no answer (retried once): nothing was sent.
    await until('read-back tried twice', () => readBacks(refundId) === 2);
    await new Promise((res) => setTimeout(res, 500));
    expect(readBacks(refundId)).toBe(2);
    expect(sentFor(refundId)).toBe(0);
    expect((await storedRefund(refundId)).status).toBe('pending');
    fake.nextRefund('SUCCESS');
    await resume();
    await until('refund settled', async () => (await storedRefund(refundId)).status === 'succeeded');
    expect(sentFor(refundId)).toBe(1);
  });

  it('a settlement delivered twice at once sends the refund once (one sender at a time, reading back under its claim)', async () => {
    const id = await paid(90);
    fake.failNext('refunds', { status: 503 });
    const r = await refund(id, { amount: 20 });
    const refundId = r.body.refund_id as string;
    await until('the first send answered 503', () => sentFor(refundId) === 1);
    await new Promise((res) => setTimeout(res, 300));
    fake.nextRefund('SUCCESS');
    fake.failNext('refund', { delayMs: 1_000 }, 3); // slow read-backs: the three deliveries all read back before any sends
    // The settlement message delivered three times at once (SQS delivers at least once).
    await Promise.all([1, 2, 3].map(() => settleRefund(paymentDeps(), refundId)));
    await resume();
    await until('refund settled', async () => (await storedRefund(refundId)).status === 'succeeded');
    expect(sentFor(refundId)).toBe(2); // the 503 and one more, never one per delivery
    expect(fake.refundsFor(refundReferenceOf(refundId))).toHaveLength(1);
    await expectLedgerEqualsBalance(stack, merchant, 'PEN');
  });

  // Paid by a bank or in cash, refunded to a bank account: the beneficiary is required and kept here masked; dLocal gets
  // the refund of its payment without it and asks the payer for their account. Chile has no payout method: its
  // refunds take a Chilean account on a refund-only rail (RUT), and reach dLocal as Peru's and Colombia's do.
  const BANK_REFUNDS = [
    {
      what: 'a PSE payment (pse, Colombia)',
      kind: 'pse',
      session: { amount: 60_000, currency: 'COP', country: 'COL' },
      customer: { name: 'Camila Rojas', email: 'camila@example.co', document: '1020304050' },
      dlocalMethod: 'PC',
      account: { document_type: 'CC', bank_code: '007', account_number: '12345678901', account_type: 'savings' },
    },
    {
      what: 'a Servipag ticket (cash, Chile)',
      kind: 'cash',
      session: { amount: 25_000, currency: 'CLP', country: 'CHL' },
      customer: { name: 'Josefa Muñoz', email: 'josefa@example.cl', document: '12.345.678-5' },
      dlocalMethod: 'SP',
      account: { document_type: 'RUT', bank_code: '012', account_number: '00123456789', account_type: 'checking' },
    },
    {
      what: 'a Webpay payment (bank_transfer, Chile)',
      kind: 'bank_transfer',
      session: { amount: 48_990, currency: 'CLP', country: 'CHL' },
      customer: { name: 'Josefa Muñoz', email: 'josefa@example.cl', document: '12.345.678-5' },
      dlocalMethod: 'WP',
      account: { document_type: 'RUT', bank_code: '037', account_number: '7012345678', account_type: 'savings' },
    },
  ] as const;

  it.each(BANK_REFUNDS)('$what is refunded to a bank account: a beneficiary required, then sent to dLocal without it', async (t) => {
    const api = payments(stack, merchant as TestMerchant);
    const currency = t.session.currency;
    const start = await balanceMinorOf(stack, merchant.apiKey, currency);
    const session = await api.createSession(t.session);
    const p = await api.process(session.body.session_id as string, t.kind, { customer: t.customer });
    expect(p.body).toMatchObject({ status: 'pending', payment_method: t.kind });
    const id = p.body.payment_id as string;
    expect(fake.payment(orderIdOf(id))!.request).toMatchObject({ payment_method_id: t.dlocalMethod });
    fake.setStatus(orderIdOf(id), 'PAID');
    expect((await fake.notify(orderIdOf(id))).status).toBe(200);
    expect((await storedPayment(id)).status).toBe('success');
    const before = await balanceMinorOf(stack, merchant.apiKey, currency);
    expect(before).toBeGreaterThan(start);

    // Without a beneficiary, or with a malformed account: 400 naming it, nothing written, nothing sent.
    const sentBefore = fake.requests.filter((q) => q.path === '/refunds').length;
    const none = await refund(id);
    expect(none.status).toBe(400);
    expect(none.body.error).toMatchObject({
      code: 'VALIDATION_ERROR',
      details: [
        expect.objectContaining({ field: 'beneficiary', message: expect.stringContaining('bank_code, account_number, account_type') }),
      ],
    });
    const beneficiary = { name: t.customer.name, document: t.customer.document, ...t.account };
    const bad = await refund(id, { beneficiary: { ...beneficiary, account_number: '12-34' } });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details.map((d: { field: string }) => d.field)).toEqual(['beneficiary.account_number']);
    expect(await paymentDeps().refunds.listByPayment(id)).toEqual([]);
    expect(await balanceMinorOf(stack, merchant.apiKey, currency)).toBe(before);

    fake.nextRefund('SUCCESS');
    const r = await refund(id, { beneficiary });
    expect(r.status).toBe(200);
    const refundId = r.body.refund_id as string;
    const acct = t.account.account_number;
    expect(r.body.beneficiary).toMatchObject({ name: t.customer.name, account_number: `${'*'.repeat(acct.length - 4)}${acct.slice(-4)}` });
    expect(r.text).not.toContain(acct);
    await refundWebhook(refundId, 'refund.succeeded');
    // dLocal gets the refund of its payment, exactly as a Peruvian one; the account stays with us (masked).
    expect(fake.refundsFor(refundReferenceOf(refundId))).toHaveLength(1);
    expect(sentFor(refundId)).toBe(1);
    expect(fake.requests.filter((q) => q.path === '/refunds').length).toBe(sentBefore + 1);
    const sent = fake.requests.find(
      (q) =>
        q.method === 'POST' &&
        q.path === '/refunds' &&
        (q.body as { order_refund_id?: string }).order_refund_id === refundReferenceOf(refundId),
    )?.body;
    expect(sent).toEqual({
      payment_id: fake.payment(orderIdOf(id))!.id,
      amount: t.session.amount,
      currency,
      notification_url: `${stack.baseUrl}/providers/dlocal/notifications`,
      order_refund_id: refundReferenceOf(refundId),
    });
    expect((await storedRefund(refundId)).beneficiary).toMatchObject({ account_number: r.body.beneficiary.account_number });
    await until('payment refunded', async () => (await storedPayment(id)).status === 'refunded');
    expect(await balanceMinorOf(stack, merchant.apiKey, currency)).toBe(start);
    await expectLedgerEqualsBalance(stack, merchant, currency);
  });

  it('a 5xx on the send leaves the refund pending; the settlement resume job sends it and settles it', async () => {
    const id = await paid(80);
    const after = await balance();
    fake.failNext('refunds', { status: 503 });
    const r = await refund(id, { amount: 25 });
    const refundId = r.body.refund_id as string;
    await until('the send answered 503', () => sentFor(refundId) === 1);
    await new Promise((res) => setTimeout(res, 300));
    expect((await storedRefund(refundId)).status).toBe('pending');
    expect(fake.refundsFor(refundReferenceOf(refundId))).toHaveLength(0);
    fake.nextRefund('SUCCESS');
    await resume();
    await until('refund settled', async () => (await storedRefund(refundId)).status === 'succeeded');
    await refundWebhook(refundId, 'refund.succeeded');
    expect(fake.refundsFor(refundReferenceOf(refundId))).toHaveLength(1);
    expect(await balance()).toBe(after - 2_500);
    await expectLedgerEqualsBalance(stack, merchant, 'PEN');
  });
});
