/**
 * The hosted checkout on the live stage (issue 21): a shopper pays a session with PIX in Chromium; the page's
 * QR decodes to the PSP's own pixCopiaECola; the PSP's callback settles it and the page lands on success_url.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import type { Browser } from 'playwright-core';
import { launchBrowser, openPage, startShop, type OpenedPage } from '../support/browser';
import { startFakePsp, type FakePsp } from '../support/fake-psp';
import { startTestStack, type TestStack } from '../support/test-stack';
import { SESSION_BODY } from '../support/sample-data';
import { buildLiveProviders } from '../../shared/adapters/providers/live-connectors';
import { parseProvidersConfig } from '../../shared/adapters/providers/providers.config';
import { CPF, expectAccessible, fillCustomer, pay } from './checkout-support';

jest.setTimeout(60_000);
const TOKEN = randomBytes(24).toString('base64url');
let psp: FakePsp;
let stack: TestStack;
let browser: Browser;
let shop: Awaited<ReturnType<typeof startShop>>;
let apiKey: string;
let opened: OpenedPage | undefined;

beforeAll(async () => {
  psp = await startFakePsp();
  const file = join(mkdtempSync(join(tmpdir(), 'providers-')), 'providers.json');
  writeFileSync(file, JSON.stringify({ api_pix: psp.apiPixConfig(TOKEN) }));
  Object.assign(process.env, { STAGE: 'live', PROVIDERS_FILE: file });
  stack = await startTestStack();
  const m = await stack.admin.createMerchant({ name: 'Loja Ao Vivo' });
  apiKey = (await stack.admin.createKey(m.merchant.merchant_id, 'live')).secret;
  const live = buildLiveProviders(parseProvidersConfig(JSON.stringify({ api_pix: psp.apiPixConfig(TOKEN) }), 'test'));
  await live.apiPix?.webhooks.register(`${stack.baseUrl}/providers/api-pix/${TOKEN}`);
  live.apiPix?.client.close();
  browser = await launchBrowser();
  shop = await startShop();
});

afterAll(async () => {
  await opened?.close();
  await browser?.close();
  await shop?.close();
  await stack?.stop();
  await psp?.close();
  process.env.STAGE = 'sandbox';
  delete process.env.PROVIDERS_FILE;
});

/* eslint-disable @typescript-eslint/no-require-imports */
const jsQR = require('jsqr') as typeof import('jsqr').default;
const { PNG } = require('pngjs') as typeof import('pngjs');
const decode = (png: Buffer) => {
  const img = PNG.sync.read(png);
  return jsQR(new Uint8ClampedArray(img.data), img.width, img.height)?.data;
};

it("PIX on the live stage: the QR is the PSP's code; the PSP's callback lands the shopper on success_url", async () => {
  const r = await stack.request('/api/v1/checkout', {
    method: 'POST',
    apiKey,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ ...SESSION_BODY, success_url: `${shop.url}/ok`, cancel_url: `${shop.url}/cancel` }),
  });
  expect(r.status).toBe(200);
  const sessionId = r.body.session_id as string;
  opened = await openPage(browser, { locale: 'pt-BR' });
  const { page } = opened;
  await page.goto(r.body.checkout_url);
  await fillCustomer(page, CPF);
  const body = await pay(page);
  expect(body).toMatchObject({ success: true, status: 'pending', payment_method: 'pix' });
  const txid = `pi${Buffer.from(String(body.payment_id).slice(3), 'base64url').toString('hex')}`;
  const cob = psp.cob(txid);
  expect(cob?.status).toBe('ATIVA');
  expect(body.pix_code).toBe(cob?.pixCopiaECola);

  await page.waitForSelector('img.qr');
  await page.waitForFunction(() => (document.querySelector('img.qr') as HTMLImageElement).complete);
  const src = await page.getAttribute('img.qr', 'src');
  const png = Buffer.from(await (await fetch(new URL(src as string, stack.baseUrl))).arrayBuffer());
  expect(decode(png)).toBe(cob?.pixCopiaECola);
  expect(await page.inputValue('#pix-code')).toBe(cob?.pixCopiaECola);
  await expectAccessible(page);

  const paid = await psp.pay(txid);
  expect(paid.callbackStatus).toBe(200);
  await page.waitForURL(`${shop.url}/ok?session_id=${sessionId}`, { timeout: 15_000 });
  const s = await stack.request(`/api/v1/checkout/${sessionId}`, { apiKey });
  expect(s.body.status).toBe('success');
  expect(psp.violations).toEqual([]);
  expect(opened.unexpected()).toEqual([]);
});
