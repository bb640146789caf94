/** The hosted checkout in Chromium: paying with each method kind, as a shopper would, in their language. */
import type { Browser } from 'playwright-core';
import { launchBrowser, openPage, hasHorizontalScroll, startShop, type OpenedPage } from '../support/browser';
import { paymentsSuite } from '../support/payments';
import { typeableLineToBarcode } from '../../shared/domain/payments/boleto';
import { chooseMethod, CPF, CURP, ARG_DNI, decodeItf, expectAccessible, fillCard, fillCustomer, pay } from './checkout-support';

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
    expect(o.unexpected()).toEqual([]); // no console error, failed request or error response in any flow
    await o.close();
  }
  opened = [];
});

async function open(over: Record<string, unknown> = {}, opts: Parameters<typeof openPage>[1] = { locale: 'pt-BR' }) {
  const r = await suite.api.createSession({ success_url: `${shop.url}/ok`, cancel_url: `${shop.url}/cancel`, ...over });
  expect(r.status).toBe(200);
  const o = await openPage(browser, opts);
  opened.push(o);
  const navigations: string[] = [];
  o.page.on('framenavigated', (f) => f === o.page.mainFrame() && navigations.push(f.url()));
  await o.page.goto(r.body.checkout_url);
  return { ...o, sessionId: r.body.session_id as string, url: r.body.checkout_url as string, navigations };
}

const okUrl = (id: string) => `${shop.url}/ok?session_id=${id}`;

describe('Brazil, pt-BR', () => {
  it('PIX: QR, copy-paste, countdown; paid elsewhere, the page flips to paid and lands on success_url without a reload', async () => {
    const { page, sessionId, url, navigations } = await open();
    expect(await page.getAttribute('html', 'lang')).toBe('pt-BR');
    await expect(page.locator('.amount').textContent()).resolves.toMatch(/^R\$\s100,50$/);
    await expect(page.locator('label[for=f-document]').textContent()).resolves.toBe('CPF ou CNPJ');
    await expectAccessible(page);
    await fillCustomer(page, CPF);
    expect(await page.inputValue('#f-document')).toBe('529.982.247-25');
    const body = await pay(page);
    expect(body).toMatchObject({ success: true, status: 'pending', payment_method: 'pix' });
    await expect(page.locator('#pay').isHidden()).resolves.toBe(true);
    await page.waitForSelector('img.qr');
    expect(await page.getAttribute('img.qr', 'alt')).toMatch(/QR code PIX de R\$\s100,50/);
    // The <img> exists before its PNG arrives: wait until the browser has finished loading it (or failed to).
    await page.waitForFunction(() => (document.querySelector('img.qr') as HTMLImageElement).complete);
    expect(await page.evaluate(() => (document.querySelector('img.qr') as HTMLImageElement).naturalWidth)).toBeGreaterThan(100);
    expect(await page.inputValue('#pix-code')).toBe(body.pix_code);
    await page.getByRole('button', { name: 'Copiar' }).click();
    await page.getByRole('button', { name: 'Copiado' }).waitFor();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(body.pix_code);
    expect(await page.textContent('#countdown')).toMatch(/^(30:00|29:[0-5]\d)$/);
    await expectAccessible(page);

    const paid = await suite.api.simulate(body.payment_id, 'success');
    expect(paid.status).toBe(200);
    await page.waitForURL(okUrl(sessionId), { timeout: 15_000 });
    expect(navigations.filter((n) => n === url)).toHaveLength(1); // never reloaded
    expect((await suite.api.getSession(sessionId)).body.status).toBe('success');
  });

  it('card 4242 with 3 installments: approved, lands on success_url', async () => {
    const { page, sessionId } = await open();
    await chooseMethod(page, 'card');
    await fillCustomer(page, CPF);
    await fillCard(page, '4242424242424242');
    expect(await page.inputValue('#f-number')).toBe('4242 4242 4242 4242');
    expect(await page.textContent('#card-brand')).toBe('visa');
    await expect(page.locator('#f-installments option').allTextContents()).resolves.toContain('3x de R$\u00a033,50 sem juros');
    await page.selectOption('#f-installments', '3');
    await expectAccessible(page);
    const body = await pay(page);
    expect(body).toMatchObject({ success: true, status: 'success', card_brand: 'visa', card_last_four: '4242' });
    await page.waitForURL(okUrl(sessionId));
  });

  it('card 3DS approved: the bank page, then back to success_url', async () => {
    const { page, sessionId } = await open();
    await chooseMethod(page, 'card');
    await fillCustomer(page, CPF);
    await fillCard(page, '4000000000003220');
    await Promise.all([page.waitForURL('**/sandbox/3ds/**'), page.click('#submit')]);
    await expectAccessible(page);
    await Promise.all([page.waitForURL(okUrl(sessionId)), page.getByRole('button', { name: 'Authenticate' }).click()]);
  });

  it('card 3DS failed: back on the checkout with the localised reason; another card then pays', async () => {
    const { page, sessionId, url } = await open();
    await chooseMethod(page, 'card');
    await fillCustomer(page, CPF);
    await fillCard(page, '4000000000003220');
    await Promise.all([page.waitForURL('**/sandbox/3ds/**'), page.click('#submit')]);
    await Promise.all([page.waitForURL(url), page.getByRole('button', { name: 'Fail authentication' }).click()]);
    await expect(page.locator('#alert').textContent()).resolves.toBe(
      'Seu banco não confirmou este pagamento (3-D Secure). Tente de novo ou use outro cartão.',
    );
    await expectAccessible(page);
    await chooseMethod(page, 'card');
    await fillCustomer(page, CPF);
    await fillCard(page, '5555555555554444');
    expect((await pay(page)).status).toBe('success');
    await page.waitForURL(okUrl(sessionId));
  });

  it('declined card: the localised decline, then a retry; inline errors stop a bad CPF or Luhn before any request', async () => {
    const { page, sessionId, expected } = await open();
    expected.push(/422.*checkout\/process|status of 422/); // the decline answer, which Chromium logs as a failed resource
    let requests = 0;
    page.on('request', (r) => r.url().endsWith('/api/v1/checkout/process') && requests++);
    await chooseMethod(page, 'card');
    await fillCustomer(page, '52998224724');
    await fillCard(page, '4242424242424241', '01/20');
    await page.click('#submit');
    expect(await page.textContent('#f-document-err')).toBe('Informe um CPF ou CNPJ válido: confira o número.');
    expect(await page.textContent('#f-number-err')).toBe('Este número de cartão não é válido.');
    expect(await page.textContent('#f-expiry-err')).toBe('Este cartão está vencido.');
    expect(await page.getAttribute('#f-document', 'aria-invalid')).toBe('true');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('f-document');
    await expectAccessible(page);
    expect(requests).toBe(0);

    await fillCustomer(page, CPF);
    await fillCard(page, '4000000000000002');
    const declined = await pay(page);
    expect(declined).toMatchObject({ success: false, failure_code: 'card_declined' });
    await expect(page.locator('#alert').textContent()).resolves.toBe(
      'Seu cartão foi recusado. Tente outro cartão ou outra forma de pagamento.',
    );
    expect(await page.isVisible('#pay')).toBe(true);
    await fillCard(page, '5555555555554444');
    expect((await pay(page)).status).toBe('success');
    await page.waitForURL(okUrl(sessionId));
    expect(requests).toBe(2);
  });

  it('boleto: typeable line with copy, an ITF barcode that decodes to the barcode digits, due date, print', async () => {
    const { page } = await open();
    await chooseMethod(page, 'boleto');
    await fillCustomer(page, CPF);
    const body = await pay(page);
    await page.waitForSelector('#boleto-barcode svg');
    const line = await page.inputValue('#boleto-line');
    expect(line.replace(/\D/g, '')).toBe(body.boleto_line);
    const rects = await page.$$eval('#boleto-barcode svg g rect', (rs) =>
      rs.map((r) => ({ x: Number(r.getAttribute('x')), width: Number(r.getAttribute('width')) })),
    );
    expect(decodeItf(rects)).toBe(typeableLineToBarcode(body.boleto_line));
    expect(decodeItf(rects)).toBe(body.boleto_barcode);
    await expect(page.locator('.facts').textContent()).resolves.toContain(
      new Intl.DateTimeFormat('pt-BR', { dateStyle: 'long', timeZone: 'UTC' }).format(new Date(`${body.due_date}T12:00:00Z`)),
    );
    await expect(page.getByRole('button', { name: 'Imprimir boleto' }).isVisible()).resolves.toBe(true);
    await expectAccessible(page);
  });

  it('reloading mid-payment shows the same payment; a double submit creates one payment', async () => {
    const { page, sessionId } = await open();
    let requests = 0;
    page.on('request', (r) => r.url().endsWith('/api/v1/checkout/process') && requests++);
    await fillCustomer(page, CPF);
    await page.dblclick('#submit');
    await page.waitForSelector('#pix-code');
    const code = await page.inputValue('#pix-code');
    expect(requests).toBe(1);
    await page.reload();
    await page.waitForSelector('#pix-code');
    expect(await page.inputValue('#pix-code')).toBe(code);
    expect(await page.isHidden('#pay')).toBe(true);
    expect((await suite.api.getSession(sessionId)).body.payment_status).toBe('pending');
  });
});

describe('Spanish-speaking countries', () => {
  it('Mexico SPEI (es-MX): CLABE and reference with copy, amount as Mexico writes it', async () => {
    const { page } = await open({ amount: 250, currency: 'MXN', country: 'MEX' }, { locale: 'es-MX' });
    expect(await page.getAttribute('html', 'lang')).toBe('es-MX');
    expect(await page.textContent('.amount')).toBe('$250.00');
    expect(await page.textContent('label[for=f-document]')).toBe('CURP');
    await chooseMethod(page, 'spei');
    await fillCustomer(page, CURP.toLowerCase());
    expect(await page.inputValue('#f-document')).toBe(CURP);
    const body = await pay(page);
    await page.waitForSelector('#clabe');
    expect(await page.inputValue('#clabe')).toBe(body.clabe);
    expect(await page.inputValue('#reference')).toBe(body.reference);
    await expect(page.locator('h2').textContent()).resolves.toBe('Paga por transferencia SPEI');
    await expectAccessible(page);
  });

  it('Mexico OXXO cash voucher (mobile): reference, instructions, no horizontal scroll', async () => {
    const { page } = await open({ amount: 250, currency: 'MXN', country: 'MEX' }, { locale: 'es-MX', viewport: 'mobile' });
    expect(await hasHorizontalScroll(page)).toBe(false);
    await chooseMethod(page, 'cash');
    await fillCustomer(page, CURP);
    const body = await pay(page);
    await page.waitForSelector('#voucher');
    expect(await page.inputValue('#voucher')).toBe(body.voucher_reference);
    await expect(page.locator('.steps').textContent()).resolves.toContain('OXXO');
    expect(await hasHorizontalScroll(page)).toBe(false);
    await expectAccessible(page);
  });

  it('Argentina card (es-AR) in cuotas with a DNI', async () => {
    const { page, sessionId } = await open({ amount: 120000, currency: 'ARS', country: 'ARG' }, { locale: 'es-AR' });
    expect(await page.textContent('.amount')).toBe('$\u00a0120.000,00');
    expect(await page.textContent('label[for=f-document]')).toBe('DNI o CUIT/CUIL');
    await chooseMethod(page, 'card');
    await fillCustomer(page, ARG_DNI);
    await fillCard(page, '4242424242424242');
    await expect(page.locator('#f-installments option').allTextContents()).resolves.toContain('6 cuotas de $\u00a020.000,00 sin interés');
    await page.selectOption('#f-installments', '6');
    await expectAccessible(page);
    expect((await pay(page)).status).toBe('success');
    await page.waitForURL(okUrl(sessionId));
  });
});
