/**
 * Live local pay-ins through dLocal (issues 32 and 41), over real HTTP on the local engines against the fake dLocal: what
 * discovery offers live, Colombia's PSE (`pse`, svc-mt-14, dLocal's PC) beside its Bre-B bank transfer (svc-mt-17,
 * offered live; its QR is tested in live-dlocal-new-rows.test.ts), Ecuador's bank transfer (svc-mt-26, which dLocal
 * does not serve: METHOD_NOT_AVAILABLE, nothing written, nothing sent), Argentina's bank transfer (svc-mt-25, dLocal's
 * IO by redirect), Peru's online banking (`payin`, svc-mt-3, dLocal's BCP by redirect), a redirect payment (a Peruvian
 * bank transfer) paid on dLocal's page and settled only after its notification is verified and the payment read back
 * (balance, ledger, signed webhook), the shopper's return to the merchant's success_url, a PagoEfectivo CIP ticket
 * shown and expired, a forged notification (401, nothing moves), duplicate and out-of-order notifications, a missed
 * one found by the reconciliation job, a create with no answer (the same order when read back, never a second one),
 * and another amount recorded and alarmed, never settled.
 */
import '../support/log-level-info';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { providersCheck } from '../../bin/cli/providers';
import { reconcileHeldPayments } from '../../shared/application/rails';
import { orderIdOf } from '../../shared/adapters/providers/dlocal/dlocal.transformers';
import { paymentDeps } from '../../shared/wiring';
import { startFakeDlocal, type FakeDlocal } from '../support/fake-dlocal';
import { verifyWebhook } from '../support/merchant-verify';
import type { Receiver } from '../support/receiver';
import {
  balanceMinorOf,
  captureLogs,
  expectLedgerEqualsBalance,
  startLiveStage,
  type LiveMerchant,
  type LiveStage,
} from '../support/live-stage';
import type { TestMerchant, TestStack } from '../support/test-stack';
import { listed, payments } from '../support/payments';

let fake: FakeDlocal;
let stack: TestStack;
let receiver: Receiver;
let merchant: LiveMerchant;
let live: LiveStage;

beforeAll(async () => {
  fake = await startFakeDlocal({ hangMs: 5_000 });
  live = await startLiveStage(
    { dlocal: fake.dlocalConfig({ timeouts: { connect_ms: 1000, total_ms: 1500 } }) },
    { merchantName: 'Tienda Lima', receiver: true },
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

const shopper = { name: 'Rosa Quispe', email: 'rosa@example.pe', document: '45678912' };
const colombian = { name: 'Camila Rojas', email: 'camila@example.co', document: '1020304050' };
const NOTIFICATIONS = () => `${stack.baseUrl}/providers/dlocal/notifications`;

/** A live Peruvian checkout paid with `method` (bank_transfer: a redirect; cip: a PagoEfectivo ticket). */
async function pay(method: 'bank_transfer' | 'cip', amount = 150) {
  const api = payments(stack, merchant as TestMerchant);
  const session = await api.createSession({ amount, currency: 'PEN', country: 'PER' });
  expect(session.status).toBe(200);
  const r = await api.process(session.body.session_id as string, method, { customer: shopper });
  // A 502 names the payment left processing in its message.
  const id = (r.body.payment_id as string | undefined) ?? /pi_[A-Za-z0-9_-]{22}/.exec(String(r.body.error_message))?.[0];
  return { r, sessionId: session.body.session_id as string, id: id as string };
}
const stored = async (id: string) => (await paymentDeps().store.getPayment(id))!;
const status = async (id: string) =>
  (await stack.request(`/cashier/cashier/status/${merchant.merchantId}/${id}`, { apiKey: merchant.apiKey })).body;
const balance = () => balanceMinorOf(stack, merchant.apiKey, 'PEN');
const later = (seconds: number) => new Date(Date.now() + seconds * 1000);
/** A notification posted as dLocal posts it (the fake signs it), answered by our route. */
const notify = (id: string, o: Parameters<FakeDlocal['notify']>[1] = {}) => fake.notify(orderIdOf(id), o);

describe('live local pay-ins through dLocal', () => {
  it('discovery offers live exactly the methods dLocal serves per country', async () => {
    const codes = async (country: string) =>
      (
        (await stack.request(`/api/v1/methods?country=${country}`, { apiKey: merchant.apiKey })).body.methods as Array<{
          method_code: string;
        }>
      )
        .map((m) => m.method_code)
        .sort();
    // Peru's online banking (svc-mt-3) is dLocal's BCP.
    expect(await codes('PER')).toEqual(['svc-mt-11', 'svc-mt-12', 'svc-mt-13', 'svc-mt-3']);
    // PSE is svc-mt-14; svc-mt-17 is dLocal's Bre-B QR.
    expect(await codes('COL')).toEqual(['svc-mt-14', 'svc-mt-15', 'svc-mt-16', 'svc-mt-17']);
    expect(await codes('CHL')).toEqual(['svc-mt-18', 'svc-mt-19']);
    // Argentina's bank transfer is dLocal's IO; dLocal's Ecuadorian bank transfer (svc-mt-26) is not read as served.
    expect(await codes('ARG')).toEqual(['svc-mt-25']);
    expect(await codes('ECU')).toEqual([]);
    // Brazil: Pix through dLocal (svc-mt-1, its PIX rail), Pix via Open Finance (svc-mt-7) and the wallets (svc-mt-9);
    // no binance_pay block, so no crypto (svc-mt-4).
    expect(await codes('BRA')).toEqual(['svc-mt-1', 'svc-mt-7', 'svc-mt-9']);
  });

  it('PSE in Colombia (pse, svc-mt-14): offered by the live session, created at dLocal as PC by redirect, recorded as pse', async () => {
    const api = payments(stack, merchant as TestMerchant);
    const session = await api.createSession({ amount: 85_000, currency: 'COP', country: 'COL' });
    expect(session.status).toBe(200);
    const sessionId = session.body.session_id as string;
    // Enabled live: what dLocal serves in Colombia (cards need Adyen, not configured here), Bre-B (svc-mt-17) among them.
    const offered = (await api.getSession(sessionId)).body.available_methods as Array<{
      id: string;
      method_code: string;
      enabled: boolean;
    }>;
    expect(offered.filter((m) => m.enabled).map((m) => [m.id, m.method_code])).toEqual([
      ['pse', 'svc-mt-14'],
      ['bank_transfer', 'svc-mt-17'],
      ['cash', 'svc-mt-16'],
      ['wallet', 'svc-mt-15'],
    ]);
    // The hosted page shows those, each tile with its method code: PSE and the Bre-B bank transfer apart.
    const html = await (await fetch(`${stack.baseUrl}/checkout/${sessionId}`, { headers: { 'accept-language': 'es-CO' } })).text();
    expect(html).toContain('value="pse" data-method-code="svc-mt-14"');
    expect(html).toContain('value="bank_transfer" data-method-code="svc-mt-17"');
    const r = await api.process(sessionId, 'pse', { customer: colombian });
    expect(r.status).toBe(200);
    const id = r.body.payment_id as string;
    expect(r.body).toMatchObject({ success: true, status: 'pending', payment_method: 'pse' });
    const dlocalPayment = fake.payment(orderIdOf(id))!;
    expect(dlocalPayment.request).toMatchObject({
      order_id: orderIdOf(id),
      payment_method_id: 'PC',
      payment_method_flow: 'REDIRECT',
      amount: 85_000,
      currency: 'COP',
      country: 'CO',
      callback_url: `${stack.baseUrl}/providers/dlocal/return/${id}`,
    });
    expect(r.body.redirect_url).toBe(`${fake.baseUrl}/checkout/${dlocalPayment.id}`);
    expect(await status(id)).toMatchObject({ payment_method: 'pse', status: 'pending', currency: 'COP' });
    // Paid at the bank: notified, read back, settled as any redirect.
    fake.setStatus(orderIdOf(id), 'PAID');
    expect((await notify(id)).status).toBe(200);
    expect(await status(id)).toMatchObject({ payment_method: 'pse', status: 'success' });
  });

  it('Argentina’s bank transfer (svc-mt-25): offered live in Spanish, created at dLocal as IO by redirect, paid', async () => {
    const api = payments(stack, merchant as TestMerchant);
    const session = await api.createSession({ amount: 45_000, currency: 'ARS', country: 'ARG' });
    expect(session.status).toBe(200);
    const sessionId = session.body.session_id as string;
    const offered = (await api.getSession(sessionId)).body.available_methods as Array<{
      id: string;
      method_code: string;
      enabled: boolean;
    }>;
    expect(offered.filter((m) => m.enabled).map((m) => [m.id, m.method_code])).toEqual([['bank_transfer', 'svc-mt-25']]);
    const html = await (await fetch(`${stack.baseUrl}/checkout/${sessionId}`, { headers: { 'accept-language': 'es-AR' } })).text();
    expect(html).toMatch(/value="bank_transfer"[^]*?<span class="tile-name">Transferencia bancaria<\/span>/);
    const r = await api.process(sessionId, 'bank_transfer', {
      customer: { name: 'Martín Pérez', email: 'martin@example.com.ar', document: '20123456' },
    });
    expect(r.status).toBe(200);
    const id = r.body.payment_id as string;
    expect(r.body).toMatchObject({ success: true, status: 'pending', payment_method: 'bank_transfer' });
    const dlocalPayment = fake.payment(orderIdOf(id))!;
    expect(dlocalPayment.request).toMatchObject({
      order_id: orderIdOf(id),
      payment_method_id: 'IO',
      payment_method_flow: 'REDIRECT',
      amount: 45_000,
      currency: 'ARS',
      country: 'AR',
      notification_url: NOTIFICATIONS(),
      callback_url: `${stack.baseUrl}/providers/dlocal/return/${id}`,
    });
    expect(r.body.redirect_url).toBe(`${fake.baseUrl}/checkout/${dlocalPayment.id}`);
    fake.setStatus(orderIdOf(id), 'PAID');
    expect((await notify(id)).status).toBe(200);
    expect(await status(id)).toMatchObject({ payment_method: 'bank_transfer', status: 'success', currency: 'ARS' });
    await expectLedgerEqualsBalance(stack, merchant, 'ARS');
  });

  it.each([
    {
      country: 'ECU',
      currency: 'USD',
      amount: 120,
      code: 'svc-mt-26',
      customer: { name: 'Andrea Mora', email: 'andrea@example.ec', document: '1710034065' },
    },
  ])('a bank_transfer in $country ($code) has no dLocal method: METHOD_NOT_AVAILABLE, nothing written, nothing sent', async (t) => {
    const api = payments(stack, merchant as TestMerchant);
    const session = await api.createSession({ amount: t.amount, currency: t.currency, country: t.country });
    const sessionId = session.body.session_id as string;
    const offered = (await api.getSession(sessionId)).body.available_methods as Array<{ id: string; enabled: boolean }>;
    expect(offered.filter((m) => m.enabled).map((m) => m.id)).not.toContain('bank_transfer');
    const html = await (await fetch(`${stack.baseUrl}/checkout/${sessionId}`, { headers: { 'accept-language': 'es' } })).text();
    expect(html).not.toContain('value="bank_transfer"');
    const before = await listed(merchant as TestMerchant, 'PAYMENT');
    const sent = fake.requests.filter((q) => q.path === '/payments').length;
    const r = await api.process(sessionId, 'bank_transfer', { customer: t.customer });
    expect(r.status).toBe(400); // SPEC.md's error table: METHOD_NOT_AVAILABLE is 400
    expect(r.body).toMatchObject({ success: false, status: 'failed', error_code: 'METHOD_NOT_AVAILABLE' });
    expect(fake.requests.filter((q) => q.path === '/payments').length).toBe(sent);
    expect(await listed(merchant as TestMerchant, 'PAYMENT')).toHaveLength(before.length);
    expect((await api.getSession(sessionId)).body).toMatchObject({ status: 'pending', payment_id: null });
  });

  it('Peru’s online banking (payin, svc-mt-3): offered live, created at dLocal as BCP (BC) by redirect, paid and settled', async () => {
    const api = payments(stack, merchant as TestMerchant);
    const before = await balance();
    const session = await api.createSession({ amount: 150, currency: 'PEN', country: 'PER' });
    expect(session.status).toBe(200);
    const sessionId = session.body.session_id as string;
    const offered = (await api.getSession(sessionId)).body.available_methods as Array<{
      id: string;
      method_code: string;
      enabled: boolean;
    }>;
    expect(offered.filter((m) => m.enabled).map((m) => [m.id, m.method_code])).toEqual([
      ['payin', 'svc-mt-3'],
      ['bank_transfer', 'svc-mt-11'],
      ['cip', 'svc-mt-12'],
      ['wallet', 'svc-mt-13'],
    ]);
    const html = await (await fetch(`${stack.baseUrl}/checkout/${sessionId}`, { headers: { 'accept-language': 'es-PE' } })).text();
    expect(html).toContain('value="payin" data-method-code="svc-mt-3"');
    const r = await api.process(sessionId, 'payin', { customer: shopper });
    expect(r.status).toBe(200);
    const id = r.body.payment_id as string;
    expect(r.body).toMatchObject({ success: true, status: 'pending', payment_method: 'payin' });
    const dlocalPayment = fake.payment(orderIdOf(id))!;
    expect(dlocalPayment.request).toMatchObject({
      order_id: orderIdOf(id),
      payment_method_id: 'BC',
      payment_method_flow: 'REDIRECT',
      amount: 150,
      currency: 'PEN',
      country: 'PE',
      notification_url: NOTIFICATIONS(),
      callback_url: `${stack.baseUrl}/providers/dlocal/return/${id}`,
    });
    expect(r.body.redirect_url).toBe(`${fake.baseUrl}/checkout/${dlocalPayment.id}`);
    expect((await api.getSession(sessionId)).body).toMatchObject({ payment_id: id });
    fake.setStatus(orderIdOf(id), 'PAID');
    expect((await notify(id)).status).toBe(200);
    expect(await status(id)).toMatchObject({ payment_method: 'payin', status: 'success', currency: 'PEN' });
    expect(await balance()).toBe(before + 15_000);
    await expectLedgerEqualsBalance(stack, merchant, 'PEN');
  });

  it('a redirect payment: dLocal’s page, a notification verified and read back, settled once, signed webhook, success_url', async () => {
    const before = await balance();
    const { r, id } = await pay('bank_transfer');
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ success: true, status: 'pending', payment_method: 'bank_transfer' });
    const sent = [...fake.requests].reverse().find((q) => q.path === '/payments');
    expect(sent?.body).toMatchObject({
      order_id: orderIdOf(id),
      payment_method_id: 'IO',
      payment_method_flow: 'REDIRECT',
      amount: 150,
      currency: 'PEN',
      country: 'PE',
      notification_url: NOTIFICATIONS(),
      callback_url: `${stack.baseUrl}/providers/dlocal/return/${id}`,
    });
    const dlocalPayment = fake.payment(orderIdOf(id))!;
    expect(r.body.redirect_url).toBe(`${fake.baseUrl}/checkout/${dlocalPayment.id}`);

    // The shopper pays at the bank; dLocal notifies: verified, read back, settled.
    fake.setStatus(orderIdOf(id), 'PAID');
    const reads = fake.requests.filter((q) => q.path === `/payments/${dlocalPayment.id}`).length;
    expect(await notify(id)).toEqual({ status: 200, body: JSON.stringify({ received: 1 }) });
    expect(fake.requests.filter((q) => q.path === `/payments/${dlocalPayment.id}`).length).toBe(reads + 1);
    expect((await stored(id)).status).toBe('success');
    const [h] = await receiver.waitFor(1, 15_000, (x) => x.body?.event === 'payment.success' && x.body?.payment_id === id);
    expect(verifyWebhook(h!.rawBody, h!.headers as Record<string, string>, merchant.webhookSecret).ok).toBe(true);
    expect(await balance()).toBe(before + 15000);

    // A duplicate notification changes nothing.
    expect((await notify(id)).status).toBe(200);
    expect(await balance()).toBe(before + 15000);

    // The browser comes back through our return route, then to the merchant's success_url.
    const back = await fetch(`${stack.baseUrl}/providers/dlocal/return/${id}`, { redirect: 'manual' });
    expect(back.status).toBe(303);
    expect(back.headers.get('location')).toMatch(/^https:\/\/shop\.example\/ok/);
    await expectLedgerEqualsBalance(stack, merchant, 'PEN');
  });

  it('a PagoEfectivo CIP: the ticket’s number and due date shown; expired when dLocal expires it', async () => {
    const { r, sessionId, id } = await pay('cip', 80);
    expect(r.status).toBe(200);
    const p = fake.payment(orderIdOf(id))!;
    expect(p.request).toMatchObject({ payment_method_id: 'EF', payment_method_flow: 'DIRECT' });
    expect(r.body).toMatchObject({
      status: 'pending',
      cip_code: expect.stringMatching(/^\d{8}$/),
      due_date: p.expirationDate.slice(0, 10),
      expires_at: p.expirationDate,
    });
    // The hosted page's status shows the same ticket.
    const page = await stack.request(`/checkout/${sessionId}/status`);
    expect(page.body.payment).toMatchObject({ payment_method: 'cip', artefact: { cip_code: r.body.cip_code, due_date: r.body.due_date } });

    fake.setStatus(orderIdOf(id), 'EXPIRED');
    await reconcileHeldPayments(paymentDeps(), later(15));
    expect((await stored(id)).status).toBe('expired');
    await receiver.waitFor(1, 15_000, (x) => x.body?.event === 'payment.expired' && x.body?.payment_id === id);
  });

  it('an Efecty ticket in Colombia: its number and barcode in the answer and on the hosted page’s status', async () => {
    const api = payments(stack, merchant as TestMerchant);
    const session = await api.createSession({ amount: 50_000, currency: 'COP', country: 'COL' });
    const r = await api.process(session.body.session_id as string, 'cash', {
      customer: { name: 'Camila Rojas', email: 'camila@example.co', document: '1020304050' },
    });
    expect(r.status).toBe(200);
    const id = r.body.payment_id as string;
    expect(fake.payment(orderIdOf(id))!.request).toMatchObject({ payment_method_id: 'EY', amount: 50_000, currency: 'COP', country: 'CO' });
    expect(r.body).toMatchObject({ status: 'pending', voucher_reference: expect.any(String), barcode: expect.stringMatching(/^\d{29}$/) });
    const page = await stack.request(`/checkout/${session.body.session_id as string}/status`);
    expect(page.body.payment.artefact).toMatchObject({ voucher_reference: r.body.voucher_reference, barcode: r.body.barcode });
  });

  it('dLocal paid after the payment expired here: nothing settled, alarmed as money not settled', async () => {
    const before = await balance();
    const { id } = await pay('cip', 30);
    fake.setStatus(orderIdOf(id), 'EXPIRED');
    await reconcileHeldPayments(paymentDeps(), later(15));
    expect((await stored(id)).status).toBe('expired');
    fake.setStatus(orderIdOf(id), 'PAID');
    const logs = captureLogs();
    try {
      expect((await notify(id)).status).toBe(200);
    } finally {
      logs.restore();
    }
    // The alarm: one ERROR line naming the provider (the route's handler body is shared with Binance Pay's).
    const errors = logs.lines
      .join('')
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .filter((l) => l.level === 'ERROR' && /closed here/.test(String(l.message)));
    expect(errors).toEqual([
      expect.objectContaining({ message: 'The provider reports paid a payment closed here: not settled', provider: 'dlocal' }),
    ]);
    expect((await stored(id)).status).toBe('expired');
    expect(await balance()).toBe(before);
  });

  it('a forged or unsigned notification is 401 and moves nothing, though dLocal holds it paid', async () => {
    const before = await balance();
    const { id } = await pay('bank_transfer');
    fake.setStatus(orderIdOf(id), 'PAID');
    const reads = fake.requests.length;
    expect((await notify(id, { sign: 'forged' })).status).toBe(401);
    expect((await notify(id, { sign: 'none' })).status).toBe(401);
    // Nothing was read back on their word, nothing moved.
    expect(fake.requests.length).toBe(reads);
    expect((await stored(id)).status).toBe('pending');
    expect(await balance()).toBe(before);
    // The genuine one settles it.
    expect((await notify(id)).status).toBe(200);
    expect((await stored(id)).status).toBe('success');
  });

  it('out of order: a stale PENDING copy after the payment is paid settles what dLocal holds, once', async () => {
    const before = await balance();
    const { id } = await pay('bank_transfer', 60);
    fake.setStatus(orderIdOf(id), 'PAID');
    expect((await notify(id, { status: 'PENDING' })).status).toBe(200);
    expect((await stored(id)).status).toBe('success');
    expect((await notify(id, { status: 'PENDING' })).status).toBe(200);
    expect((await notify(id)).status).toBe(200);
    expect(await balance()).toBe(before + 6000);
    await expectLedgerEqualsBalance(stack, merchant, 'PEN');
  });

  it('a rejection read back fails the payment with our code, never dLocal’s text', async () => {
    const { id } = await pay('bank_transfer', 70);
    fake.setStatus(orderIdOf(id), 'REJECTED', '301');
    expect((await notify(id)).status).toBe(200);
    expect(await stored(id)).toMatchObject({ status: 'failed', failure_code: 'rejected_by_bank' });
  });

  it('a missed notification: the reconciliation job reads the payment back and settles it', async () => {
    const before = await balance();
    const { id } = await pay('cip', 45);
    fake.setStatus(orderIdOf(id), 'PAID');
    const r = await reconcileHeldPayments(paymentDeps(), later(15));
    expect(r.settled).toBeGreaterThanOrEqual(1);
    expect((await stored(id)).status).toBe('success');
    expect(await balance()).toBe(before + 4500);
    await receiver.waitFor(1, 15_000, (x) => x.body?.event === 'payment.success' && x.body?.payment_id === id);
  });

  it('a create whose answer is lost stays processing (502), and is read back as the same order, never a second one', async () => {
    fake.failNext('payments', { hangAfter: true });
    const { r, id } = await pay('bank_transfer', 90);
    expect(r.status).toBe(502);
    expect(r.body).toMatchObject({ success: false, error_code: 'PROVIDER_UNAVAILABLE' });
    expect((await stored(id)).status).toBe('processing');
    await reconcileHeldPayments(paymentDeps(), later(15));
    const after = await stored(id);
    expect(after.status).toBe('pending');
    expect(after.redirect_url).toBe(`${fake.baseUrl}/checkout/${fake.payment(orderIdOf(id))!.id}`);
    expect(fake.creates(orderIdOf(id))).toBe(1);
  });

  it('a create answered 5xx leaves the payment processing; never created there, it fails after the grace', async () => {
    fake.failNext('payments', { status: 503 });
    const { r, id } = await pay('bank_transfer', 95);
    expect(r.status).toBe(502);
    expect((await stored(id)).status).toBe('processing');
    await reconcileHeldPayments(paymentDeps(), later(15));
    expect((await stored(id)).status).toBe('processing');
    await reconcileHeldPayments(paymentDeps(), later(200));
    expect(await stored(id)).toMatchObject({ status: 'failed', failure_code: 'PROVIDER_UNAVAILABLE' });
    expect(fake.payment(orderIdOf(id))).toBeUndefined();
  });

  it('another amount paid is recorded and alarmed, never settled', async () => {
    const before = await balance();
    const { id } = await pay('bank_transfer', 100);
    fake.setPaidAmount(orderIdOf(id), 99.5);
    fake.setStatus(orderIdOf(id), 'PAID');
    expect((await notify(id)).status).toBe(200);
    expect(await stored(id)).toMatchObject({ status: 'pending', provider_mismatch_minor: 9950 });
    expect(await status(id)).toMatchObject({ status: 'pending' });
    expect(await balance()).toBe(before);
  });

  it('providers check: a signed read-back dLocal answers; a secret key it does not know fails, naming no secret', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'providers-'));
    const check = async (cfg: Record<string, unknown>) => {
      const file = join(dir, `${Math.random()}.json`);
      writeFileSync(file, JSON.stringify({ dlocal: cfg }));
      const out: string[] = [];
      const code = await providersCheck({ providers: file }, { out: (l) => out.push(l), err: (l) => out.push(l) });
      return { code, out: out.join('\n') };
    };
    const ok = await check(fake.dlocalConfig());
    expect(ok).toMatchObject({ code: 0, out: expect.stringContaining(`dlocal: signed read-back answered by ${fake.baseUrl}`) });
    const secret = 'not-the-account-secret-key-0123456789';
    const bad = await check(fake.dlocalConfig({ secret_key: secret }));
    expect(bad.code).toBe(1);
    expect(bad.out).toMatch(/dlocal: FAILED: dLocal refused our credentials/);
    expect(bad.out).not.toContain(secret);
    expect(fake.violations.splice(0)).toEqual([expect.stringContaining('signature does not match')]);
  });
});
