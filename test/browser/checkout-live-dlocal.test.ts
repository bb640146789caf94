/**
 * The hosted checkout on the live stage with a local method through dLocal (issue 32), in Chromium: a Colombian
 * shopper picks PSE (the `pse` tile, svc-mt-14), the page sends the browser to dLocal's redirect_url (the fake
 * dLocal's payer page), the shopper pays there, dLocal notifies (verified, read back, settled) and sends the browser
 * back through our return route to the merchant's success_url. A shopper who is refused at the bank comes back to our
 * page, which offers another method. Bre-B (the `bank_transfer` tile, svc-mt-17, named Bre-B): our page shows the QR
 * dLocal answers, with its code and countdown, until the bank app pays it.
 */
import type { Browser } from 'playwright-core';
import { orderIdOf } from '../../shared/adapters/providers/dlocal/dlocal.transformers';
import { paymentDeps } from '../../shared/wiring';
import { launchBrowser, openPage, startShop, type OpenedPage } from '../support/browser';
import { startFakeDlocal, type FakeDlocal } from '../support/fake-dlocal';
import { startLiveStage, type LiveStage } from '../support/live-stage';
import { expectAccessible, fillCustomer } from './checkout-support';

jest.setTimeout(60_000);
let dlocal: FakeDlocal;
let live: LiveStage;
let browser: Browser;
let shop: Awaited<ReturnType<typeof startShop>>;
let opened: OpenedPage | undefined;

beforeAll(async () => {
  dlocal = await startFakeDlocal();
  live = await startLiveStage({ dlocal: dlocal.dlocalConfig() }, { merchantName: 'Tienda Bogotá', workers: false });
  browser = await launchBrowser();
  shop = await startShop();
});

afterEach(() => {
  expect(dlocal.violations).toEqual([]);
});

afterAll(async () => {
  await opened?.close();
  await browser?.close();
  await shop?.close();
  await live?.stop();
  await dlocal?.close();
});

async function colombianPage(): Promise<{ sessionId: string; page: OpenedPage['page']; sent: Record<string, unknown>[] }> {
  const r = await live.stack.request('/api/v1/checkout', {
    method: 'POST',
    apiKey: live.merchant.apiKey,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      amount: 85_000,
      currency: 'COP',
      country: 'COL',
      success_url: `${shop.url}/ok`,
      cancel_url: `${shop.url}/cancel`,
      order_number: 'PED-7',
    }),
  });
  expect(r.status).toBe(200);
  await opened?.close();
  opened = await openPage(browser, { locale: 'es-CO', ignoreHTTPSErrors: true });
  const { page } = opened;
  const sent: Record<string, unknown>[] = [];
  page.on('request', (q) => q.url().endsWith('/api/v1/checkout/process') && sent.push(q.postDataJSON()));
  await page.goto(r.body.checkout_url);
  await fillCustomer(page, '1020304050', 'Camila Rojas', 'camila@example.co');
  // In the shopper's Spanish, Colombia's two bank methods dLocal serves: PSE (svc-mt-14) and Bre-B (svc-mt-17).
  expect(await page.textContent('label.tile:has(input[value=pse]) .tile-name')).toBe('PSE');
  expect(await page.getAttribute('input[name=payment_method][value=pse]', 'data-method-code')).toBe('svc-mt-14');
  expect(await page.textContent('label.tile:has(input[value=bank_transfer]) .tile-name')).toBe('Bre-B');
  expect(await page.getAttribute('input[name=payment_method][value=bank_transfer]', 'data-method-code')).toBe('svc-mt-17');
  return { sessionId: r.body.session_id as string, page, sent };
}

/** The order dLocal was last asked to create, and our payment id it carries. */
function lastOrder(): { orderId: string; paymentId: string } {
  const sent = [...dlocal.requests].reverse().find((q) => q.path === '/payments')?.body as { order_id: string };
  const paymentId = `pi_${Buffer.from(sent.order_id.slice(2), 'hex').toString('base64url')}`;
  expect(orderIdOf(paymentId)).toBe(sent.order_id);
  return { orderId: sent.order_id, paymentId };
}

async function pse(): Promise<{ sessionId: string; paymentId: string; page: OpenedPage['page'] }> {
  const { sessionId, page, sent } = await colombianPage();
  await page.check('input[name=payment_method][value=pse]');
  expect(await page.textContent('#submit')).toBe('Continuar a PSE');
  await expectAccessible(page);
  // Pay: the page follows the answer's redirect_url, dLocal's page.
  await page.click('#submit');
  await page.waitForURL(`${dlocal.baseUrl}/checkout/**`, { timeout: 15_000 });
  expect(sent).toEqual([expect.objectContaining({ payment_method: 'pse', method_code: 'svc-mt-14' })]);
  return { sessionId, paymentId: lastOrder().paymentId, page };
}

it('PSE: the shopper pays on dLocal’s page and lands on success_url; the payment settled from dLocal’s read-back', async () => {
  const { sessionId, paymentId, page } = await pse();
  expect(dlocal.payment(orderIdOf(paymentId))?.request).toMatchObject({ payment_method_id: 'PC', payment_method_flow: 'REDIRECT' });
  await page.click('button[value=PAID]');
  await page.waitForURL(`${shop.url}/ok?session_id=${sessionId}`, { timeout: 15_000 });
  expect(await paymentDeps().store.getPayment(paymentId)).toMatchObject({
    status: 'success',
    payment_method: 'pse',
    method_code: 'svc-mt-14',
  });
  const s = await live.stack.request(`/api/v1/checkout/${sessionId}`, { apiKey: live.merchant.apiKey });
  expect(s.body.status).toBe('success');
  expect(opened!.unexpected()).toEqual([]);
});

it('back on our page before paying (a reload): the open payment offers the way back to the bank, not a new form', async () => {
  const { sessionId, paymentId, page } = await pse();
  const redirectUrl = (await paymentDeps().store.getPayment(paymentId))?.redirect_url as string;
  expect(redirectUrl).toBe(page.url());
  await page.goto(`${live.stack.baseUrl}/checkout/${sessionId}`);
  const link = page.locator(`a.btn[href="${redirectUrl}"]`);
  await link.waitFor({ timeout: 10_000 });
  await expectAccessible(page);
  await link.click();
  await page.waitForURL(redirectUrl, { timeout: 10_000 });
});

it('refused at the bank: back on our page with the payment failed, another method offered', async () => {
  const { sessionId, paymentId, page } = await pse();
  await page.click('button[value=REJECTED]');
  await page.waitForURL(`**/checkout/${sessionId}**`, { timeout: 15_000 });
  expect(await paymentDeps().store.getPayment(paymentId)).toMatchObject({ status: 'failed', failure_code: 'rejected_by_bank' });
  await page.waitForSelector('input[name=payment_method][value=pse]', { timeout: 10_000 });
});

it('Bre-B: the QR dLocal answers, its code to copy and its countdown; paid from the bank app, the page lands on success_url', async () => {
  const { sessionId, page, sent } = await colombianPage();
  await page.check('input[name=payment_method][value=bank_transfer]');
  await page.click('#submit');
  await page.waitForSelector('#qr-code', { timeout: 15_000 });
  expect(sent).toEqual([expect.objectContaining({ payment_method: 'bank_transfer', method_code: 'svc-mt-17' })]);
  const { orderId, paymentId } = lastOrder();
  expect(dlocal.payment(orderId)?.request).toMatchObject({ payment_method_id: 'BQ', payment_method_flow: 'DIRECT' });
  const qr = dlocal.qrOf(orderId);
  expect(await page.textContent('#result-title')).toBe('Paga con Bre-B');
  expect(await page.inputValue('#qr-code')).toBe(qr?.qr_code);
  await page.waitForFunction(() => (document.querySelector('img.qr') as HTMLImageElement | null)?.complete);
  expect(await page.evaluate(() => (document.querySelector('img.qr') as HTMLImageElement).naturalWidth)).toBeGreaterThan(100);
  expect(await page.getAttribute('img.qr', 'alt')).toMatch(/^Código QR para pagar \$\s85\.000,00$/);
  expect(await page.textContent('#countdown')).toMatch(/^(10:00|9:[0-5]\d)$/);
  await expectAccessible(page);
  dlocal.setStatus(orderId, 'PAID');
  await dlocal.notify(orderId);
  await page.waitForURL(`${shop.url}/ok?session_id=${sessionId}`, { timeout: 20_000 });
  expect(await paymentDeps().store.getPayment(paymentId)).toMatchObject({ status: 'success', payment_method: 'bank_transfer' });
  expect(opened!.unexpected()).toEqual([]);
});
