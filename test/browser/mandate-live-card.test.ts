/**
 * A live card mandate through Adyen (DESIGN.md 9.3), in Chromium: the payer opens our approval page, types the card,
 * the issuer asks for a 3-D Secure challenge on the zero-value authorisation, our return completes it and the payer
 * lands on success_url with the mandate active and the card stored at Adyen under the mandate's shopper reference.
 * Then the merchant charges it (merchant-initiated, no shopper) and cancels it (the stored card disabled at Adyen).
 * The card number and CVC never reach a stored item or a log.
 */
import type { Browser } from 'playwright-core';
import { shopperReferenceOf } from '../../shared/adapters/providers/adyen/adyen.transformers';
import { localToday } from '../../shared/domain/mandates/mandate';
import { mandateDeps } from '../../shared/wiring';
import { launchBrowser, openPage, startShop, type OpenedPage } from '../support/browser';
import type { FakeAdyen } from '../support/fake-adyen';
import { startAdyenLiveStage, type AdyenLiveStage } from '../support/live-adyen';
import type { TestStack } from '../support/test-stack';
import { captureLogs, balanceMinorOf } from '../support/live-stage';
import { CPF, expectAccessible } from './checkout-support';

jest.setTimeout(60_000);
let adyen: FakeAdyen;
let stack: TestStack;
let browser: Browser;
let shop: Awaited<ReturnType<typeof startShop>>;
let apiKey: string;
let opened: OpenedPage | undefined;

const logs = captureLogs();
afterAll(() => logs.restore());

let stage: AdyenLiveStage;

beforeAll(async () => {
  stage = await startAdyenLiveStage('Academia Ao Vivo');
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

const api = (method: string, path: string, body?: unknown) =>
  stack.request(path, {
    method,
    apiKey,
    headers: { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });

const createMandate = (over: Record<string, unknown> = {}) =>
  api('POST', '/api/v1/mandates', {
    country: 'BRA',
    currency: 'BRL',
    method: 'card',
    customer: { name: 'Ana Silva', email: 'ana@example.com', document: CPF },
    description: 'Academia, plano mensal',
    frequency: 'monthly',
    amount: 49.9,
    start_date: localToday(new Date()),
    success_url: `${shop.url}/ok`,
    cancel_url: `${shop.url}/cancel`,
    ...over,
  });

async function typeCard(url: string, number: string) {
  await opened?.close();
  opened = await openPage(browser, { locale: 'pt-BR', ignoreHTTPSErrors: true });
  const { page } = opened;
  await page.goto(url);
  await page.fill('#holder_name', 'ANA SILVA');
  await page.fill('#number', number);
  await page.fill('#expiry_month', '03');
  await page.fill('#expiry_year', '2030');
  await page.fill('#cvv', '737');
  return page;
}

it('approved through a 3-D Secure challenge, charged without the payer, cancelled: the card disabled at Adyen', async () => {
  const r = await createMandate();
  expect(r.status).toBe(200);
  expect(r.body).toMatchObject({ status: 'pending_approval', method: 'card', approval: { type: 'redirect' } });
  const id = r.body.mandate_id as string;
  expect(r.body.approval.url).toContain(`/mandates/${id}/approve`);
  const page = await typeCard(r.body.approval.url, '4111111145551142');
  expect(await page.textContent('main')).toContain('R$');
  await expectAccessible(page);
  adyen.nextCard({ resultCode: 'ChallengeShopper' });
  await page.click('button[type=submit]');
  await page.waitForURL(/\/hpp\/3ds\//, { timeout: 15_000 });
  const sent = [...adyen.requests].reverse().find((q) => q.path === '/payments')?.body as Record<string, any>;
  expect(sent).toMatchObject({
    amount: { value: 0, currency: 'BRL' },
    storePaymentMethod: true,
    recurringProcessingModel: 'Subscription',
    shopperInteraction: 'Ecommerce',
    shopperReference: shopperReferenceOf(id),
    browserInfo: { screenWidth: 1280, screenHeight: 800, userAgent: expect.stringContaining('Chrome') },
  });
  await page.click('#complete');
  await page.waitForURL(`${shop.url}/ok`, { timeout: 15_000 });

  const approved = await api('GET', `/api/v1/mandates/${id}`);
  expect(approved.body).toMatchObject({ status: 'active', card: { last_four: '1142' }, approved_at: expect.any(String) });
  expect(adyen.storedMethods().filter((s) => s.shopperReference === shopperReferenceOf(id))).toHaveLength(1);

  const before = await balanceMinorOf(stack, apiKey, 'BRL');
  const charge = await api('POST', `/api/v1/mandates/${id}/charges`, { amount: 49.9, due_date: localToday(new Date()) });
  expect(charge.status).toBe(200);
  expect(charge.body).toMatchObject({ status: 'success', payment_method: 'card', mandate_id: id });
  const mit = [...adyen.requests].reverse().find((q) => q.path === '/payments')?.body as Record<string, any>;
  expect(mit).toMatchObject({ shopperInteraction: 'ContAuth', recurringProcessingModel: 'Subscription', amount: { value: 4990 } });
  expect(mit.paymentMethod.storedPaymentMethodId).toBeTruthy();
  expect(mit.browserInfo).toBeUndefined();
  expect((await balanceMinorOf(stack, apiKey, 'BRL')) - before).toBe(4990);

  const cancelled = await api('POST', `/api/v1/mandates/${id}/cancel`);
  expect(cancelled.body).toMatchObject({ status: 'cancelled', cancelled_by: 'merchant' });
  expect(adyen.storedMethods().filter((s) => s.shopperReference === shopperReferenceOf(id) && !s.disabled)).toHaveLength(0);

  const stored = JSON.stringify(await mandateDeps().mandates.get(id));
  expect(stored).not.toContain('4111111145551142');
  expect(stored).not.toContain('"737"');
  expect(logs.lines.join('')).not.toContain('4111111145551142');
  expect(adyen.violations).toEqual([]);
  expect(opened!.unexpected()).toEqual([]);
});

it('a declined card rejects the mandate and sends the payer to cancel_url; the page of an unknown mandate is a 404 page', async () => {
  const r = await createMandate();
  const page = await typeCard(r.body.approval.url, '4111111145551142');
  adyen.nextCard({ resultCode: 'Refused', refusalReason: 'Refused', refusalReasonCode: '2' });
  await page.click('button[type=submit]');
  await page.waitForURL(`${shop.url}/cancel`, { timeout: 15_000 });
  const m = await api('GET', `/api/v1/mandates/${r.body.mandate_id}`);
  expect(m.body).toMatchObject({ status: 'rejected', failure_code: expect.any(String) });
  const missing = await stack.request('/mandates/md_A1b2C3d4E5f6G7h8I9j0KlMnOpQr/approve');
  expect(missing.status).toBe(404);
  expect(missing.headers.get('content-type')).toMatch(/^text\/html/);
  expect(adyen.violations).toEqual([]);
});
