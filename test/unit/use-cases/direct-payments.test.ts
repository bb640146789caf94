/**
 * Direct payments (PIX, card with and without 3DS), completion, the sandbox simulator and expiry, run against
 * the in-memory ports: what the merchant observes is the stored payment, its events (published once, in
 * order, dispatched to the delivery queue) and its balance with the ledger entry that explains it.
 */
import { completePayment, expireDue, getPaymentStatus } from '../../../shared/application/payments';
import { createDirectPayment } from '../../../shared/application/payins';
import type { Principal } from '../../../shared/application/access';
import type { PaymentDeps } from '../../../shared/application/ports';
import {
  balanceOf,
  CARDS,
  card,
  directInput,
  errorCode,
  ledgerOf,
  ledgerSum,
  memoryMerchant,
  memoryPaymentDeps,
  memoryWorld,
  publishedOf,
  type MemoryWorld,
} from '../../support/in-memory';

let w: MemoryWorld;
let deps: PaymentDeps;
let principal: Principal;
let merchantId: string;
let n = 0;
const newPaymentId = () => `pi_direct${String(++n).padStart(20, '0')}`;

beforeEach(async () => {
  w = memoryWorld();
  deps = memoryPaymentDeps(w);
  ({ principal } = await memoryMerchant(w));
  merchantId = principal.merchant.merchant_id;
});

const direct = (over: Record<string, unknown> = {}, id = newPaymentId()) =>
  createDirectPayment(deps, principal, directInput(over), id).then(() => id);
const stored = async (id: string) => (await deps.store.getPayment(id))!;

describe('PIX', () => {
  it('is created pending with its BR Code, payable for 30 minutes, without an event or a credit', async () => {
    const id = await direct();
    const p = await stored(id);
    expect(p).toMatchObject({ status: 'pending', payment_method: 'pix', method_code: 'svc-mt-1', amount_minor: 2500, currency: 'BRL' });
    expect(p.artefact?.pix_code).toMatch(/^000201/);
    expect(p.expires_at).toBe(new Date(w.clock.now().getTime() + 30 * 60_000).toISOString());
    expect(p.customer.document_masked).not.toContain('52998224725');
    expect(publishedOf(w)).toEqual([]);
    expect(balanceOf(w, merchantId)).toBe(0);
  });

  it('paid (sandbox simulate): success, payment.success once, balance credited with one ledger entry', async () => {
    const id = await direct();
    expect((await completePayment(deps, id, 'success', principal)).status).toBe('success');
    expect((await stored(id)).paid_at).toBe(w.clock.iso());
    expect(publishedOf(w)).toEqual([['payment.success', id]]);
    expect(balanceOf(w, merchantId)).toBe(2500);
    expect(ledgerOf(w, merchantId)).toEqual([['payment', 2500, id]]);
    // A second simulate (double click, retried request) changes nothing.
    expect((await completePayment(deps, id, 'success', principal)).status).toBe('success');
    expect(publishedOf(w)).toHaveLength(1);
    expect(balanceOf(w, merchantId)).toBe(2500);
  });

  it('the event reaches the delivery queue at once and leaves the outbox, with the payment in its payload', async () => {
    const id = await direct({ reference_id: 'order-77', metadata: { k: 'v' } });
    await completePayment(deps, id, 'success', principal);
    const [event] = w.publisher.events;
    expect(event!.payload).toMatchObject({
      event: 'payment.success',
      event_id: event!.event_id,
      payment_id: id,
      merchant_id: merchantId,
      reference_id: 'order-77',
      status: 'success',
      amount: 25,
      currency: 'BRL',
      metadata: { k: 'v' },
    });
    expect(w.queue.sent.map((m) => m.message)).toEqual([{ event_id: event!.event_id, attempt: 0 }]);
    expect(await w.stores.events.get(event!.event_id)).toMatchObject({ delivery_status: 'pending', attempts: [] });
  });

  it('failed by the simulator: failed with a failure code, payment.failed, nothing credited; then it cannot succeed', async () => {
    const id = await direct();
    await completePayment(deps, id, 'failed', principal);
    expect(await stored(id)).toMatchObject({ status: 'failed', failure_code: 'CARD_DECLINED' });
    expect(publishedOf(w)).toEqual([['payment.failed', id]]);
    expect(await errorCode(completePayment(deps, id, 'success', principal))).toBe('PAYMENT_STATE_CONFLICT');
    expect(balanceOf(w, merchantId)).toBe(0);
  });

  it('expires once when read after its expiry; the expiry job then finds nothing due', async () => {
    const id = await direct();
    w.clock.advanceMinutes(30);
    expect((await getPaymentStatus(deps, principal, merchantId, id)).status).toBe('expired');
    expect((await getPaymentStatus(deps, principal, merchantId, id)).status).toBe('expired');
    expect(publishedOf(w)).toEqual([['payment.expired', id]]);
    expect(await deps.store.dueForExpiry(w.clock.iso(), 10)).toEqual([]);
    expect(await errorCode(completePayment(deps, id, 'success', principal))).toBe('PAYMENT_STATE_CONFLICT');
  });

  it('the expiry job expires due payments from the work index and leaves payments not yet due', async () => {
    const due = await direct();
    w.clock.advanceMinutes(10);
    const later = await direct();
    w.clock.advanceMinutes(21);
    expect(await expireDue(deps, w.clock.now())).toEqual({ due: 1, expired: 1 });
    expect((await stored(due)).status).toBe('expired');
    expect((await stored(later)).status).toBe('pending');
    expect(await expireDue(deps, w.clock.now())).toEqual({ due: 0, expired: 0 });
  });

  it('one second before its expiry it can still be paid', async () => {
    const id = await direct();
    w.clock.advanceSeconds(30 * 60 - 1);
    expect((await completePayment(deps, id, 'success', principal)).status).toBe('success');
  });
});

describe('card', () => {
  it('approved: success at once, payment.success, credited', async () => {
    const id = await direct({ payment_method: 'card', card: card(CARDS.approve) });
    expect(await stored(id)).toMatchObject({ status: 'success', card: { brand: 'visa', last_four: '4242' }, expires_at: null });
    expect((await stored(id)).authorization_code).toBeTruthy();
    expect(publishedOf(w)).toEqual([['payment.success', id]]);
    expect(ledgerOf(w, merchantId)).toEqual([['payment', 2500, id]]);
  });

  it('declined: the error names the decline and the payment, which is stored failed with payment.failed', async () => {
    const id = newPaymentId();
    await expect(
      createDirectPayment(deps, principal, directInput({ payment_method: 'card', card: card(CARDS.decline) }), id),
    ).rejects.toMatchObject({
      code: 'CARD_DECLINED',
      paymentId: id,
    });
    expect(await stored(id)).toMatchObject({ status: 'failed', failure_code: 'CARD_DECLINED' });
    expect(publishedOf(w)).toEqual([['payment.failed', id]]);
    expect(balanceOf(w, merchantId)).toBe(0);
  });

  it('3DS: pending_3ds with a challenge page; authenticated -> success, credited once', async () => {
    const id = await direct({ payment_method: 'card', card: card(CARDS.threeDs) });
    expect(await stored(id)).toMatchObject({ status: 'pending_3ds', redirect_url: `https://pay.example.test/sandbox/3ds/${id}` });
    expect(publishedOf(w)).toEqual([['payment.pending_3ds', id]]);
    await completePayment(deps, id, 'success');
    expect(await stored(id)).toMatchObject({ status: 'success', expires_at: null });
    expect(publishedOf(w, id).map(([t]) => t)).toEqual(['payment.pending_3ds', 'payment.success']);
    expect(balanceOf(w, merchantId)).toBe(2500);
  });

  it('3DS not authenticated: failed with AUTHENTICATION_FAILED', async () => {
    const id = await direct({ payment_method: 'card', card: card(CARDS.threeDs) });
    await completePayment(deps, id, 'failed');
    expect(await stored(id)).toMatchObject({ status: 'failed', failure_code: 'AUTHENTICATION_FAILED' });
    expect(publishedOf(w, id).map(([t]) => t)).toEqual(['payment.pending_3ds', 'payment.failed']);
  });

  it('two completions racing: both answer success, one event, one credit', async () => {
    const id = await direct({ payment_method: 'card', card: card(CARDS.threeDs) });
    const [a, b] = await Promise.all([completePayment(deps, id, 'success'), completePayment(deps, id, 'success')]);
    expect([a.status, b.status]).toEqual(['success', 'success']);
    expect(publishedOf(w, id).map(([t]) => t)).toEqual(['payment.pending_3ds', 'payment.success']);
    expect(ledgerOf(w, merchantId)).toEqual([['payment', 2500, id]]);
  });
});

describe('keyed retries and refusals', () => {
  it('the same payment id twice (a retry after a crash) answers with the stored payment and writes nothing new', async () => {
    const id = await direct({ payment_method: 'card', card: card(CARDS.approve) });
    const commits = w.table.commits;
    const again = await createDirectPayment(deps, principal, directInput({ payment_method: 'card', card: card(CARDS.approve) }), id);
    expect(again.payment_id).toBe(id);
    expect(w.table.commits).toBe(commits);
    expect(publishedOf(w)).toHaveLength(1);
    expect(balanceOf(w, merchantId)).toBe(2500);
    expect(balanceOf(w, merchantId)).toBe(ledgerSum(w, merchantId));
  });

  it.each([
    [
      'a country the merchant has not enabled',
      { country: 'MEX', currency: 'MXN', customer: { name: 'Juan', email: 'j@x.mx', document: 'GODE561231HDFRRN00' } },
      'COUNTRY_NOT_SUPPORTED',
    ],
    ['an amount above the PIX maximum', { amount: 100_001 }, 'AMOUNT_LIMIT_EXCEEDED'],
    [
      'PIX outside Brazil',
      { payment_method: 'pix', country: 'PER', currency: 'PEN', customer: { name: 'Rosa', email: 'r@x.pe', document: '12345678' } },
      'METHOD_NOT_AVAILABLE',
    ],
    ['an invalid CPF', { customer: { name: 'Ana', email: 'a@b.co', document: '52998224724' } }, 'VALIDATION_ERROR'],
    ['a private notification_url', { notification_url: 'http://10.0.0.1/hook' }, 'VALIDATION_ERROR'],
  ])('%s is refused before anything is written', async (_, over, code) => {
    if (code === 'COUNTRY_NOT_SUPPORTED') {
      ({ principal } = await memoryMerchant(w, { countries: ['BRA'] }));
    }
    expect(await errorCode(direct(over))).toBe(code);
    expect(w.table.payments.size).toBe(0);
    expect(publishedOf(w)).toEqual([]);
  });

  it('a live key has no live provider yet: METHOD_NOT_AVAILABLE', async () => {
    const live = (await memoryMerchant(w, {}, 'live')).principal;
    expect(await errorCode(createDirectPayment(deps, live, directInput(), newPaymentId()))).toBe('METHOD_NOT_AVAILABLE');
  });

  it('another merchant cannot read or complete the payment', async () => {
    const id = await direct();
    const other = (await memoryMerchant(w)).principal;
    expect(await errorCode(getPaymentStatus(deps, other, other.merchant.merchant_id, id))).toBe('PAYMENT_NOT_FOUND');
    expect(await errorCode(getPaymentStatus(deps, principal, other.merchant.merchant_id, id))).toBe('PAYMENT_NOT_FOUND');
    expect(await errorCode(completePayment(deps, id, 'success', other))).toBe('PAYMENT_NOT_FOUND');
    expect((await stored(id)).status).toBe('pending');
  });

  it('stored state cannot be changed through a returned object', async () => {
    const id = await direct();
    const p = (await deps.store.getPayment(id)) as { status: string; customer: { name: string } };
    p.status = 'success';
    p.customer.name = 'Mallory';
    expect(await stored(id)).toMatchObject({ status: 'pending', customer: { name: 'Ana Silva' } });
  });
});
