/**
 * The hosted checkout's other states in Chromium: closed sessions, the cancel link, language choice,
 * security headers, weight, mobile layout.
 */
import type { Browser } from 'playwright-core';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient } from '../../shared/adapters/aws-clients';
import { config } from '../../shared/config';
import { sessionEntity } from '../../shared/adapters/dynamodb/entities/session.entity';
import { hasHorizontalScroll, launchBrowser, openPage, startShop, type OpenedPage } from '../support/browser';
import { paymentsSuite } from '../support/payments';
import { expectAccessible } from './checkout-support';
import { contractFetch } from '../support/contract';

jest.setTimeout(60_000);
const suite = paymentsSuite();
let browser: Browser;
let shop: Awaited<ReturnType<typeof startShop>>;
let opened: OpenedPage[] = [];
beforeAll(async () => {
  browser = await launchBrowser();
  shop = await startShop();
});
afterAll(async () => {
  await browser?.close();
  await shop?.close();
});
afterEach(async () => {
  for (const o of opened) {
    expect(o.unexpected()).toEqual([]);
    await o.close();
  }
  opened = [];
});

async function session(over: Record<string, unknown> = {}) {
  const r = await suite.api.createSession({ success_url: `${shop.url}/ok`, cancel_url: `${shop.url}/cancel`, ...over });
  return { id: r.body.session_id as string, url: r.body.checkout_url as string };
}
async function open(url: string, opts: Parameters<typeof openPage>[1] = { locale: 'pt-BR' }) {
  const o = await openPage(browser, opts);
  opened.push(o);
  await o.page.goto(url);
  return o;
}

it('an expired session renders its own page (no form) with the way back', async () => {
  const { id, url } = await session();
  // Time passes: the session's expires_at moves into the past (the page settles the expiry on read).
  await documentClient().send(
    new UpdateCommand({
      TableName: config.tableName,
      Key: sessionEntity.key(id),
      UpdateExpression: 'SET expires_at = :past',
      ExpressionAttributeValues: { ':past': new Date(Date.now() - 1000).toISOString() },
    }),
  );
  const { page } = await open(url);
  expect(await page.textContent('h2')).toBe('Este checkout expirou');
  expect(await page.locator('#pay').count()).toBe(0);
  expect(await page.getAttribute('a.btn', 'href')).toBe(`${shop.url}/cancel?session_id=${id}`);
  await expectAccessible(page);
  expect((await suite.api.getSession(id)).body.status).toBe('expired');
});

it('a cancelled session renders its own page; a completed one says it is paid', async () => {
  const a = await session();
  expect((await suite.api.cancelSession(a.id)).status).toBe(200);
  const { page } = await open(a.url);
  expect(await page.textContent('h2')).toBe('Este checkout foi cancelado');
  expect(await page.locator('#pay').count()).toBe(0);
  await expectAccessible(page);

  const b = await session();
  const paid = await suite.api.process(b.id, 'card', {
    card: { number: '4242424242424242', holder_name: 'ANA', cvv: '123', expiry_month: '12', expiry_year: '2031' },
  });
  expect(paid.body.status).toBe('success');
  await page.goto(b.url);
  expect(await page.textContent('h2')).toBe('Este pedido está pago');
  expect(await page.getAttribute('a.btn', 'href')).toBe(`${shop.url}/ok?session_id=${b.id}`);
});

it('the cancel link takes the shopper to cancel_url', async () => {
  const { id, url } = await session();
  const { page } = await open(url);
  await Promise.all([page.waitForURL(`${shop.url}/cancel?session_id=${id}`), page.click('#cancel')]);
});

it('language: ?locale= and Accept-Language win over the country; the switcher keeps the session; Chile formats CLP', async () => {
  const { url } = await session();
  const en = await open(url, { locale: 'en-US' });
  expect(await en.page.getAttribute('html', 'lang')).toBe('en-US');
  expect(await en.page.textContent('label[for=f-document]')).toBe('CPF or CNPJ');
  await Promise.all([en.page.waitForURL(/locale=es/), en.page.getByRole('link', { name: 'Español' }).click()]);
  expect(await en.page.getAttribute('html', 'lang')).toBe('es');
  const amount = new Intl.NumberFormat('es', { style: 'currency', currency: 'BRL' }).format(100.5); // "100,50 BRL"
  expect(await en.page.textContent('#submit')).toBe(`Pagar ${amount} con PIX`);

  const chile = await session({ amount: 15000, currency: 'CLP', country: 'CHL' });
  const cl = await open(chile.url, { locale: 'de-DE' });
  expect(await cl.page.getAttribute('html', 'lang')).toBe('es-CL');
  expect(await cl.page.textContent('.amount')).toBe('$15.000');
  expect(await cl.page.textContent('label[for=f-document]')).toBe('RUT');
  await cl.page.fill('#f-document', '123456785');
  expect(await cl.page.inputValue('#f-document')).toBe('12.345.678-5');
  await expectAccessible(cl.page);
});

it('mobile 390x844 and desktop 1280x800: no horizontal scroll, the form and tiles are usable by keyboard', async () => {
  const { url } = await session();
  for (const viewport of ['mobile', 'desktop'] as const) {
    const { page } = await open(url, { locale: 'pt-BR', viewport });
    expect(await hasHorizontalScroll(page)).toBe(false);
    await page.focus('input[name=payment_method][value=pix]');
    await page.keyboard.press('ArrowDown');
    expect(await page.evaluate(() => (document.activeElement as HTMLInputElement).value)).toBe('card');
    expect(await page.isVisible('#card-fields')).toBe(true);
    expect(await hasHorizontalScroll(page)).toBe(false);
  }
});

it('security headers, a strict CSP with a nonce, and a page under 60 KB with no external request', async () => {
  const { url } = await session();
  const res = await contractFetch(url, { headers: { 'accept-language': 'pt-BR' } });
  const html = await res.text();
  const csp = res.headers.get('content-security-policy') ?? '';
  const nonce = /script-src 'nonce-([^']+)'/.exec(csp)?.[1];
  expect(nonce).toBeTruthy();
  expect(csp).toContain("default-src 'none'");
  expect(csp).toContain("frame-ancestors 'none'");
  expect(csp).not.toMatch(/unsafe-inline|unsafe-eval|https?:/);
  expect(res.headers.get('referrer-policy')).toBe('no-referrer');
  expect(res.headers.get('cache-control')).toBe('no-store');
  expect([...html.matchAll(/<script(?![^>]*application\/json)[^>]*>/g)].every((m) => m[0].includes(`nonce="${nonce}"`))).toBe(true);
  expect(Buffer.byteLength(html)).toBeLessThan(60 * 1024);
  expect(html).not.toMatch(/(src|href)="https?:\/\/(?!127\.0\.0\.1)/);
  const second = await contractFetch(url);
  expect(/'nonce-([^']+)'/.exec(second.headers.get('content-security-policy') ?? '')?.[1]).not.toBe(nonce);
});

it('an unknown session gets a localised 404 page, not JSON', async () => {
  const res = await contractFetch(`${suite.stack.baseUrl}/checkout/cs_${'x'.repeat(22)}`, { headers: { 'accept-language': 'es-MX' } });
  expect(res.status).toBe(404);
  expect(res.headers.get('content-type')).toContain('text/html');
  expect(await res.text()).toContain('Checkout no encontrado');
});
