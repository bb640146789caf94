/**
 * The hosted checkout in Chromium: tiles that carry their method code (Colombia's Bre-B and PSE), USDT paid by QR or on
 * the provider's page (the sandbox's stand-in for Binance Pay), Brazil's wallets chosen by name, and a live Bre-B QR view.
 */
import type { Browser, Page, Request } from 'playwright-core';
import { launchBrowser, openPage, startShop, type OpenedPage } from '../support/browser';
import { paymentsSuite } from '../support/payments';
import { chooseMethod, CPF, expectAccessible, fillCustomer, pay } from './checkout-support';

jest.setTimeout(60_000);
const suite = paymentsSuite();
let browser: Browser;
let opened: OpenedPage[] = [];
let shop: Awaited<ReturnType<typeof startShop>>;
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

const COL = { amount: 50_000, currency: 'COP', country: 'COL' };
const CEDULA = '1020304050';

async function open(over: Record<string, unknown> = {}, locale = 'pt-BR') {
  const r = await suite.api.createSession({ success_url: `${shop.url}/ok`, cancel_url: `${shop.url}/cancel`, ...over });
  expect(r.status).toBe(200);
  const o = await openPage(browser, { locale });
  opened.push(o);
  const sent: Record<string, any>[] = [];
  o.page.on('request', (q: Request) => q.url().endsWith('/api/v1/checkout/process') && sent.push(q.postDataJSON()));
  await o.page.goto(r.body.checkout_url);
  return { ...o, sessionId: r.body.session_id as string, sent };
}

/** Each tile's method kind, method code and name, in order. */
const tiles = (page: Page) =>
  page.$$eval('label.tile:has(input[name=payment_method])', (ls) =>
    ls.map((l) => {
      const radio = l.querySelector('input') as HTMLInputElement;
      return { kind: radio.value, code: radio.dataset.methodCode, name: l.querySelector('.tile-name')?.textContent };
    }),
  );

describe('USDT (crypto) in Brazil', () => {
  it('offers a USDT tile; paying shows the USDT quote beside the amount, the QR, the countdown and the Binance Pay link', async () => {
    const { page, context, sessionId, sent } = await open();
    const offered = await tiles(page);
    expect(offered.at(-1)).toEqual({ kind: 'crypto', code: 'svc-mt-4', name: 'USDT (cripto)' });
    expect(offered.find((t) => t.kind === 'pix')).toEqual({ kind: 'pix', code: 'svc-mt-1', name: 'PIX' });
    await expect(page.locator('#d-crypto').textContent()).resolves.toBe(
      'Pague em USDT com a Binance Pay: escaneie o QR ou abra a página de pagamento.',
    );
    await chooseMethod(page, 'crypto');
    await expect(page.locator('#submit').textContent()).resolves.toMatch(/^Pagar R\$\s100,50 com USDT$/);
    await fillCustomer(page, CPF);
    const body = await pay(page);
    expect(sent[0]).toMatchObject({ payment_method: 'crypto', method_code: 'svc-mt-4' });
    expect(sent[0]).not.toHaveProperty('wallet');
    // The sandbox's quote: R$ 100,50 at 0.2 USDT a real.
    expect(body).toMatchObject({
      success: true,
      status: 'pending',
      payment_method: 'crypto',
      crypto_amount: '20.10',
      crypto_currency: 'USDT',
    });
    expect(body.checkout_url).toBe(`${suite.stack.baseUrl}/sandbox/pay/${body.payment_id}`);

    await expect(page.locator('#result-title').textContent()).resolves.toBe('Pague com USDT');
    const facts = await page.locator('.facts').innerText();
    expect(facts).toMatch(/Valor\s+R\$\s100,50/);
    expect(facts).toMatch(/A pagar em USDT\s+20,10 USDT/);
    await page.waitForFunction(() => (document.querySelector('img.qr') as HTMLImageElement | null)?.complete);
    expect(await page.getAttribute('img.qr', 'alt')).toBe('QR code da Binance Pay de 20,10 USDT');
    expect(await page.evaluate(() => (document.querySelector('img.qr') as HTMLImageElement).naturalWidth)).toBeGreaterThan(100);
    expect(await page.getAttribute('img.qr', 'src')).toBe(body.qr_code_image);
    const link = page.getByRole('link', { name: 'Abrir a Binance Pay (abre em uma nova aba)' });
    expect(await link.getAttribute('href')).toBe(body.checkout_url);
    expect(await page.textContent('#countdown')).toMatch(/^(30:00|29:[0-5]\d)$/);
    await expect(page.getByRole('link', { name: 'Simular o pagamento do cliente (modo de teste)' }).isVisible()).resolves.toBe(true);
    await expectAccessible(page);

    // The link opens the sandbox's stand-in for Binance Pay; paying there flips this page to paid (it kept polling).
    const [provider] = await Promise.all([context.waitForEvent('page'), link.click()]);
    await provider.waitForLoadState();
    expect(await provider.title()).toBe('Pay with USDT (sandbox Binance Pay)');
    expect(await provider.textContent('main')).toContain('20.10 USDT');
    await provider.getByRole('button', { name: 'Pay in USDT' }).click();
    await page.waitForURL(`${shop.url}/ok?session_id=${sessionId}`, { timeout: 15_000 });
    expect((await suite.api.getSession(sessionId)).body.status).toBe('success');
  });

  it('a reload mid-payment shows the same USDT payment', async () => {
    const { page } = await open();
    await chooseMethod(page, 'crypto');
    await fillCustomer(page, CPF);
    const body = await pay(page);
    await page.waitForSelector('#crypto-checkout');
    await page.reload();
    await page.waitForSelector('#crypto-checkout');
    expect(await page.getAttribute('#crypto-checkout', 'href')).toBe(body.checkout_url);
    expect(await page.locator('.facts').innerText()).toContain('20,10 USDT');
    expect(await page.getAttribute('img.qr', 'src')).toBe(body.qr_code_image);
  });
});

describe("Brazil's wallets", () => {
  it('the wallet tile offers Mercado Pago, PicPay and NuPay by name; the chosen one is sent', async () => {
    const { page, sent } = await open();
    expect(await page.isHidden('#wallet-fields')).toBe(true);
    await expect(page.locator('#d-wallet').textContent()).resolves.toContain('Mercado Pago, PicPay ou NuPay');
    await chooseMethod(page, 'wallet');
    expect(await page.isVisible('#wallet-fields')).toBe(true);
    const group = page.getByRole('group', { name: 'Escolha a sua carteira' });
    const names = await group
      .locator('input[name=wallet]')
      .evaluateAll((rs) =>
        rs.map((r) => [(r as HTMLInputElement).value, r.closest('label')?.textContent, (r as HTMLInputElement).checked]),
      );
    expect(names).toEqual([
      ['mercado_pago', 'Mercado Pago', true],
      ['picpay', 'PicPay', false],
      ['nupay', 'NuPay', false],
    ]);
    await group.getByRole('radio', { name: 'PicPay' }).check();
    await expectAccessible(page);
    await chooseMethod(page, 'card');
    expect(await page.isHidden('#wallet-fields')).toBe(true);
    await chooseMethod(page, 'wallet');
    expect(await page.isChecked('input[name=wallet][value=picpay]')).toBe(true);
    await fillCustomer(page, CPF);
    await Promise.all([page.waitForURL('**/sandbox/wallet/**'), page.click('#submit')]);
    expect(sent).toEqual([expect.objectContaining({ payment_method: 'wallet', method_code: 'svc-mt-9', wallet: 'picpay' })]);
  });

  it('with the default wallet untouched, Mercado Pago is sent', async () => {
    const { page, sent } = await open();
    await chooseMethod(page, 'wallet');
    await fillCustomer(page, CPF);
    await Promise.all([page.waitForURL('**/sandbox/wallet/**'), page.click('#submit')]);
    expect(sent[0]).toMatchObject({ payment_method: 'wallet', wallet: 'mercado_pago' });
  });
});

describe('Colombia: Bre-B and PSE', () => {
  it('two tiles, Bre-B and PSE, each with its code; choosing PSE sends svc-mt-14 and goes to the bank', async () => {
    const { page, sent } = await open(COL, 'es-CO');
    const offered = await tiles(page);
    expect(offered).toEqual(
      expect.arrayContaining([
        { kind: 'pse', code: 'svc-mt-14', name: 'PSE' },
        { kind: 'bank_transfer', code: 'svc-mt-17', name: 'Bre-B' },
        { kind: 'crypto', code: 'svc-mt-4', name: 'USDT (cripto)' },
      ]),
    );
    expect(offered.filter((t) => ['Bre-B', 'PSE'].includes(t.name ?? ''))).toHaveLength(2);
    await expect(page.locator('#d-bank_transfer').textContent()).resolves.toContain('Bre-B');
    await expectAccessible(page);
    await chooseMethod(page, 'pse');
    await fillCustomer(page, CEDULA);
    await Promise.all([page.waitForURL('**/sandbox/wallet/**'), page.click('#submit')]);
    expect(sent).toEqual([expect.objectContaining({ payment_method: 'pse', method_code: 'svc-mt-14' })]);
    expect(await page.title()).toBe('Pay at your bank through PSE');
  });

  it('Bre-B in the sandbox sends svc-mt-17 and keeps the bank-transfer details', async () => {
    const { page, sent } = await open(COL, 'es-CO');
    await chooseMethod(page, 'bank_transfer');
    await fillCustomer(page, CEDULA);
    const body = await pay(page);
    expect(sent[0]).toMatchObject({ payment_method: 'bank_transfer', method_code: 'svc-mt-17' });
    await page.waitForSelector('#account');
    expect(await page.inputValue('#account')).toBe(body.account_number);
    await expect(page.locator('#result-title').textContent()).resolves.toBe('Paga por transferencia bancaria');
    expect(await page.isVisible('img.qr')).toBe(false);
    await expectAccessible(page);
  });

  it('a Bre-B payment with a QR (as live answers) shows the QR view: steps, the code to copy, the countdown', async () => {
    const { page } = await open(COL, 'es-CO');
    const qr = '00020101021226300014CO.COM.BREB.LLA0108TEST12345204000053031705802CO6304ABCD';
    // The sandbox's Bre-B gives account details: answer as a live provider would, with the QR and its 10-minute expiry.
    await page.route('**/api/v1/checkout/process', async (route) => {
      const real = await route.fetch();
      const j = await real.json();
      const expires_at = new Date(Date.now() + 10 * 60_000).toISOString();
      const live = {
        success: j.success,
        payment_id: j.payment_id,
        status: j.status,
        payment_method: j.payment_method,
        expires_at,
        qr_code: qr,
      };
      await route.fulfill({ response: real, json: live });
    });
    await chooseMethod(page, 'bank_transfer');
    await fillCustomer(page, CEDULA);
    await pay(page);
    await page.waitForSelector('#qr-code');
    await expect(page.locator('#result-title').textContent()).resolves.toBe('Paga con Bre-B');
    await expect(page.locator('.steps').textContent()).resolves.toContain('elige Bre-B');
    expect(await page.inputValue('#qr-code')).toBe(qr);
    expect(await page.textContent('#countdown')).toMatch(/^(10:00|9:[0-5]\d)$/);
    await page.getByRole('button', { name: 'Copiar' }).click();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(qr);
    await expectAccessible(page);
  });
});
