/**
 * The dLocal rows served live since issue 41, over real HTTP on the local engines against the fake dLocal: Colombia's
 * Bre-B (`bank_transfer`, svc-mt-17, dLocal's QR: its content and expiry shown; a missed notification settled by the
 * reconciliation job), Brazil's wallets chosen by name (`wallet`, svc-mt-9: the account's `wallets` list, the first by
 * default, another refused before anything is sent), Pix via Open Finance (`bank_transfer` in Brazil, svc-mt-7, a
 * redirect to the bank: paid there, the shopper's return to the merchant's success_url, over HTTP and in Chromium), and
 * Colombia's bank transfers told apart by `method_code` (svc-mt-14 PSE, else Bre-B). Each checks what the merchant
 * sees (status, body, stored payment, balance and ledger, webhook) and that the fake saw nothing off its schemas.
 */
import '../support/log-level-info';
import { request as httpsRequest } from 'node:https';
import type { Browser } from 'playwright-core';
import { reconcileHeldPayments } from '../../shared/application/rails';
import { orderIdOf } from '../../shared/adapters/providers/dlocal/dlocal.transformers';
import { paymentDeps } from '../../shared/wiring';
import { launchBrowser, openPage, startShop, type OpenedPage } from '../support/browser';
import { startFakeDlocal, type FakeDlocal } from '../support/fake-dlocal';
import { verifyWebhook } from '../support/merchant-verify';
import type { Receiver } from '../support/receiver';
import { balanceMinorOf, expectLedgerEqualsBalance, startLiveStage, type LiveMerchant, type LiveStage } from '../support/live-stage';
import type { TestMerchant, TestStack } from '../support/test-stack';
import { CPF, listed, payments } from '../support/payments';
import { fillCustomer } from '../browser/checkout-support';

let fake: FakeDlocal;
let stack: TestStack;
let receiver: Receiver;
let merchant: LiveMerchant;
let live: LiveStage;

beforeAll(async () => {
  fake = await startFakeDlocal({ hangMs: 5_000 });
  // The account serves two of Brazil's three wallets, Mercado Pago first: NuPay is not served.
  live = await startLiveStage(
    { dlocal: fake.dlocalConfig({ timeouts: { connect_ms: 1000, total_ms: 1500 }, wallets: ['mercado_pago', 'picpay'] }) },
    { merchantName: 'Loja Bogotá', receiver: true },
  );
  ({ stack, receiver, merchant } = live);
});

afterEach(() => {
  expect(fake.violations).toEqual([]);
});

afterAll(async () => {
  await live?.stop();
  await fake?.close();
});

const colombian = { name: 'Camila Rojas', email: 'camila@example.co', document: '1020304050' };
const brazilian = { name: 'Ana Souza', email: 'ana@example.com.br', document: CPF };
const NOTIFICATIONS = () => `${stack.baseUrl}/providers/dlocal/notifications`;
const RETURN = (id: string) => `${stack.baseUrl}/providers/dlocal/return/${id}`;
const stored = async (id: string) => (await paymentDeps().store.getPayment(id))!;
const balance = (currency: string) => balanceMinorOf(stack, merchant.apiKey, currency);
const creates = () => fake.requests.filter((q) => q.method === 'POST' && q.path === '/payments').length;
const later = (seconds: number) => new Date(Date.now() + seconds * 1000);
const api = () => payments(stack, merchant as TestMerchant);

async function session(body: Record<string, unknown>): Promise<string> {
  const s = await api().createSession(body);
  expect(s.status).toBe(200);
  return s.body.session_id as string;
}
const enabled = async (sessionId: string) =>
  ((await api().getSession(sessionId)).body.available_methods as Array<Record<string, unknown> & { enabled: boolean }>).filter(
    (m) => m.enabled,
  );

/** The shopper's answer on the fake's payer page (dLocal's, the bank's): a form post under the fake's own CA. */
function payAtFake(redirectUrl: string, outcome: 'PAID' | 'REJECTED'): Promise<{ status: number; location: string | undefined }> {
  const body = `outcome=${outcome}`;
  return new Promise((resolve, reject) => {
    const q = httpsRequest(
      redirectUrl,
      {
        method: 'POST',
        ca: fake.dlocalConfig().ca_pem as string,
        headers: { 'content-type': 'application/x-www-form-urlencoded', 'content-length': Buffer.byteLength(body) },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode ?? 0, location: res.headers.location }));
      },
    );
    q.on('error', reject);
    q.end(body);
  });
}

describe('dLocal’s new live rows', () => {
  it('Bre-B (COL bank_transfer, svc-mt-17): the QR and its expiry; a missed notification settled by the job, once', async () => {
    const before = await balance('COP');
    const sessionId = await session({ amount: 85_000, currency: 'COP', country: 'COL' });
    const sent = creates();
    const r = await api().process(sessionId, 'bank_transfer', { customer: colombian });
    expect(r.status).toBe(200);
    const id = r.body.payment_id as string;
    expect(creates()).toBe(sent + 1);
    const p = fake.payment(orderIdOf(id))!;
    expect(p.request).toEqual({
      amount: 85_000,
      currency: 'COP',
      country: 'CO',
      payment_method_id: 'BQ',
      payment_method_flow: 'DIRECT',
      payer: { name: colombian.name, email: colombian.email, document: colombian.document },
      order_id: orderIdOf(id),
      notification_url: NOTIFICATIONS(),
    });
    // The merchant sees the QR's content and its expiry, as dLocal answered them; no redirect.
    const qr = fake.qrOf(orderIdOf(id))!;
    expect(qr.qr_code).toMatch(/^000201/);
    expect(r.body).toEqual({
      success: true,
      payment_id: id,
      status: 'pending',
      payment_method: 'bank_transfer',
      qr_code: qr.qr_code,
      qr_code_image: `${stack.baseUrl}/checkout/pix-qr/${id}`,
      expires_at: qr.expiration_date,
    });
    expect(await stored(id)).toMatchObject({
      status: 'pending',
      method_code: 'svc-mt-17',
      artefact: { qr_code: qr.qr_code },
      expires_at: qr.expiration_date,
      redirect_url: null,
    });
    // The hosted page shows the same QR, and its image is ours.
    const page = await stack.request(`/checkout/${sessionId}/status`);
    expect(page.body.payment).toMatchObject({ payment_method: 'bank_transfer', artefact: { qr_code: qr.qr_code } });
    const image = await fetch(r.body.qr_code_image as string);
    expect(image.status).toBe(200);
    expect(image.headers.get('content-type')).toBe('image/png');

    // Paid from the shopper's bank app; dLocal's notification never arrives.
    fake.setStatus(orderIdOf(id), 'PAID');
    expect((await stored(id)).status).toBe('pending');
    expect(await balance('COP')).toBe(before);
    const reads = fake.requests.filter((q) => q.method === 'GET' && q.path === `/payments/${p.id}`).length;
    const job = await reconcileHeldPayments(paymentDeps(), later(15));
    expect(job.settled).toBeGreaterThanOrEqual(1);
    expect(fake.requests.filter((q) => q.method === 'GET' && q.path === `/payments/${p.id}`).length).toBeGreaterThan(reads);
    expect(await stored(id)).toMatchObject({ status: 'success', method_code: 'svc-mt-17' });
    expect((await api().status(id)).body).toMatchObject({
      status: 'success',
      payment_method: 'bank_transfer',
      amount: 85_000,
      currency: 'COP',
    });
    const [h] = await receiver.waitFor(1, 15_000, (x) => x.body?.event === 'payment.success' && x.body?.payment_id === id);
    expect(verifyWebhook(h!.rawBody, h!.headers as Record<string, string>, merchant.webhookSecret).ok).toBe(true);
    expect(await balance('COP')).toBe(before + 8_500_000);

    // The job again, and the notification arriving late: settled once.
    await reconcileHeldPayments(paymentDeps(), later(15));
    expect((await fake.notify(orderIdOf(id))).status).toBe(200);
    expect(await balance('COP')).toBe(before + 8_500_000);
    expect(fake.creates(orderIdOf(id))).toBe(1);
    await expectLedgerEqualsBalance(stack, merchant, 'COP');
  });

  it('Brazil’s wallets by name (svc-mt-9): PicPay sent as chosen; none named, the first served; NuPay, not served, a 400', async () => {
    const before = await balance('BRL');
    const first = await session({ amount: 120, currency: 'BRL', country: 'BRA' });
    // The session offers the wallets the account serves, in its order (and PIX, through dLocal's PIX rail).
    expect((await enabled(first)).map((m) => [m.id, m.method_code, m.wallets])).toEqual([
      ['pix', 'svc-mt-1', undefined],
      ['bank_transfer', 'svc-mt-7', undefined],
      ['wallet', 'svc-mt-9', ['mercado_pago', 'picpay']],
    ]);

    const picpay = await api().process(first, 'wallet', { customer: brazilian, wallet: 'picpay' });
    expect(picpay.status).toBe(200);
    const id = picpay.body.payment_id as string;
    const p = fake.payment(orderIdOf(id))!;
    expect(p.request).toMatchObject({
      payment_method_id: 'PP',
      payment_method_flow: 'REDIRECT',
      amount: 120,
      currency: 'BRL',
      country: 'BR',
      notification_url: NOTIFICATIONS(),
      callback_url: RETURN(id),
    });
    expect(picpay.body).toMatchObject({ status: 'pending', payment_method: 'wallet', redirect_url: `${fake.baseUrl}/checkout/${p.id}` });
    expect(await stored(id)).toMatchObject({ method_code: 'svc-mt-9', provider: { details: { wallet: 'picpay' } } });
    fake.setStatus(orderIdOf(id), 'PAID');
    expect((await fake.notify(orderIdOf(id))).status).toBe(200);
    expect((await api().status(id)).body).toMatchObject({ status: 'success', payment_method: 'wallet', currency: 'BRL' });
    expect(await balance('BRL')).toBe(before + 12_000);

    // No wallet named: the first the account serves, Mercado Pago.
    const plain = await api().process(await session({ amount: 40, currency: 'BRL', country: 'BRA' }), 'wallet', { customer: brazilian });
    expect(plain.status).toBe(200);
    expect(fake.payment(orderIdOf(plain.body.payment_id as string))!.request).toMatchObject({
      payment_method_id: 'MP',
      payment_method_flow: 'REDIRECT',
      currency: 'BRL',
    });

    // NuPay is a wallet dLocal knows, but not one this account serves: 400 naming `wallet`, nothing sent or written.
    const refused = await session({ amount: 55, currency: 'BRL', country: 'BRA' });
    const sent = creates();
    const payments_ = await listed(merchant as TestMerchant, 'PAYMENT');
    const nupay = await api().process(refused, 'wallet', { customer: brazilian, wallet: 'nupay' });
    expect(nupay.status).toBe(400);
    expect(nupay.body).toMatchObject({ success: false, error_code: 'VALIDATION_ERROR' });
    expect(nupay.body.details).toEqual([{ field: 'wallet', message: expect.stringContaining('mercado_pago, picpay') }]);
    expect(creates()).toBe(sent);
    expect(await listed(merchant as TestMerchant, 'PAYMENT')).toHaveLength(payments_.length);
    expect((await api().getSession(refused)).body).toMatchObject({ status: 'pending', payment_id: null });
    await expectLedgerEqualsBalance(stack, merchant, 'BRL');
  });

  it('Pix via Open Finance (BRA bank_transfer, svc-mt-7): paid at the bank, the shopper’s return is a 303 to success_url', async () => {
    const before = await balance('BRL');
    const sessionId = await session({ amount: 250, currency: 'BRL', country: 'BRA' });
    const r = await api().process(sessionId, 'bank_transfer', { customer: brazilian });
    expect(r.status).toBe(200);
    const id = r.body.payment_id as string;
    const p = fake.payment(orderIdOf(id))!;
    expect(p.request).toMatchObject({
      payment_method_id: 'OF',
      payment_method_flow: 'REDIRECT',
      amount: 250,
      currency: 'BRL',
      country: 'BR',
      payer: { document: CPF },
      notification_url: NOTIFICATIONS(),
      callback_url: RETURN(id),
    });
    expect(r.body).toMatchObject({ success: true, status: 'pending', payment_method: 'bank_transfer' });
    expect(r.body.redirect_url).toBe(`${fake.baseUrl}/checkout/${p.id}`);
    expect(r.body).not.toHaveProperty('qr_code');
    expect(await stored(id)).toMatchObject({ method_code: 'svc-mt-7', redirect_url: r.body.redirect_url });

    // The shopper authorises at their bank (the fake's payer page): dLocal notifies, then sends the browser back to us.
    const paid = await payAtFake(r.body.redirect_url as string, 'PAID');
    expect(paid).toEqual({ status: 302, location: RETURN(id) });
    expect((await stored(id)).status).toBe('success');
    const back = await fetch(paid.location!, { redirect: 'manual' });
    expect(back.status).toBe(303);
    expect(back.headers.get('location')).toBe(`https://shop.example/ok?session_id=${sessionId}`);
    expect((await api().getSession(sessionId)).body).toMatchObject({ status: 'success', payment_id: id });
    await receiver.waitFor(1, 15_000, (x) => x.body?.event === 'payment.success' && x.body?.payment_id === id);
    expect(await balance('BRL')).toBe(before + 25_000);
    // The return again (a reload) moves nothing.
    expect((await fetch(paid.location!, { redirect: 'manual' })).status).toBe(303);
    expect(await balance('BRL')).toBe(before + 25_000);
    await expectLedgerEqualsBalance(stack, merchant, 'BRL');
  });

  it('Colombia’s bank transfers: method_code svc-mt-14 is PSE (PC); without it, Bre-B (BQ); a code not offered is a 400', async () => {
    const pse = await api().process(await session({ amount: 60_000, currency: 'COP', country: 'COL' }), 'bank_transfer', {
      customer: colombian,
      method_code: 'svc-mt-14',
    });
    expect(pse.status).toBe(200);
    const pseId = pse.body.payment_id as string;
    const pc = fake.payment(orderIdOf(pseId))!;
    expect(pc.request).toMatchObject({
      payment_method_id: 'PC',
      payment_method_flow: 'REDIRECT',
      amount: 60_000,
      currency: 'COP',
      country: 'CO',
      callback_url: RETURN(pseId),
    });
    expect(pse.body).toMatchObject({ status: 'pending', payment_method: 'pse', redirect_url: `${fake.baseUrl}/checkout/${pc.id}` });
    expect(pse.body).not.toHaveProperty('qr_code');
    expect(await stored(pseId)).toMatchObject({ payment_method: 'pse', method_code: 'svc-mt-14' });

    const breB = await api().process(await session({ amount: 60_000, currency: 'COP', country: 'COL' }), 'bank_transfer', {
      customer: colombian,
    });
    expect(breB.status).toBe(200);
    const breBId = breB.body.payment_id as string;
    expect(fake.payment(orderIdOf(breBId))!.request).toMatchObject({ payment_method_id: 'BQ', payment_method_flow: 'DIRECT' });
    expect(breB.body).toMatchObject({ status: 'pending', payment_method: 'bank_transfer', qr_code: fake.qrOf(orderIdOf(breBId))!.qr_code });
    expect(breB.body).not.toHaveProperty('redirect_url');
    expect(await stored(breBId)).toMatchObject({ payment_method: 'bank_transfer', method_code: 'svc-mt-17' });

    // Brazil's Open Finance code is not a Colombian session's: 400 naming method_code, nothing sent.
    const sent = creates();
    const bad = await api().process(await session({ amount: 60_000, currency: 'COP', country: 'COL' }), 'bank_transfer', {
      customer: colombian,
      method_code: 'svc-mt-7',
    });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ success: false, error_code: 'VALIDATION_ERROR' });
    expect(bad.body.details.map((d: { field: string }) => d.field)).toEqual(['method_code']);
    expect(creates()).toBe(sent);
  });
});

describe('Pix via Open Finance in Chromium', () => {
  let browser: Browser;
  let shop: Awaited<ReturnType<typeof startShop>>;
  let opened: OpenedPage | undefined;

  beforeAll(async () => {
    browser = await launchBrowser();
    shop = await startShop();
  });

  afterAll(async () => {
    await opened?.close();
    await browser?.close();
    await shop?.close();
  });

  it('the shopper picks the bank transfer, authorises at the bank and is redirected once to success_url', async () => {
    const s = await api().createSession({
      amount: 99.9,
      currency: 'BRL',
      country: 'BRA',
      success_url: `${shop.url}/ok`,
      cancel_url: `${shop.url}/cancel`,
    });
    expect(s.status).toBe(200);
    const sessionId = s.body.session_id as string;
    opened = await openPage(browser, { locale: 'pt-BR', ignoreHTTPSErrors: true });
    const { page } = opened;
    const sent: Record<string, unknown>[] = [];
    page.on('request', (q) => q.url().endsWith('/api/v1/checkout/process') && sent.push(q.postDataJSON()));
    // Every navigation of the main frame, in order: ours, dLocal's (the bank's), ours again, the shop's.
    const visited: string[] = [];
    page.on('framenavigated', (f) => f === page.mainFrame() && visited.push(f.url()));
    await page.goto(s.body.checkout_url as string);
    await fillCustomer(page, CPF, brazilian.name, brazilian.email);
    expect(await page.getAttribute('input[name=payment_method][value=bank_transfer]', 'data-method-code')).toBe('svc-mt-7');
    await page.check('input[name=payment_method][value=bank_transfer]');
    await page.click('#submit');
    await page.waitForURL(`${fake.baseUrl}/checkout/**`, { timeout: 15_000 });
    expect(sent).toEqual([expect.objectContaining({ payment_method: 'bank_transfer' })]);
    const orderId = (fake.requests.filter((q) => q.path === '/payments').at(-1)!.body as { order_id: string }).order_id;
    const p = fake.payment(orderId)!;
    expect(p.request).toMatchObject({ payment_method_id: 'OF', payment_method_flow: 'REDIRECT', amount: 99.9, currency: 'BRL' });
    await page.click('button[value=PAID]');
    await page.waitForURL(`${shop.url}/ok?session_id=${sessionId}`, { timeout: 15_000 });
    expect(await page.textContent('h1')).toBe('Shop: thank you');
    // One landing on success_url, reached through our return route.
    const landing = visited.filter((u) => u.startsWith(`${shop.url}/`));
    expect(landing).toEqual([`${shop.url}/ok?session_id=${sessionId}`]);
    expect((await api().getSession(sessionId)).body).toMatchObject({ status: 'success' });
    const paymentId = (await api().getSession(sessionId)).body.payment_id as string;
    expect(orderIdOf(paymentId)).toBe(orderId);
    expect(await stored(paymentId)).toMatchObject({ status: 'success', payment_method: 'bank_transfer', method_code: 'svc-mt-7' });
    expect(opened.unexpected()).toEqual([]);
  });
});
