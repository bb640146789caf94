/**
 * Chargebacks of live card payments through Adyen's dispute notifications (issue 23), over real HTTP on the local
 * engines against the fake Adyen: CHARGEBACK debits the balance with a `chargeback` entry and sends
 * payment.disputed; CHARGEBACK_REVERSED credits it back (`chargeback_reversal`, payment.dispute_won); a second
 * chargeback ends it lost (payment.dispute_lost). Replayed, forged, out-of-order and early notices, another currency,
 * an AUTHORISATION for another amount, and the notification log. After every case the live ledger equals the balance.
 */
import { randomBytes } from 'node:crypto';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { paymentReferenceOf } from '../../shared/adapters/providers/adyen/adyen.transformers';
import { providerNotificationEntity } from '../../shared/adapters/dynamodb/entities/provider-notification.entity';
import { documentClient } from '../../shared/adapters/aws-clients';
import { tableName } from '../../shared/wiring/repositories';
import { paymentDeps } from '../../shared/wiring';
import { startFakeAdyen, type FakeAdyen } from '../support/fake-adyen';
import { verifyWebhook } from '../support/merchant-verify';
import { customer } from '../support/payments';
import { expectLedgerEqualsBalance, balanceMinorOf, startLiveStage, type LiveMerchant, type LiveStage } from '../support/live-stage';
import type { Receiver } from '../support/receiver';
import type { TestStack } from '../support/test-stack';

let adyen: FakeAdyen;
let stack: TestStack;
let receiver: Receiver;
let merchant: LiveMerchant;
let live: LiveStage;

beforeAll(async () => {
  adyen = await startFakeAdyen();
  live = await startLiveStage({ adyen: adyen.adyenConfig() }, { merchantName: 'Loja Disputas', receiver: true });
  ({ stack, receiver, merchant } = live);
  adyen.setNotificationUrl(`${stack.baseUrl}/providers/adyen/notifications`);
});

afterEach(async () => {
  expect(adyen.violations).toEqual([]);
  await ledgerEqualsBalance();
});

afterAll(async () => {
  await live?.stop();
  await adyen?.close();
});

const year = String(new Date().getUTCFullYear() + 3);
const card = { number: '4111111145551142', holder_name: 'ANA SILVA', cvv: '737', expiry_month: '03', expiry_year: year };
async function paidCard(amount = 100, apiKey = merchant.apiKey): Promise<string> {
  const r = await stack.request('/cashier/cashier/payment', {
    method: 'POST',
    apiKey,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ payment_method: 'card', amount, currency: 'BRL', country: 'BRA', customer, card }),
  });
  expect(r.body).toMatchObject({ status: 'success' });
  return r.body.payment_id as string;
}
const balance = (apiKey = merchant.apiKey) => balanceMinorOf(stack, apiKey, 'BRL');
const ledgerEqualsBalance = (m: { merchantId: string; apiKey: string } = merchant) => expectLedgerEqualsBalance(stack, m, 'BRL');
/** A dispute notice for a payment: its own pspReference (the case), the payment's as originalReference. */
function notice(
  paymentId: string,
  eventCode: string,
  extra: Record<string, string> = {},
  caseRef = 'DSP' + randomBytes(7).toString('hex').toUpperCase().slice(0, 13),
) {
  const ref = paymentReferenceOf(paymentId);
  const p = adyen.payment(ref);
  return adyen.item({
    eventCode,
    merchantReference: ref,
    pspReference: caseRef,
    ...(p ? { originalReference: p.pspReference } : {}),
    additionalData: { chargebackReasonCode: '10.4', ...extra },
  });
}
const status = (id: string) => stack.request(`/cashier/cashier/status/${merchant.merchantId}/${id}`, { apiKey: merchant.apiKey });
const hook = async (id: string, event: string) => {
  const [h] = await receiver.waitFor(1, 15_000, (r) => r.body?.event === event && r.body?.payment_id === id);
  expect(verifyWebhook(h!.rawBody, h!.headers as Record<string, string>, merchant.webhookSecret).ok).toBe(true);
  return h!.body as Record<string, unknown>;
};
const hooksFor = (id: string) => receiver.received.filter((r) => r.body?.payment_id === id).map((r) => r.body?.event as string);
async function transactions(type: string) {
  const r = await stack.request(`/api/v1/balance/transactions?type=${type}&currency=BRL`, { apiKey: merchant.apiKey });
  expect(r.status).toBe(200);
  return r.body.data as Array<{ type: string; amount: number; source_id: string; description: string }>;
}

describe('chargebacks of live card payments', () => {
  it('chargeback, reversal, second chargeback: each moves the balance once, with its entry type and signed webhook', async () => {
    const id = await paidCard(100);
    const before = await balance();
    const caseRef = 'DSPCASE' + randomBytes(5).toString('hex').toUpperCase().slice(0, 9);

    const cb = notice(id, 'CHARGEBACK', { disputeStatus: 'Undefended' }, caseRef);
    expect(await adyen.notify([cb])).toEqual({ status: 200, body: '[accepted]' });
    expect(await balance()).toBe(before - 10000);
    const disputed = await hook(id, 'payment.disputed');
    expect(disputed).toMatchObject({ status: 'success', dispute: { status: 'open', amount: 100, currency: 'BRL', reason_code: '10.4' } });
    expect((await status(id)).body).toMatchObject({ status: 'success', dispute: { status: 'open', amount: 100, closed_at: null } });
    expect(await transactions('chargeback')).toEqual([expect.objectContaining({ type: 'chargeback', amount: -100, source_id: id })]);

    // A refund now would pay the shopper twice: refused, nothing written.
    const refund = await stack.request(`/api/v1/payments/${id}/refunds`, {
      method: 'POST',
      apiKey: merchant.apiKey,
      headers: { 'content-type': 'application/json', 'x-idempotency-key': `rf-${id}` },
      body: JSON.stringify({}),
    });
    expect(refund.status).toBe(409);
    expect(JSON.stringify(refund.body)).toContain('disputed');
    expect((await paymentDeps().refunds.listByPayment(id)).length).toBe(0);

    // The same notice again (Adyen's retry): recognised by pspReference + eventCode, nothing moves.
    expect(await adyen.notify([cb])).toEqual({ status: 200, body: '[accepted]' });
    expect(await balance()).toBe(before - 10000);

    expect(await adyen.notify([notice(id, 'CHARGEBACK_REVERSED', { disputeStatus: 'Won' }, caseRef)])).toEqual({
      status: 200,
      body: '[accepted]',
    });
    expect(await balance()).toBe(before);
    expect(await hook(id, 'payment.dispute_won')).toMatchObject({ dispute: { status: 'won' } });
    expect(await transactions('chargeback_reversal')).toEqual([expect.objectContaining({ amount: 100, source_id: id })]);

    expect(await adyen.notify([notice(id, 'SECOND_CHARGEBACK', { disputeStatus: 'Lost' }, caseRef)])).toEqual({
      status: 200,
      body: '[accepted]',
    });
    expect(await balance()).toBe(before - 10000);
    const lost = await hook(id, 'payment.dispute_lost');
    expect(lost).toMatchObject({ dispute: { status: 'lost', closed_at: expect.any(String) } });
    expect((await transactions('chargeback')).filter((t) => t.source_id === id)).toHaveLength(2);

    // Lost is final: a late reversal moves nothing.
    expect(await adyen.notify([notice(id, 'PREARBITRATION_WON', {}, caseRef)])).toEqual({ status: 200, body: '[accepted]' });
    expect(await balance()).toBe(before - 10000);
    await new Promise((r) => setTimeout(r, 300));
    expect(hooksFor(id).filter((e) => e.startsWith('payment.dispute'))).toEqual([
      'payment.disputed',
      'payment.dispute_won',
      'payment.dispute_lost',
    ]);
  });

  it('a reversal before its chargeback: both movements (net zero) and both events; the late chargeback moves nothing', async () => {
    const id = await paidCard(40);
    const before = await balance();
    const caseRef = 'DSPOOO' + randomBytes(5).toString('hex').toUpperCase().slice(0, 10);
    expect((await adyen.notify([notice(id, 'CHARGEBACK_REVERSED', {}, caseRef)])).status).toBe(200);
    expect(await balance()).toBe(before);
    await hook(id, 'payment.dispute_won');
    expect((await transactions('chargeback')).filter((t) => t.source_id === id)).toHaveLength(1);
    expect((await transactions('chargeback_reversal')).filter((t) => t.source_id === id)).toHaveLength(1);
    expect((await adyen.notify([notice(id, 'CHARGEBACK', {}, caseRef)])).status).toBe(200);
    expect(await balance()).toBe(before);
    expect((await status(id)).body.dispute).toMatchObject({ status: 'won' });
  });

  it('a chargeback of a refunded payment takes the balance below zero (the money left twice); ledger = balance', async () => {
    const created = await stack.admin.createMerchant({ name: 'Loja Negativa' });
    const key = await stack.admin.createKey(created.merchant.merchant_id, 'live');
    const m = { merchantId: created.merchant.merchant_id, apiKey: key.secret };
    const id = await paidCard(50, m.apiKey);
    const refund = await stack.request(`/api/v1/payments/${id}/refunds`, {
      method: 'POST',
      apiKey: m.apiKey,
      headers: { 'content-type': 'application/json', 'x-idempotency-key': `rf-${id}` },
      body: JSON.stringify({}),
    });
    expect(refund.status).toBeLessThan(300);
    await ledgerEqualsBalance(m);
    expect(await balance(m.apiKey)).toBe(0);
    expect((await adyen.notify([notice(id, 'CHARGEBACK', { disputeStatus: 'Accepted' })])).status).toBe(200);
    expect(await balance(m.apiKey)).toBe(-5000);
    await ledgerEqualsBalance(m);
    const stored = await paymentDeps().store.getPayment(id);
    expect(stored?.dispute).toMatchObject({ status: 'lost', stage: 1, amount_minor: 5000 });
  });

  it('forged, for another currency, or before the payment is paid: nothing moves (mismatch recorded; early one resent)', async () => {
    const id = await paidCard(30);
    const before = await balance();
    const ref = paymentReferenceOf(id);
    const forged = adyen.item({ eventCode: 'CHARGEBACK', merchantReference: ref, pspReference: 'DSPFORGED0000001' }, 'forged');
    expect((await adyen.notify([forged])).status).toBe(200);
    const usd = adyen.item({
      eventCode: 'CHARGEBACK',
      merchantReference: ref,
      pspReference: 'DSPUSD0000000001',
      amount: { currency: 'USD', value: 3000 },
    });
    expect((await adyen.notify([usd])).status).toBe(200);
    expect(await balance()).toBe(before);
    expect((await status(id)).body.dispute).toBeUndefined();
    const logged = await documentClient().send(
      new GetCommand({ TableName: tableName(), Key: providerNotificationEntity.key('adyen', 'DSPUSD0000000001:CHARGEBACK') }),
    );
    expect(logged.Item).toMatchObject({ outcome: 'mismatch', record: { event_code: 'CHARGEBACK', currency: 'USD' } });
    expect(JSON.stringify(logged.Item)).not.toContain('hmacSignature');

    // A chargeback of a payment whose own outcome has not arrived: not acknowledged, so Adyen sends it again.
    adyen.nextCard({ resultCode: 'Pending' });
    const pending = await stack.request('/cashier/cashier/payment', {
      method: 'POST',
      apiKey: merchant.apiKey,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ payment_method: 'card', amount: 20, currency: 'BRL', country: 'BRA', customer, card }),
    });
    const pid = pending.body.payment_id as string;
    expect(pending.body.status).not.toBe('success');
    const early = notice(pid, 'CHARGEBACK', {}, 'DSPEARLY00000001');
    expect((await adyen.notify([early])).status).toBe(409);
    const auth = adyen.item({ eventCode: 'AUTHORISATION', merchantReference: paymentReferenceOf(pid) });
    expect((await adyen.notify([auth])).status).toBe(200);
    const paid = await balance();
    expect(await adyen.notify([early])).toEqual({ status: 200, body: '[accepted]' });
    expect(await balance()).toBe(paid - 2000);
  });

  it('an AUTHORISATION for another amount settles nothing and is recorded on the payment as a mismatch', async () => {
    adyen.nextCard({ resultCode: 'Pending' });
    const r = await stack.request('/cashier/cashier/payment', {
      method: 'POST',
      apiKey: merchant.apiKey,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ payment_method: 'card', amount: 75, currency: 'BRL', country: 'BRA', customer, card }),
    });
    const id = r.body.payment_id as string;
    const before = await balance();
    const auth = adyen.item({
      eventCode: 'AUTHORISATION',
      merchantReference: paymentReferenceOf(id),
      amount: { currency: 'BRL', value: 100 },
    });
    expect(await adyen.notify([auth])).toEqual({ status: 200, body: '[accepted]' });
    const stored = await paymentDeps().store.getPayment(id);
    expect(stored).toMatchObject({ status: 'processing', provider_mismatch_minor: 100 });
    expect(await balance()).toBe(before);
  });
});
