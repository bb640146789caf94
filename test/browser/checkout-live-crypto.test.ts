/**
 * The hosted checkout on the live stage with USDT through Binance Pay, in Chromium: a Brazilian shopper picks the USDT
 * tile, our page shows Binance's quote beside the session's amount, the QR of the order and the way to Binance's own
 * checkout page (the fake Binance Pay's payer page); paying there, Binance's webhook settles the payment and our page,
 * which kept polling, lands on the merchant's success_url.
 */
import type { Browser } from 'playwright-core';
import { paymentDeps } from '../../shared/wiring';
import { launchBrowser, openPage, startShop, type OpenedPage } from '../support/browser';
import { startFakeBinancePay, type FakeBinancePay } from '../support/fake-binance-pay';
import { startLiveStage, type LiveStage } from '../support/live-stage';
import { CPF, expectAccessible, fillCustomer } from './checkout-support';

jest.setTimeout(60_000);
let binance: FakeBinancePay;
let live: LiveStage;
let browser: Browser;
let shop: Awaited<ReturnType<typeof startShop>>;
let opened: OpenedPage | undefined;

beforeAll(async () => {
  binance = await startFakeBinancePay();
  binance.setRate('BRL', '5.025'); // R$ 100,50 is 20 USDT
  live = await startLiveStage({ binance_pay: binance.binancePayConfig() }, { merchantName: 'Loja Paulista', workers: false });
  browser = await launchBrowser();
  shop = await startShop();
});

afterEach(() => {
  expect(binance.violations).toEqual([]);
});

afterAll(async () => {
  await opened?.close();
  await browser?.close();
  await shop?.close();
  await live?.stop();
  await binance?.close();
});

it('USDT: Binance’s quote, the QR and Open Binance Pay; paid on Binance’s page, our page lands on success_url', async () => {
  const r = await live.stack.request('/api/v1/checkout', {
    method: 'POST',
    apiKey: live.merchant.apiKey,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      amount: 100.5,
      currency: 'BRL',
      country: 'BRA',
      success_url: `${shop.url}/ok`,
      cancel_url: `${shop.url}/cancel`,
    }),
  });
  expect(r.status).toBe(200);
  const sessionId = r.body.session_id as string;
  opened = await openPage(browser, { locale: 'pt-BR', ignoreHTTPSErrors: true });
  const { page, context } = opened;
  const sent: Record<string, unknown>[] = [];
  page.on('request', (q) => q.url().endsWith('/api/v1/checkout/process') && sent.push(q.postDataJSON()));
  await page.goto(r.body.checkout_url);
  expect(await page.textContent('label.tile:has(input[value=crypto]) .tile-name')).toBe('USDT (cripto)');
  await page.check('input[name=payment_method][value=crypto]');
  await fillCustomer(page, CPF);
  await page.click('#submit');
  await page.waitForSelector('#crypto-checkout', { timeout: 15_000 });
  expect(sent).toEqual([expect.objectContaining({ payment_method: 'crypto', method_code: 'svc-mt-4' })]);

  const paymentId = (await paymentDeps().store.getSession(sessionId))?.payment_id as string;
  const stored = await paymentDeps().store.getPayment(paymentId);
  const checkoutUrl = stored?.artefact?.checkout_url as string;
  expect(checkoutUrl.startsWith(binance.baseUrl)).toBe(true);
  expect(stored?.artefact).toMatchObject({ crypto_amount: '20', crypto_currency: 'USDT' });
  expect(await page.textContent('#result-title')).toBe('Pague com USDT');
  const facts = await page.locator('.facts').innerText();
  expect(facts).toMatch(/Valor\s+R\$\s100,50/);
  expect(facts).toMatch(/A pagar em USDT\s+20,00 USDT/);
  await page.waitForFunction(() => (document.querySelector('img.qr') as HTMLImageElement | null)?.complete);
  expect(await page.evaluate(() => (document.querySelector('img.qr') as HTMLImageElement).naturalWidth)).toBeGreaterThan(100);
  const link = page.getByRole('link', { name: 'Abrir a Binance Pay (abre em uma nova aba)' });
  expect(await link.getAttribute('href')).toBe(checkoutUrl);
  expect(await page.locator('text=Simular o pagamento do cliente').count()).toBe(0); // live: no sandbox link
  await expectAccessible(page);

  const [payer] = await Promise.all([context.waitForEvent('page'), link.click()]);
  await payer.waitForLoadState();
  await payer.getByRole('button', { name: 'Pay' }).click();
  await page.waitForURL(`${shop.url}/ok?session_id=${sessionId}`, { timeout: 20_000 });
  expect(await paymentDeps().store.getPayment(paymentId)).toMatchObject({ status: 'success', payment_method: 'crypto' });
  expect(opened.unexpected()).toEqual([]);
});
