/**
 * Live cards routed between Adyen and dLocal (issue 42, DESIGN.md 9.2), over real HTTP on the local engines against
 * both fakes, with the document's rule `card.*: [adyen, dlocal]`: Adyen refusing connections, a card succeeds at
 * dLocal as attempt 2 (its refund goes to dLocal, its notification is read back and applied); dLocal not answering
 * and holding nothing, the payment succeeds at Adyen and the abandoned dLocal attempt, landing late, is refunded by
 * its watch while its notification moves nothing; a dLocal 3-D Secure payment is completed by dLocal's form POST to
 * our return route. Neither fake sees a request off our schemas; the live ledger equals the live balance.
 */
import { lateRefundId, reconcileHeldPayments } from '../../shared/application/rails';
import { breakers } from '../../shared/application/routing';
import { cardOrderIdOf } from '../../shared/adapters/providers/dlocal/dlocal.card-transformers';
import { refundReferenceOf } from '../../shared/adapters/providers/dlocal/dlocal.transformers';
import { paymentReferenceOf } from '../../shared/adapters/providers/adyen/adyen.transformers';
import { paymentDeps } from '../../shared/wiring';
import { startFakeAdyen, type FakeAdyen } from '../support/fake-adyen';
import { FAKE_CARDS, startFakeDlocal, type FakeDlocal } from '../support/fake-dlocal';
import { balanceMinorOf, expectLedgerEqualsBalance, startLiveStage, type LiveMerchant, type LiveStage } from '../support/live-stage';
import { customer } from '../support/payments';
import type { TestStack } from '../support/test-stack';

let adyen: FakeAdyen;
let dlocal: FakeDlocal;
let stack: TestStack;
let merchant: LiveMerchant;
let live: LiveStage;
const timeouts = { connect_ms: 1000, total_ms: 1500 };

beforeAll(async () => {
  process.env.REFUND_SETTLEMENT_DELAY_SECONDS = '0';
  [adyen, dlocal] = await Promise.all([startFakeAdyen({ hangMs: 5_000 }), startFakeDlocal({ hangMs: 5_000 })]);
  live = await startLiveStage(
    {
      adyen: adyen.adyenConfig({ timeouts }),
      dlocal: dlocal.dlocalConfig({ timeouts }),
      routing: { card: { '*': { providers: ['adyen', 'dlocal'] } } },
    },
    { merchantName: 'Loja Roteada' },
  );
  ({ stack, merchant } = live);
  adyen.setNotificationUrl(`${stack.baseUrl}/providers/adyen/notifications`);
});

beforeEach(() => breakers.reset());

afterEach(async () => {
  await adyen.refuseConnections(null);
  expect(adyen.violations).toEqual([]);
  expect(dlocal.violations).toEqual([]);
  await expectLedgerEqualsBalance(stack, merchant, 'BRL');
});

afterAll(async () => {
  await live?.stop();
  await Promise.all([adyen?.close(), dlocal?.close()]);
  delete process.env.REFUND_SETTLEMENT_DELAY_SECONDS;
});

const year = String(new Date().getUTCFullYear() + 3);
const direct = (number: string, over: Record<string, unknown> = {}) =>
  stack.request('/cashier/cashier/payment', {
    method: 'POST',
    apiKey: merchant.apiKey,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      payment_method: 'card',
      amount: 120,
      currency: 'BRL',
      country: 'BRA',
      customer,
      card: { number, holder_name: 'ANA SILVA', cvv: '737', expiry_month: '03', expiry_year: year },
      ...over,
    }),
  });
const stored = async (id: string) => (await paymentDeps().store.getPayment(id))!;
const balance = () => balanceMinorOf(stack, merchant.apiKey, 'BRL');
const createsAt = (orderId: string) =>
  dlocal.requests.filter((q) => q.path === '/secure_payments' && (q.body as { order_id?: string }).order_id === orderId);
async function until(what: string, cond: () => Promise<boolean> | boolean, timeoutMs = 15_000) {
  for (const end = Date.now() + timeoutMs; !(await cond()); await new Promise((r) => setTimeout(r, 50)))
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
}

describe('Adyen refusing connections', () => {
  it('the card succeeds at dLocal as attempt 2; its refund goes to dLocal; its notification is read back and applied', async () => {
    const before = await balance();
    await adyen.refuseConnections('closed');
    const r = await direct(FAKE_CARDS.approve);
    expect(r.status).toBe(200);
    const id = r.body.payment_id as string;
    expect(r.body).toMatchObject({
      status: 'success',
      provider_attempts: [
        { provider: 'adyen', outcome: 'failed', failure_code: 'provider_unreachable' },
        { provider: 'dlocal', outcome: 'succeeded' },
      ],
    });
    const orderId = cardOrderIdOf(id, 2);
    expect(await stored(id)).toMatchObject({ provider: { name: 'dlocal', reference: orderId, attempt: 2 } });
    expect(createsAt(orderId)[0]?.body).toMatchObject({
      payer: { document: customer.document, email: customer.email },
      notification_url: `${stack.baseUrl}/providers/dlocal/notifications`,
      callback_url: `${stack.baseUrl}/providers/dlocal/return/${id}`,
      card: { number: '****1111', capture: true },
    });
    expect(adyen.requests).toHaveLength(0);
    expect(await balance()).toBe(before + 12_000);

    // The refund goes to dLocal, by dLocal's id of the payment, read back first; dLocal's answer settles it.
    dlocal.nextRefund('SUCCESS');
    const refund = await stack.request(`/api/v1/payments/${id}/refunds`, {
      method: 'POST',
      apiKey: merchant.apiKey,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ amount: 30 }),
    });
    expect(refund.status).toBe(200);
    const refundId = refund.body.refund_id as string;
    await until('the refund at dLocal', () => dlocal.refundsFor(refundReferenceOf(refundId)).length > 0);
    expect(dlocal.refundsFor(refundReferenceOf(refundId))).toEqual([
      expect.objectContaining({ paymentId: dlocal.cards.byOrderId.get(orderId)!.id, amount: 30 }),
    ]);
    expect(adyen.refunds).toHaveLength(0);
    await until('the refund settled', async () => (await paymentDeps().refunds.get(refundId))?.status === 'succeeded');
    expect(await balance()).toBe(before + 9_000);

    // A card left pending at dLocal: its notification is read back (by the attempt's order id) and applied.
    const p = await direct(FAKE_CARDS.pending);
    const pid = p.body.payment_id as string;
    expect((await stored(pid)).status).toBe('processing');
    dlocal.cards.setStatus(cardOrderIdOf(pid, 2), 'PAID');
    expect(await dlocal.cards.notify(cardOrderIdOf(pid, 2))).toMatchObject({ status: 200 });
    expect(await stored(pid)).toMatchObject({ status: 'success', provider: { name: 'dlocal', attempt: 2 } });
    expect(await balance()).toBe(before + 21_000);
  });
});

describe('dLocal not answering and holding nothing', () => {
  it('the payment succeeds at Adyen; the dLocal attempt landing late is refunded by its watch, its notice moves nothing', async () => {
    live.writeProviders({
      adyen: adyen.adyenConfig({ timeouts }),
      dlocal: dlocal.dlocalConfig({ timeouts }),
      routing: { card: { '*': { providers: ['dlocal', 'adyen'] } } },
    });
    const before = await balance();
    dlocal.failNext('secure_payments', { hang: true });
    const r = await direct(FAKE_CARDS.approve);
    expect(r.status).toBe(200);
    const id = r.body.payment_id as string;
    expect(r.body.provider_attempts).toEqual([
      { provider: 'dlocal', outcome: 'failed', failure_code: 'provider_no_answer' },
      { provider: 'adyen', outcome: 'succeeded' },
    ]);
    expect(adyen.payment(paymentReferenceOf(id, 2))?.resultCode).toBe('Authorised');
    expect(await balance()).toBe(before + 12_000);

    // The abandoned attempt lands after all (a request still in flight): dLocal charges it.
    const late = cardOrderIdOf(id, 1);
    const sent = createsAt(late)[0]!.body as { card: Record<string, unknown> };
    dlocal.cards.create({ ...sent, card: { ...sent.card, number: FAKE_CARDS.approve, cvv: '737' } });
    // Its notification is the watch's, not the payment's: nothing moves here.
    expect(await dlocal.cards.notify(late)).toMatchObject({ status: 200 });
    expect(await stored(id)).toMatchObject({ status: 'success', provider: { name: 'adyen', attempt: 2 } });

    dlocal.nextRefund('SUCCESS');
    const result = await reconcileHeldPayments(paymentDeps(), new Date(Date.now() + 120_000));
    expect(result).toMatchObject({ watched: 1, undone: 1 });
    const pspReference = dlocal.cards.byOrderId.get(late)!.id;
    expect(dlocal.refundsFor(refundReferenceOf(lateRefundId(late, pspReference)))).toEqual([
      expect.objectContaining({ paymentId: pspReference, amount: 120 }),
    ]);
    // Read again later: nothing is sent twice.
    await reconcileHeldPayments(paymentDeps(), new Date(Date.now() + 400_000));
    expect(dlocal.refundsFor(refundReferenceOf(lateRefundId(late, pspReference)))).toHaveLength(1);
    expect(await balance()).toBe(before + 12_000);
  });
});

describe('dLocal 3-D Secure', () => {
  it('pending_3ds with dLocal’s page as redirect_url; dLocal’s form POST to our return route reads it back and completes it', async () => {
    live.writeProviders({
      adyen: adyen.adyenConfig({ timeouts }),
      dlocal: dlocal.dlocalConfig({ timeouts }),
      routing: { card: { '*': { providers: ['dlocal', 'adyen'] } } },
    });
    const before = await balance();
    const r = await direct(FAKE_CARDS.threeDs, { return_url: 'https://shop.example.com/done' });
    expect(r.status).toBe(200);
    const id = r.body.payment_id as string;
    const orderId = cardOrderIdOf(id, 1);
    const held = dlocal.cards.byOrderId.get(orderId)!;
    expect(r.body).toMatchObject({ status: 'pending_3ds', redirect_url: `${dlocal.baseUrl}/3ds/${held.id}` });
    expect(adyen.requests.filter((q) => (q.body as { reference?: string }).reference?.startsWith(paymentReferenceOf(id)))).toEqual([]);

    // The shopper authenticates (the issuer's page; its notification is left out: the return decides).
    dlocal.cards.setStatus(orderId, 'PAID');
    const form = new URLSearchParams({ paymentId: held.id, status: 'APPROVED', date: new Date().toISOString(), signature: 'x' });
    const back = await fetch(`${stack.baseUrl}/providers/dlocal/return/${id}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: form.toString(),
      redirect: 'manual',
    });
    expect(back.status).toBe(303);
    expect(back.headers.get('location')).toBe(`https://shop.example.com/done?payment_id=${id}&status=success`);
    expect(await stored(id)).toMatchObject({ status: 'success', provider: { name: 'dlocal', details: { psp_reference: held.id } } });
    expect(await balance()).toBe(before + 12_000);

    // A forged return for a payment dLocal declined: the read-back decides, not the form.
    const f = await direct(FAKE_CARDS.threeDs);
    const fid = f.body.payment_id as string;
    dlocal.cards.setStatus(cardOrderIdOf(fid, 1), 'REJECTED', '300');
    const forged = new URLSearchParams({ paymentId: 'x', status: 'APPROVED' }).toString();
    await fetch(`${stack.baseUrl}/providers/dlocal/return/${fid}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: forged,
      redirect: 'manual',
    });
    expect(await stored(fid)).toMatchObject({ status: 'failed', failure_code: 'CARD_DECLINED' });
    expect(await balance()).toBe(before + 12_000);
  });
});
