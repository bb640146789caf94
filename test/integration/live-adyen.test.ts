/**
 * Live cards through Adyen (issue 23), over real HTTP on the local engines against the fake Adyen (HTTPS, X-API-Key,
 * Idempotency-Key, every request checked against our schemas of Checkout v71): approved, each decline, 3-D Secure
 * by redirect and the details call, notifications (signed, forged, replayed, out of order), a timeout cancelled by
 * reference. After every case the live ledger equals the live balance, in BRL and in MXN (OXXO).
 */
import { reconcileHeldPayments } from '../../shared/application/rails';
import { paymentReferenceOf, refundReferenceOf } from '../../shared/adapters/providers/adyen/adyen.transformers';
import { paymentDeps } from '../../shared/wiring';
import { startFakeAdyen, type FakeAdyen } from '../support/fake-adyen';
import type { TestStack } from '../support/test-stack';
import { expectLedgerEqualsBalance, balanceMinorOf, startLiveStage, type LiveMerchant, type LiveStage } from '../support/live-stage';
import { customer } from '../support/payments';
import { SESSION_BODY } from '../support/sample-data';

let adyen: FakeAdyen;
let stack: TestStack;
let merchant: LiveMerchant;
let live: LiveStage;
const CANCEL_AFTER = 600;
const adyenProviders = () => ({
  adyen: adyen.adyenConfig({ timeouts: { connect_ms: 1000, total_ms: 1500 }, cancel_after_seconds: CANCEL_AFTER }),
});

beforeAll(async () => {
  adyen = await startFakeAdyen({ hangMs: 5_000 });
  process.env.REFUND_SETTLEMENT_DELAY_SECONDS = '0';
  live = await startLiveStage(adyenProviders(), { merchantName: 'Loja Cartão' });
  ({ stack, merchant } = live);
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

const mexican = { name: 'Juana Pérez', email: 'juana@example.com', document: 'BOXW310820HNERXN09' };
const year = String(new Date().getUTCFullYear() + 3);
const card = (over: Record<string, unknown> = {}) => ({
  number: '4111111145551142',
  holder_name: 'ANA SILVA',
  cvv: '737',
  expiry_month: '03',
  expiry_year: year,
  ...over,
});
const direct = (over: Record<string, unknown> = {}) =>
  stack.request('/cashier/cashier/payment', {
    method: 'POST',
    apiKey: merchant.apiKey,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ payment_method: 'card', amount: 120, currency: 'BRL', country: 'BRA', customer, card: card(), ...over }),
  });
const status = (id: string) => stack.request(`/cashier/cashier/status/${merchant.merchantId}/${id}`, { apiKey: merchant.apiKey });
const liveBalance = (currency = 'BRL') => balanceMinorOf(stack, merchant.apiKey, currency);
/** The live ledger's sum equals the live balance, in BRL and in MXN (OXXO). */
async function ledgerEqualsBalance() {
  for (const currency of ['BRL', 'MXN']) await expectLedgerEqualsBalance(stack, merchant, currency);
}
/** The stored payment (the status route does not show failure_code; the stored one is what webhooks carry). */
const stored = async (id: string) =>
  (await paymentDeps().store.getPayment(id)) as NonNullable<Awaited<ReturnType<ReturnType<typeof paymentDeps>['store']['getPayment']>>>;
const later = (seconds: number) => new Date(Date.now() + seconds * 1000);
const lastPaymentRequest = () => [...adyen.requests].reverse().find((r) => r.path === '/payments');

describe('live cards through Adyen', () => {
  it('approved: intent, then /payments in minor units with our reference; success and credit; a later AUTHORISATION: no-op', async () => {
    const before = await liveBalance();
    const r = await direct({ amount: 120.5, card: card({ installments: 3 }) });
    expect(r.status).toBe(200);
    const id = r.body.payment_id as string;
    expect(r.body).toMatchObject({ status: 'success', payment_method: 'card' });
    expect(JSON.stringify(r.body)).not.toContain('4111111145551142');
    const kept = JSON.stringify(await stored(id));
    expect(kept).not.toContain('4111111145551142');
    expect(kept).not.toContain('"737"');
    expect((await stored(id)).card).toEqual({ brand: 'visa', last_four: '1142' });
    const sent = lastPaymentRequest();
    expect(sent?.body).toMatchObject({
      reference: paymentReferenceOf(id),
      amount: { currency: 'BRL', value: 12050 },
      paymentMethod: { type: 'scheme' },
      installments: { value: 3 },
      channel: 'Web',
      merchantAccount: adyen.merchantAccount,
    });
    expect(sent?.headers['idempotency-key']).toBe(`payment-${paymentReferenceOf(id)}`);
    expect(sent?.headers['x-api-key']).toBe(adyen.apiKey);
    expect(await liveBalance()).toBe(before + 12050);

    const n = await adyen.notify([adyen.item({ eventCode: 'AUTHORISATION', merchantReference: paymentReferenceOf(id) })]);
    expect(n).toEqual({ status: 200, body: '[accepted]' });
    expect(await liveBalance()).toBe(before + 12050);
  });

  it.each([
    ['12', 'insufficient_funds', 'INSUFFICIENT_FUNDS'],
    ['6', 'expired_card', 'EXPIRED_CARD'],
    ['24', 'incorrect_cvc', 'INCORRECT_CVC'],
    ['11', 'authentication_failed', 'AUTHENTICATION_FAILED'],
    ['2', 'card_declined', 'CARD_DECLINED'],
    ['20', 'card_declined', 'CARD_DECLINED'],
  ])('Refused with refusalReasonCode %s answers %s and the payment fails with it', async (code, direct_code, failure) => {
    const before = await liveBalance();
    adyen.nextCard({ resultCode: 'Refused', refusalReasonCode: code });
    const r = await direct();
    expect(r.status).toBe(422);
    expect(r.body.error_code).toBe(direct_code);
    const id = r.body.payment_id as string;
    expect(await stored(id)).toMatchObject({ status: 'failed', failure_code: failure });
    expect(await liveBalance()).toBe(before);
  });

  it('3-D Secure: pending_3ds with our redirect_url forwarding to the action; the return calls /payments/details and settles', async () => {
    const before = await liveBalance();
    adyen.nextCard({ resultCode: 'RedirectShopper' });
    const r = await direct({ return_url: 'https://shop.example.com/done' });
    expect(r.status).toBe(200);
    const id = r.body.payment_id as string;
    expect(r.body).toMatchObject({ status: 'pending_3ds' });
    const redirectUrl = r.body.redirect_url as string;
    expect(redirectUrl).toBe(`${stack.baseUrl}/providers/adyen/3ds/${id}`);
    const forward = await fetch(redirectUrl, { redirect: 'manual' });
    expect(forward.status).toBe(303);
    expect(forward.headers.get('location')).toBe(`${adyen.baseUrl.replace('/v71', '')}/hpp/3ds/${paymentReferenceOf(id)}`);
    expect(lastPaymentRequest()?.body).toMatchObject({ returnUrl: `${stack.baseUrl}/providers/adyen/return/${id}` });

    const result = adyen.authenticate(paymentReferenceOf(id), true);
    const back = await fetch(`${stack.baseUrl}/providers/adyen/return/${id}?redirectResult=${encodeURIComponent(result)}`, {
      redirect: 'manual',
    });
    expect(back.status).toBe(303);
    // As after the sandbox's 3-D Secure page: the return_url with the payment's id and status.
    expect(back.headers.get('location')).toBe(`https://shop.example.com/done?payment_id=${id}&status=success`);
    expect((await status(id)).body).toMatchObject({ status: 'success' });
    expect(await liveBalance()).toBe(before + 12000);

    adyen.nextCard({ resultCode: 'ChallengeShopper' });
    const failed = await direct();
    const fid = failed.body.payment_id as string;
    const no = adyen.authenticate(paymentReferenceOf(fid), false);
    await fetch(`${stack.baseUrl}/providers/adyen/return/${fid}?redirectResult=${encodeURIComponent(no)}`, { redirect: 'manual' });
    expect(await stored(fid)).toMatchObject({ status: 'failed', failure_code: 'AUTHENTICATION_FAILED' });
    expect(await liveBalance()).toBe(before + 12000);
  });

  it('Pending: forged or unsigned notifications settle nothing; the signed one settles once; replays, late failure: no-ops', async () => {
    const before = await liveBalance();
    adyen.nextCard({ resultCode: 'Pending' });
    const r = await direct();
    expect(r.status).toBe(200);
    const id = r.body.payment_id as string;
    expect(r.body.status).toBe('processing');
    const ref = paymentReferenceOf(id);

    const forged = await adyen.notify([
      adyen.item({ eventCode: 'AUTHORISATION', merchantReference: ref }, 'forged'),
      adyen.item({ eventCode: 'AUTHORISATION', merchantReference: ref }, 'none'),
    ]);
    expect(forged).toEqual({ status: 200, body: '[accepted]' });
    expect((await status(id)).body.status).toBe('processing');

    const good = adyen.item({ eventCode: 'AUTHORISATION', merchantReference: ref, additionalData: { authCode: '777111' } });
    expect(await adyen.notify([good, good])).toEqual({ status: 200, body: '[accepted]' });
    await adyen.notify([good]);
    await adyen.notify([adyen.item({ eventCode: 'AUTHORISATION', merchantReference: ref, success: 'false', reason: 'Refused' })]);
    expect((await status(id)).body).toMatchObject({ status: 'success' });
    expect(await liveBalance()).toBe(before + 12000);
  });

  it('a refused AUTHORISATION notification fails a pending payment with the mapped code', async () => {
    adyen.nextCard({ resultCode: 'Received' });
    const r = await direct();
    const id = r.body.payment_id as string;
    await adyen.notify([
      adyen.item({ eventCode: 'AUTHORISATION', merchantReference: paymentReferenceOf(id), success: 'false', reason: 'Not enough balance' }),
    ]);
    expect(await stored(id)).toMatchObject({ status: 'failed', failure_code: 'INSUFFICIENT_FUNDS' });
  });

  it('a timeout and a 500: 502, the payment stays processing; past the window the job cancels it by reference', async () => {
    const before = await liveBalance();
    adyen.failNext('payments', { hang: true });
    const hung = await direct();
    expect(hung.status).toBe(502);
    expect(hung.body).toMatchObject({ error_code: 'provider_unavailable' });
    const id = hung.body.payment_id as string;
    expect((await status(id)).body.status).toBe('processing');

    adyen.failNext('payments', { status: 500 });
    const five = await direct();
    expect(five.status).toBe(502);
    const id5 = five.body.payment_id as string;

    await reconcileHeldPayments(paymentDeps(), later(120));
    expect(adyen.cancels.map((c) => c.paymentReference)).not.toContain(paymentReferenceOf(id));
    expect((await status(id)).body.status).toBe('processing');

    await reconcileHeldPayments(paymentDeps(), later(CANCEL_AFTER + 5));
    const cancelled = adyen.cancels.map((c) => c.paymentReference);
    expect(cancelled).toEqual(expect.arrayContaining([paymentReferenceOf(id), paymentReferenceOf(id5)]));
    expect(await stored(id)).toMatchObject({ status: 'failed', failure_code: 'PROVIDER_UNAVAILABLE' });
    expect((await stored(id)).card).toEqual({ brand: 'visa', last_four: '1142' });
    expect((await status(id5)).body.status).toBe('failed');

    // An AUTHORISATION arriving after the cancel (out of order) settles nothing: the cancel voids it at Adyen.
    await adyen.notify([adyen.item({ eventCode: 'AUTHORISATION', merchantReference: paymentReferenceOf(id) })]);
    expect((await status(id)).body.status).toBe('failed');
    expect(await liveBalance()).toBe(before);
  });

  it('a body that is not a notification is 400; with no Adyen configured the route is 404', async () => {
    const bad = await fetch(`${stack.baseUrl}/providers/adyen/notifications`, { method: 'POST', body: '{"x":1}' });
    expect(bad.status).toBe(400);
    live.writeProviders({});
    const none = await fetch(`${stack.baseUrl}/providers/adyen/notifications`, { method: 'POST', body: '{"x":1}' });
    expect(none.status).toBe(404);
    live.writeProviders(adyenProviders());
  });

  it('hosted checkout: an authorised card completes the session; 3-D Secure keeps it processing with our forwarder', async () => {
    const session = async () => {
      const r = await stack.request('/api/v1/checkout', {
        method: 'POST',
        apiKey: merchant.apiKey,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ ...SESSION_BODY, amount: 60 }),
      });
      expect(r.status).toBe(200);
      return r.body.session_id as string;
    };
    const process = (sessionId: string) =>
      stack.request('/api/v1/checkout/process', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ session_id: sessionId, payment_method: 'card', customer, card: card() }),
      });
    const before = await liveBalance();
    const paid = await process(await session());
    expect(paid.status).toBe(200);
    expect(paid.body).toMatchObject({ status: 'success', card_last_four: '1142' });
    expect(await liveBalance()).toBe(before + 6000);

    adyen.nextCard({ resultCode: 'RedirectShopper' });
    const challenged = await process(await session());
    expect(challenged.body).toMatchObject({ status: 'processing' });
    expect(challenged.body.redirect_url).toBe(`${stack.baseUrl}/providers/adyen/3ds/${challenged.body.payment_id}`);
  });

  it('live discovery offers cash only where Adyen collects it (OXXO in Mexico), cards everywhere', async () => {
    const codes = async (country: string) =>
      (
        (await stack.request(`/api/v1/methods?country=${country}`, { apiKey: merchant.apiKey })).body.methods as Array<{
          method_code: string;
        }>
      )
        .map((m) => m.method_code)
        .sort();
    expect(await codes('MEX')).toEqual(['svc-mt-2', 'svc-mt-24']);
    expect(await codes('COL')).toEqual(['svc-mt-2']);
    expect(await codes('CHL')).toEqual(['svc-mt-2']);
  });

  it('OXXO: intent, then /payments type oxxo; Adyen’s voucher replaces the sandbox’s; AUTHORISATION settles it', async () => {
    const before = await liveBalance('MXN');
    const oxxo = async () => {
      const session = await stack.request('/api/v1/checkout', {
        method: 'POST',
        apiKey: merchant.apiKey,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ ...SESSION_BODY, amount: 250, currency: 'MXN', country: 'MEX' }),
      });
      expect(session.status).toBe(200);
      return stack.request('/api/v1/checkout/process', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ session_id: session.body.session_id, payment_method: 'cash', customer: mexican }),
      });
    };
    const r = await oxxo();
    expect(r.status).toBe(200);
    const id = r.body.payment_id as string;
    const sent = lastPaymentRequest();
    expect(sent?.body).toMatchObject({
      reference: paymentReferenceOf(id),
      paymentMethod: { type: 'oxxo' },
      amount: { currency: 'MXN', value: 25000 },
      countryCode: 'MX',
      shopperName: { lastName: expect.any(String) },
    });
    expect(r.body).toMatchObject({
      status: 'pending',
      voucher_reference: expect.stringMatching(/^\d{30}$/),
    });
    await adyen.notify([adyen.item({ eventCode: 'AUTHORISATION', merchantReference: paymentReferenceOf(id) })]);
    expect((await status(id)).body.status).toBe('success');
    expect(await liveBalance('MXN')).toBe(before + 25000);

    // A voucher nobody pays expires after its expiry and the grace; its technical cancel is not used.
    const unpaid = (await oxxo()).body.payment_id as string;
    await reconcileHeldPayments(paymentDeps(), later(10 * 86_400));
    expect((await status(unpaid)).body.status).toBe('expired');
    expect(adyen.cancels.map((c) => c.paymentReference)).not.toContain(paymentReferenceOf(unpaid));
  });

  describe('refunds', () => {
    const refund = (id: string, body: Record<string, unknown> = {}) =>
      stack.request(`/api/v1/payments/${id}/refunds`, {
        method: 'POST',
        apiKey: merchant.apiKey,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    async function sentToAdyen(refundId: string) {
      const ref = refundReferenceOf(refundId);
      for (let i = 0; i < 200 && !adyen.refunds.some((r) => r.reference === ref); i++) await new Promise((r) => setTimeout(r, 50));
      const sent = adyen.refunds.find((r) => r.reference === ref);
      expect(sent).toBeDefined();
      return sent as NonNullable<typeof sent>;
    }
    async function settled(refundId: string) {
      for (let i = 0; i < 100; i++) {
        const r = await paymentDeps().refunds.get(refundId);
        if (r && r.status !== 'pending') return r;
        await new Promise((res) => setTimeout(res, 50));
      }
      return paymentDeps().refunds.get(refundId);
    }

    it('received keeps the refund pending; REFUND success settles it; its replay changes nothing', async () => {
      const paid = await direct({ amount: 80 });
      const id = paid.body.payment_id as string;
      const before = await liveBalance();
      const r = await refund(id, { amount: 30 });
      expect(r.status).toBe(200);
      const refundId = r.body.refund_id as string;
      const sent = await sentToAdyen(refundId);
      expect(sent).toMatchObject({ paymentPspReference: (await stored(id)).provider?.details.psp_reference, value: 3000 });
      const req = adyen.requests.find(
        (q) => q.path.endsWith('/refunds') && (q.body as { reference?: string }).reference === sent.reference,
      );
      expect(req?.headers['idempotency-key']).toBe(`refund-${refundReferenceOf(refundId)}`);
      expect((await paymentDeps().refunds.get(refundId))?.status).toBe('pending');

      const item = adyen.item({
        eventCode: 'REFUND',
        merchantReference: sent.reference,
        pspReference: sent.pspReference,
        originalReference: sent.paymentPspReference,
        amount: { currency: 'BRL', value: 3000 },
      });
      // A forged REFUND first: nothing settles.
      await adyen.notify([{ ...item, additionalData: { hmacSignature: 'Zm9yZ2Vk' } }]);
      expect((await paymentDeps().refunds.get(refundId))?.status).toBe('pending');
      expect(await adyen.notify([item])).toEqual({ status: 200, body: '[accepted]' });
      expect((await settled(refundId))?.status).toBe('succeeded');
      await adyen.notify([item]);
      expect((await paymentDeps().refunds.get(refundId))?.status).toBe('succeeded');
      expect(await liveBalance()).toBe(before - 3000);
    });

    it('REFUND_FAILED settles the refund failed and the balance is credited back', async () => {
      const paid = await direct({ amount: 50 });
      const id = paid.body.payment_id as string;
      const before = await liveBalance();
      const r = await refund(id, { amount: 20 });
      const refundId = r.body.refund_id as string;
      const sent = await sentToAdyen(refundId);
      await adyen.notify([
        adyen.item({
          eventCode: 'REFUND_FAILED',
          merchantReference: sent.reference,
          pspReference: sent.pspReference,
          originalReference: sent.paymentPspReference,
          amount: { currency: 'BRL', value: 2000 },
        }),
      ]);
      expect((await settled(refundId))?.status).toBe('failed');
      expect(await liveBalance()).toBe(before);
    });
  });
});
