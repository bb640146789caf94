/**
 * The hosted checkout on the live stage with a card through Adyen (issue 23), in Chromium: the page sends the
 * shopper's browser (3-D Secure 2's browserInfo, with the request's user agent and Accept header), the issuer asks
 * for a challenge, the shopper completes it on the provider's page, our return URL completes the payment with the
 * details call, and the shopper lands on success_url. The card number and CVC never reach a stored item or a log.
 * A live boleto asks for the payer's billing address (checked on the page) and shows Adyen's typeable line.
 */
import type { Browser } from 'playwright-core';
import { paymentIdOfReference, paymentReferenceOf } from '../../shared/adapters/providers/adyen/adyen.transformers';
import { paymentDeps } from '../../shared/wiring';
import { launchBrowser, openPage, startShop, type OpenedPage } from '../support/browser';
import type { FakeAdyen } from '../support/fake-adyen';
import { startAdyenLiveStage, type AdyenLiveStage } from '../support/live-adyen';
import type { TestStack } from '../support/test-stack';
import { captureLogs } from '../support/live-stage';
import { SESSION_BODY } from '../support/sample-data';
import { CPF, expectAccessible, fillCard, fillCustomer } from './checkout-support';

jest.setTimeout(60_000);
let adyen: FakeAdyen;
let stack: TestStack;
let browser: Browser;
let shop: Awaited<ReturnType<typeof startShop>>;
let apiKey: string;
let opened: OpenedPage | undefined;

// Everything the service logs during this file.
const logs = captureLogs();
afterAll(() => logs.restore());

let stage: AdyenLiveStage;

beforeAll(async () => {
  stage = await startAdyenLiveStage('Loja Cartão Ao Vivo');
  ({ adyen, stack, apiKey } = stage);
  browser = await launchBrowser();
  shop = await startShop();
});

afterAll(async () => {
  await opened?.close();
  await browser?.close();
  await shop?.close();
  await stage?.stop();
});

it('card with a 3-D Secure challenge: browserInfo sent, the shopper authenticates and lands on success_url', async () => {
  const r = await stack.request('/api/v1/checkout', {
    method: 'POST',
    apiKey,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ ...SESSION_BODY, success_url: `${shop.url}/ok`, cancel_url: `${shop.url}/cancel` }),
  });
  expect(r.status).toBe(200);
  const sessionId = r.body.session_id as string;
  opened = await openPage(browser, { locale: 'pt-BR', ignoreHTTPSErrors: true });
  const { page } = opened;
  await page.goto(r.body.checkout_url);
  await fillCustomer(page, CPF);
  await page.check('input[name=payment_method][value=card]');
  await fillCard(page, '4111111145551142', '03/30', '737');
  await expectAccessible(page);
  adyen.nextCard({ resultCode: 'ChallengeShopper' });
  // Pay: the page follows the answer's redirect_url at once (our 3-D Secure route, then the provider's page).
  await page.click('#submit');
  await page.waitForURL(/\/hpp\/3ds\//, { timeout: 15_000 });
  const sent = [...adyen.requests].reverse().find((q) => q.path === '/payments');
  const request = sent?.body as { reference: string; browserInfo?: Record<string, unknown> };
  const id = paymentIdOfReference(request.reference) as string;
  expect((await paymentDeps().store.getPayment(id))?.status).toBe('processing');

  // The browser's 3-D Secure 2 fields, as Chromium reported them, with the request's own headers.
  const info = request.browserInfo;
  expect(info).toMatchObject({
    colorDepth: expect.any(Number),
    screenWidth: 1280,
    screenHeight: 800,
    javaEnabled: false,
    language: 'pt-BR',
    timeZoneOffset: expect.any(Number),
    userAgent: expect.stringContaining('Chrome'),
    acceptHeader: expect.any(String),
  });

  // The provider's challenge page, then back through our return URL to the merchant's success_url.
  await page.click('#complete');
  await page.waitForURL(`${shop.url}/ok?session_id=${sessionId}`, { timeout: 15_000 });
  expect(adyen.requests.some((q) => q.path === '/payments/details')).toBe(true);
  expect(adyen.payment(paymentReferenceOf(id))?.resultCode).toBe('Authorised');
  const s = await stack.request(`/api/v1/checkout/${sessionId}`, { apiKey });
  expect(s.body.status).toBe('success');

  const stored = JSON.stringify(await paymentDeps().store.getPayment(id));
  expect(stored).not.toContain('4111111145551142');
  expect(stored).not.toContain('"737"');
  expect(logs.lines.join('')).not.toContain('4111111145551142');
  expect(logs.lines.join('')).not.toMatch(/"(cvv|cvc)":\s*"737"/);
  expect(adyen.violations).toEqual([]);
  expect(opened.unexpected()).toEqual([]);
});

it('boleto on the live page: the address fields appear for boleto, are checked, and Adyen’s line is what the shopper copies', async () => {
  const r = await stack.request('/api/v1/checkout', {
    method: 'POST',
    apiKey,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ ...SESSION_BODY, success_url: `${shop.url}/ok`, cancel_url: `${shop.url}/cancel` }),
  });
  await opened?.close();
  opened = await openPage(browser, { locale: 'pt-BR' });
  const { page } = opened;
  await page.goto(r.body.checkout_url);
  await fillCustomer(page, CPF);
  expect(await page.isHidden('#address-fields')).toBe(true);
  await page.check('input[name=payment_method][value=boleto]');
  expect(await page.isVisible('#address-fields')).toBe(true);
  await page.click('#submit');
  expect(await page.isVisible('#f-postal_code-err')).toBe(true);
  expect(await page.getAttribute('#f-postal_code', 'aria-invalid')).toBe('true');
  await page.fill('#f-postal_code', '01310100');
  expect(await page.inputValue('#f-postal_code')).toBe('01310-100');
  await page.fill('#f-state', 'sp');
  await page.fill('#f-street', 'Avenida Paulista');
  await page.fill('#f-house_number', '1578');
  await page.fill('#f-city', 'São Paulo');
  await expectAccessible(page);
  const [response] = await Promise.all([page.waitForResponse('**/api/v1/checkout/process'), page.click('#submit')]);
  const body = (await response.json()) as Record<string, string>;
  expect(body).toMatchObject({ status: 'pending', payment_method: 'boleto' });
  const sent = [...adyen.requests].reverse().find((q) => q.path === '/payments');
  expect(sent?.body).toMatchObject({
    paymentMethod: { type: 'boletobancario' },
    billingAddress: {
      postalCode: '01310100',
      stateOrProvince: 'SP',
      street: 'Avenida Paulista',
      houseNumberOrName: '1578',
      city: 'São Paulo',
    },
  });
  await page.waitForSelector('#boleto-line');
  expect((await page.inputValue('#boleto-line')).replace(/\D/g, '')).toBe(body.boleto_line);
  await expectAccessible(page);
  expect(opened.unexpected()).toEqual([]);
});
