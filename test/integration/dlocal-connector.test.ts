/**
 * The dLocal connector against the fake dLocal, over real HTTPS: every pay-ins call is signed as dLocal checks it
 * (a wrong secret is refused), payments come back as a ticket or a redirect, a second create of one order is
 * answered by reading the payment back, refunds, notifications verified before anything is read (forged ones
 * counted), payouts v3 behind a cached and refreshed OAuth token and never made twice for one payout, statuses in
 * our words, and a 5xx or a hang is ProviderUnavailable within the configured time.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { randomBytes } from 'node:crypto';
import { ProviderRejected, ProviderUnavailable } from '../../shared/application/providers';
import { parseProvidersConfig } from '../../shared/adapters/providers/providers.config';
import { providerHttp, type ProviderHttp } from '../../shared/adapters/providers/http-client';
import { dlocalClient } from '../../shared/adapters/providers/dlocal/dlocal.client';
import { paymentSchema } from '../../shared/adapters/providers/dlocal/dlocal.schemas';
import {
  dlocalConnectors,
  type DlocalConnectors,
  type LocalPaymentRequest,
  type BankPayoutRequest,
} from '../../shared/adapters/providers/dlocal/dlocal.connector';
import { externalIdOf, orderIdOf, refundReferenceOf } from '../../shared/adapters/providers/dlocal/dlocal.transformers';
import { startFakeDlocal, type FakeDlocal } from '../support/fake-dlocal';

const TOTAL_MS = 1000;
let fake: FakeDlocal;
let live: DlocalConnectors;
let receiver: Server;
let receiverUrl: string;
/** What our notification route received last: headers and the raw body, verified and parsed by the connector. */
const received: Array<{ path: string; headers: IncomingHttpHeaders; raw: string }> = [];

const configOf = (over: Record<string, unknown> = {}) =>
  parseProvidersConfig({ dlocal: { ...fake.dlocalConfig(), timeouts: { connect_ms: 1000, total_ms: TOTAL_MS }, ...over } }, 'test').dlocal!;
const connect = (over: Record<string, unknown> = {}) => dlocalConnectors(configOf(over));

beforeAll(async () => {
  fake = await startFakeDlocal({ hangMs: 5_000 });
  live = connect();
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      received.push({ path: req.url ?? '', headers: req.headers, raw });
      const parsed = req.url?.endsWith('/payouts')
        ? live.notifications.parsePayout(req.headers, raw)
        : live.notifications.parse(req.headers, raw);
      res.writeHead(parsed && 'forged' in parsed ? 401 : 200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(parsed));
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  const addr = receiver.address();
  receiverUrl = `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}/providers/dlocal/notifications`;
});
afterAll(async () => {
  live?.client.close();
  await fake?.close();
  await new Promise<void>((r) => (receiver ? receiver.close(() => r()) : r()));
});
afterEach(() => {
  expect(fake.violations).toEqual([]);
});

const paymentId = () => `pi_${randomBytes(16).toString('base64url')}`;
const payoutId = () => `po_${randomBytes(16).toString('base64url')}`;
const refundId = () => `re_${randomBytes(16).toString('base64url')}`;
const payment = (over: Partial<LocalPaymentRequest> = {}): LocalPaymentRequest => ({
  paymentId: paymentId(),
  methodCode: 'svc-mt-12',
  amountMinor: 12_345,
  currency: 'PEN',
  country: 'PER',
  payer: { name: 'Rosa Quispe', email: 'rosa@example.pe', document: '45678912' },
  notificationUrl: receiverUrl,
  returnUrl: 'https://merchant.example/return',
  ...over,
});
const payout = (over: Partial<BankPayoutRequest> = {}): BankPayoutRequest => ({
  payoutId: payoutId(),
  methodCode: 'svc-mt-6',
  amountMinor: 50_000,
  currency: 'PEN',
  beneficiary: {
    name: 'Luis Alberto Huamán',
    document: '41234567',
    documentType: 'DNI',
    bankCode: '002',
    accountNumber: '19312345678012',
    accountType: 'savings',
  },
  notificationUrl: `${receiverUrl}/payouts`,
  ...over,
});

describe('dLocal pay-ins through the connector', () => {
  it('a PagoEfectivo CIP is a signed DIRECT ticket payment the fake accepts; it is read back by our order_id', async () => {
    const req = payment();
    const created = await live.payments.create(req);
    expect(created).toMatchObject({
      outcome: { kind: 'pending' },
      artefact: { kind: 'ticket', ticket: { number: expect.stringMatching(/^\d{8}$/) } },
    });
    const orderId = orderIdOf(req.paymentId);
    expect(fake.payment(orderId)?.request).toEqual({
      amount: 123.45,
      currency: 'PEN',
      country: 'PE',
      payment_method_id: 'EF',
      payment_method_flow: 'DIRECT',
      payer: { name: 'Rosa Quispe', email: 'rosa@example.pe', document: '45678912' },
      order_id: orderId,
      notification_url: receiverUrl,
    });
    const signed = fake.requests.find(
      (r) => r.method === 'POST' && r.path === '/payments' && (r.body as { order_id: string }).order_id === orderId,
    );
    expect(signed?.headers).toMatchObject({
      'x-version': '2.1',
      authorization: expect.stringMatching(/^V2-HMAC-SHA256, Signature: [0-9a-f]{64}$/),
    });
    expect(await live.payments.get(req.paymentId)).toEqual(created);
    expect(await live.payments.get(paymentId())).toEqual({ kind: 'not_found' });
  });

  it('PSE, Webpay and Yape are REDIRECT payments with our return URL; Servipag in whole pesos (CLP has no cents)', async () => {
    for (const [methodCode, country, currency] of [
      ['svc-mt-14', 'COL', 'COP'],
      ['svc-mt-18', 'CHL', 'CLP'],
      ['svc-mt-13', 'PER', 'PEN'],
    ] as const) {
      const req = payment({ methodCode, country, currency, amountMinor: 15_000 });
      const r = await live.payments.create(req);
      expect(r).toMatchObject({ artefact: { kind: 'redirect', redirectUrl: expect.stringContaining(fake.baseUrl) } });
      expect(fake.payment(orderIdOf(req.paymentId))?.request).toMatchObject({
        payment_method_flow: 'REDIRECT',
        callback_url: req.returnUrl,
      });
    }
    const servipag = payment({ methodCode: 'svc-mt-19', country: 'CHL', currency: 'CLP', amountMinor: 15_000 });
    expect(await live.payments.create(servipag)).toMatchObject({ artefact: { kind: 'ticket' } });
    expect(fake.payment(orderIdOf(servipag.paymentId))?.request).toMatchObject({
      payment_method_id: 'SP',
      amount: 15_000,
      currency: 'CLP',
    });
    // Ecuador's bank transfer (svc-mt-26) is not a method dLocal documents: refused before any call.
    const before = fake.requests.length;
    const e = await live.payments.create(payment({ methodCode: 'svc-mt-26', country: 'ECU', currency: 'USD' })).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(ProviderRejected);
    expect((e as ProviderRejected).code).toBe('method_not_available');
    expect(fake.requests.length).toBe(before);
  });

  it('a request signed with another secret is refused by the fake: unavailable (our configuration), nothing created', async () => {
    const rogue = connect({ secret_key: 'not-the-secret-dlocal-gave-us' });
    try {
      const req = payment();
      await expect(rogue.payments.create(req)).rejects.toBeInstanceOf(ProviderUnavailable);
      expect(fake.payment(orderIdOf(req.paymentId))).toBeUndefined();
      expect(fake.violations.splice(0)).toEqual([expect.stringContaining('the V2-HMAC-SHA256 signature does not match')]);
    } finally {
      rogue.client.close();
    }
  });

  it('a second create of one payment is dLocal’s duplicated order, answered by reading the payment back', async () => {
    const req = payment({ methodCode: 'svc-mt-16', country: 'COL', currency: 'COP', amountMinor: 2_000_000 });
    const first = await live.payments.create(req);
    const again = await live.payments.create(req);
    expect(again).toEqual(first);
    expect(fake.creates(orderIdOf(req.paymentId))).toBe(2);
  });

  it('a lost answer is ProviderUnavailable; the retry is the duplicate and reads the one payment back', async () => {
    const req = payment();
    fake.failNext('payments', { hangAfter: true });
    const started = performance.now();
    await expect(live.payments.create(req)).rejects.toBeInstanceOf(ProviderUnavailable);
    expect(performance.now() - started).toBeLessThan(TOTAL_MS + 500);
    const held = fake.payment(orderIdOf(req.paymentId));
    expect(await live.payments.create(req)).toMatchObject({ providerPaymentId: held?.id, outcome: { kind: 'pending' } });
  });

  it('statuses in our words: paid with its amount, rejections as our codes, cancelled, expired; a refusal rejects', async () => {
    const req = payment();
    const { providerPaymentId } = await live.payments.create(req);
    fake.setStatus(orderIdOf(req.paymentId), 'PAID');
    expect(await live.payments.getByProviderId(providerPaymentId)).toMatchObject({ outcome: { kind: 'paid', amountMinor: 12_345 } });

    fake.nextPayment({ status: 'REJECTED', statusCode: '302' });
    expect(await live.payments.create(payment())).toMatchObject({ outcome: { kind: 'failed', code: 'insufficient_funds' } });
    const other = payment();
    await live.payments.create(other);
    fake.setStatus(orderIdOf(other.paymentId), 'REJECTED', '317');
    expect(await live.payments.get(other.paymentId)).toMatchObject({ outcome: { kind: 'failed', code: 'rejected_by_risk' } });
    fake.setStatus(orderIdOf(other.paymentId), 'CANCELLED');
    expect(await live.payments.get(other.paymentId)).toMatchObject({ outcome: { kind: 'cancelled' } });
    fake.setStatus(orderIdOf(other.paymentId), 'EXPIRED');
    expect(await live.payments.get(other.paymentId)).toMatchObject({ outcome: { kind: 'expired' } });

    fake.nextPayment({ refuse: 5007 });
    const e = await live.payments.create(payment()).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(ProviderRejected);
    expect((e as ProviderRejected).code).toBe('limit_exceeded');
    expect((e as Error).message).not.toContain('Scripted');
  });

  it('a refund carries our order_refund_id and is read back by it; its notification names our refund; unpaid: refused', async () => {
    const req = payment();
    const { providerPaymentId } = await live.payments.create(req);
    const rid = refundId();
    const send = () =>
      live.refunds.send({ refundId: rid, providerPaymentId, amountMinor: 5_000, currency: 'PEN', notificationUrl: receiverUrl });
    const early = await send().catch((x: unknown) => x);
    expect(early).toBeInstanceOf(ProviderRejected);
    expect(await live.refunds.get({ providerPaymentId, refundId: rid })).toBeNull();
    fake.setStatus(orderIdOf(req.paymentId), 'PAID');
    expect(await send()).toEqual({ refundId: rid, kind: 'pending' });
    const [held] = fake.refundsFor(refundReferenceOf(rid));
    expect(held).toMatchObject({ amount: 50, paymentId: providerPaymentId, orderRefundId: refundReferenceOf(rid) });
    expect(await live.refunds.get({ providerPaymentId, refundId: rid })).toEqual({ refundId: rid, kind: 'pending' });
    fake.setRefundStatus(held!.id, 'SUCCESS');
    expect(await live.refunds.get({ providerPaymentId, refundId: rid })).toMatchObject({ refundId: rid, kind: 'succeeded' });
    // Another refund of the payment: ours is told apart by its reference.
    expect(await live.refunds.get({ providerPaymentId, refundId: refundId() })).toBeNull();
    const n = await fake.notifyRefund(held!.id);
    expect(n.status).toBe(200);
    expect(JSON.parse(n.body)).toEqual({
      item: { kind: 'refund', refundId: rid, paymentId: req.paymentId, providerRefundId: held!.id, providerPaymentId, claimed: 'SUCCESS' },
    });
  });

  it('a refund is read back by our reference (GET /orders/{order_refund_id}), never by a list of the payment’s refunds', async () => {
    const req = payment();
    const { providerPaymentId } = await live.payments.create(req);
    fake.setStatus(orderIdOf(req.paymentId), 'PAID');
    const rid = refundId();
    const ref = refundReferenceOf(rid);
    const reads = () => fake.requests.filter((q) => q.method === 'GET' && q.path === `/orders/${ref}`).length;
    expect(await live.refunds.get({ providerPaymentId, refundId: rid })).toBeNull();
    expect(reads()).toBe(1);
    // A refund made in dLocal's dashboard (no reference of ours) does not blur the read: ours is still not there.
    fake.dashboardRefund(orderIdOf(req.paymentId), 10);
    expect(await live.refunds.get({ providerPaymentId, refundId: rid })).toBeNull();
    await live.refunds.send({ refundId: rid, providerPaymentId, amountMinor: 1_000, currency: 'PEN', notificationUrl: receiverUrl });
    expect(await live.refunds.get({ providerPaymentId, refundId: rid })).toEqual({ refundId: rid, kind: 'pending' });
    expect(reads()).toBe(3);
    expect(fake.requests.some((q) => /^\/payments\/[^/]+\/refunds$/.test(q.path))).toBe(false);
    // Asked about another payment's refund (a mix-up of ours), the answer is not taken: unavailable.
    await expect(live.refunds.get({ providerPaymentId: 'D-4-someone-else', refundId: rid })).rejects.toBeInstanceOf(ProviderUnavailable);
    // A 404 that is not dLocal's "not found" (4000) is no proof that nothing was sent: unavailable, never null.
    const other = refundId();
    fake.failNext('refund', { status: 404 });
    await expect(live.refunds.get({ providerPaymentId, refundId: other })).rejects.toBeInstanceOf(ProviderUnavailable);
    fake.failNext('refund', { status: 503 }, 2);
    await expect(live.refunds.get({ providerPaymentId, refundId: other })).rejects.toBeInstanceOf(ProviderUnavailable);
    expect(await live.refunds.get({ providerPaymentId, refundId: other })).toBeNull();
  });

  it('notifications: signed raw body checked; forged or unsigned never read; repeats and stale ones name the read-back', async () => {
    const req = payment();
    const { providerPaymentId } = await live.payments.create(req);
    const orderId = orderIdOf(req.paymentId);
    fake.setStatus(orderId, 'PAID');
    const good = await fake.notify(orderId);
    expect(good.status).toBe(200);
    expect(JSON.parse(good.body)).toEqual({ item: { kind: 'payment', paymentId: req.paymentId, providerPaymentId, claimed: 'PAID' } });
    expect(JSON.parse((await fake.notify(orderId)).body)).toEqual(JSON.parse(good.body));
    expect(JSON.parse((await fake.notify(orderId, { sign: 'forged' })).body)).toEqual({ forged: true });
    expect(JSON.parse((await fake.notify(orderId, { sign: 'none' })).body)).toEqual({ forged: true });
    // A stale PENDING after PAID (out of order): the item claims PENDING; the read-back says paid.
    expect(JSON.parse((await fake.notify(orderId, { status: 'PENDING' })).body)).toMatchObject({ item: { claimed: 'PENDING' } });
    expect(await live.payments.getByProviderId(providerPaymentId)).toMatchObject({ outcome: { kind: 'paid' } });
    // The body altered after signing (one more space) fails the check.
    const raw = received[received.length - 1]!;
    expect(live.notifications.parse(raw.headers, `${raw.raw} `)).toEqual({ forged: true });
    expect(live.notifications.parse(fake.signedNotificationHeaders('{"hello":1}'), '{"hello":1}')).toBeNull();
  });

  it('5xx and a hang are ProviderUnavailable within the time limit; a read is retried once, a create never', async () => {
    fake.failNext('payments', { status: 503 });
    const req = payment();
    await expect(live.payments.create(req)).rejects.toBeInstanceOf(ProviderUnavailable);
    expect(fake.creates(orderIdOf(req.paymentId))).toBe(0);
    fake.failNext('payments', { hang: true });
    const started = performance.now();
    await expect(live.payments.create(payment())).rejects.toBeInstanceOf(ProviderUnavailable);
    expect(performance.now() - started).toBeLessThan(TOTAL_MS + 500);
    await live.payments.create(req);
    fake.failNext('order', { status: 500 });
    expect(await live.payments.get(req.paymentId)).toMatchObject({ outcome: { kind: 'pending' } });
    fake.failNext('order', { status: 500 }, 2);
    await expect(live.payments.get(req.paymentId)).rejects.toBeInstanceOf(ProviderUnavailable);
  });
});

describe('the last SPEC codes through dLocal (issue 41)', () => {
  const brazilian = { name: 'Thiago Gabriel', email: 'thiago@example.com.br', document: '530.333.155-50' };
  const sent = (req: LocalPaymentRequest) => fake.payment(orderIdOf(req.paymentId))?.request;

  it('svc-mt-7 is Pix via Open Finance: a REDIRECT to the shopper’s bank with our return URL, in reais', async () => {
    const req = payment({ methodCode: 'svc-mt-7', country: 'BRA', currency: 'BRL', amountMinor: 25_990, payer: brazilian });
    expect(live.payments.flowOf('svc-mt-7', 'BRA')).toBe('redirect');
    const r = await live.payments.create(req);
    expect(r).toMatchObject({
      outcome: { kind: 'pending' },
      artefact: { kind: 'redirect', redirectUrl: expect.stringContaining(fake.baseUrl) },
    });
    expect(sent(req)).toEqual({
      amount: 259.9,
      currency: 'BRL',
      country: 'BR',
      payment_method_id: 'OF',
      payment_method_flow: 'REDIRECT',
      payer: { name: 'Thiago Gabriel', email: 'thiago@example.com.br', document: '53033315550' },
      order_id: orderIdOf(req.paymentId),
      notification_url: receiverUrl,
      callback_url: req.returnUrl,
    });
    expect(live.payments.walletsOf!('svc-mt-7', 'BRA')).toEqual([]);
  });

  it('svc-mt-3 is BCP, a REDIRECT bank transfer in soles', async () => {
    const req = payment({ methodCode: 'svc-mt-3' });
    expect(live.payments.flowOf('svc-mt-3', 'PER')).toBe('redirect');
    expect(await live.payments.create(req)).toMatchObject({ artefact: { kind: 'redirect' } });
    expect(sent(req)).toMatchObject({ payment_method_id: 'BC', payment_method_flow: 'REDIRECT', country: 'PE', currency: 'PEN' });
    // Not a Brazilian or Colombian code: refused before any call.
    const before = fake.requests.length;
    const e = await live.payments.create(payment({ methodCode: 'svc-mt-3', country: 'COL', currency: 'COP' })).catch((x: unknown) => x);
    expect((e as ProviderRejected).code).toBe('method_not_available');
    expect(fake.requests.length).toBe(before);
  });

  it('svc-mt-9: the wallet chosen by name is the id sent; without a choice, the first the account serves', async () => {
    const wallet = (over: Partial<LocalPaymentRequest>) =>
      payment({ methodCode: 'svc-mt-9', country: 'BRA', currency: 'BRL', amountMinor: 5_000, payer: brazilian, ...over });
    expect(live.payments.flowOf('svc-mt-9', 'BRA')).toBe('redirect');
    for (const [choice, id] of [
      [undefined, 'MP'],
      ['mercado_pago', 'MP'],
      ['picpay', 'PP'],
      ['nupay', 'NU'],
    ] as const) {
      const req = wallet(choice ? { wallet: choice } : {});
      expect(await live.payments.create(req)).toMatchObject({ artefact: { kind: 'redirect' } });
      expect([choice, sent(req)]).toEqual([
        choice,
        expect.objectContaining({ payment_method_id: id, payment_method_flow: 'REDIRECT', callback_url: req.returnUrl }),
      ]);
    }
  });

  it('walletsOf honours dlocal.wallets; a wallet the account does not serve is refused before any call', async () => {
    expect(live.payments.walletsOf!('svc-mt-9', 'BRA')).toEqual(['mercado_pago', 'picpay', 'nupay']);
    expect(live.payments.walletsOf!('svc-mt-9', 'COL')).toEqual([]);
    expect(live.payments.walletsOf!('svc-mt-15', 'COL')).toEqual([]);
    const narrow = connect({ wallets: ['nupay', 'picpay'] });
    try {
      expect(narrow.payments.walletsOf!('svc-mt-9', 'BRA')).toEqual(['nupay', 'picpay']);
      const base = { methodCode: 'svc-mt-9', country: 'BRA', currency: 'BRL', payer: brazilian } as const;
      const first = payment(base);
      await narrow.payments.create(first);
      expect(sent(first)?.payment_method_id).toBe('NU');
      const before = fake.requests.length;
      const e = await narrow.payments.create(payment({ ...base, wallet: 'mercado_pago' })).catch((x: unknown) => x);
      expect(e).toBeInstanceOf(ProviderRejected);
      expect(e).toMatchObject({ code: 'method_not_available' });
      // Nor is a wallet named for a method that offers none.
      const pix = payment({ methodCode: 'svc-mt-7', country: 'BRA', currency: 'BRL', payer: brazilian, wallet: 'picpay' });
      await expect(narrow.payments.create(pix)).rejects.toMatchObject({ code: 'method_not_available' });
      expect(fake.requests.length).toBe(before);
    } finally {
      narrow.client.close();
    }
  });

  it('svc-mt-17 is Bre-B: a DIRECT payment whose QR (content and expiry) our page shows; paid, it is read back paid', async () => {
    const req = payment({
      methodCode: 'svc-mt-17',
      country: 'COL',
      currency: 'COP',
      amountMinor: 8_500_000,
      payer: {
        name: 'Camila Rojas',
        email: 'camila@example.co',
        document: '1.020.304.050',
      },
    });
    expect(live.payments.flowOf('svc-mt-17', 'COL')).toBe('qr');
    expect(live.payments.flowOf('svc-mt-14', 'COL')).toBe('redirect');
    const created = await live.payments.create(req);
    const orderId = orderIdOf(req.paymentId);
    const qr = fake.qrOf(orderId);
    expect(qr?.qr_code).toMatch(/^000201/);
    expect(created).toEqual({
      providerPaymentId: fake.payment(orderId)?.id,
      outcome: { kind: 'pending' },
      artefact: { kind: 'qr', qrContent: qr?.qr_code, expiresAt: qr?.expiration_date },
    });
    // DIRECT: no callback_url (the shopper never leaves our page), COP in whole pesos.
    expect(sent(req)).toEqual({
      amount: 85_000,
      currency: 'COP',
      country: 'CO',
      payment_method_id: 'BQ',
      payment_method_flow: 'DIRECT',
      payer: { name: 'Camila Rojas', email: 'camila@example.co', document: '1020304050' },
      order_id: orderId,
      notification_url: receiverUrl,
    });
    // Read back while open: the same QR, by our order and by dLocal's id.
    expect(await live.payments.get(req.paymentId)).toEqual(created);
    // Paid in the shopper's bank app, with no notification (a missed one): the read-back says paid, with its amount.
    fake.setStatus(orderId, 'PAID');
    expect(await live.payments.get(req.paymentId)).toEqual({
      providerPaymentId: created.providerPaymentId,
      outcome: { kind: 'paid', at: expect.any(String), amountMinor: 8_500_000 },
    });
    expect(await live.payments.getByProviderId(created.providerPaymentId)).toMatchObject({ outcome: { kind: 'paid' } });
  });

  it('a Bre-B answer without its QR is unavailable (never a ticket or an empty QR on our page)', async () => {
    const req = payment({ methodCode: 'svc-mt-17', country: 'COL', currency: 'COP', amountMinor: 100_000 });
    // The answer altered on the way in: the QR taken out of its ticket, which is left as a cash ticket's.
    const cfg = configOf();
    const inner = providerHttp('dlocal', { caPem: cfg.ca_pem }, { connectMs: 1000, totalMs: TOTAL_MS });
    const stripping: ProviderHttp = {
      async send(r) {
        const a = await inner.send(r);
        if (new URL(r.url).pathname !== '/payments') return a;
        const body = JSON.parse(a.text) as { ticket?: Record<string, unknown> };
        if (body.ticket) body.ticket = { type: 'CUSTOM', number: '12345678', expiration_date: body.ticket.expiration_date };
        return { ...a, text: JSON.stringify(body) };
      },
      close: () => inner.close(),
    };
    const off = dlocalConnectors(cfg, dlocalClient(cfg, stripping));
    try {
      await expect(off.payments.create(req)).rejects.toBeInstanceOf(ProviderUnavailable);
    } finally {
      off.client.close();
    }
  });

  it('the fake refuses what dLocal’s pages do not allow: an id of another country, a flow the method has not', async () => {
    const body = (over: Record<string, unknown>) => ({
      amount: 10,
      currency: 'PEN',
      country: 'PE',
      payment_method_id: 'BC',
      payment_method_flow: 'REDIRECT',
      payer: { name: 'Rosa Quispe', email: 'rosa@example.pe', document: '45678912' },
      order_id: orderIdOf(paymentId()),
      notification_url: receiverUrl,
      callback_url: 'https://merchant.example/return',
      ...over,
    });
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ payment_method_id: 'BQ' }, 'BQ is not a method in PE'],
      [{ payment_method_flow: 'DIRECT' }, 'BC allows REDIRECT, not DIRECT'],
      [{ country: 'BR', currency: 'BRL', payment_method_id: 'NU', payment_method_flow: 'DIRECT' }, 'NU allows REDIRECT, not DIRECT'],
      [{ country: 'CO', currency: 'PEN', payment_method_id: 'BQ', payment_method_flow: 'DIRECT' }, 'BQ is charged in COP, not PEN'],
    ];
    for (const [over, violation] of cases) {
      const a = await live.client.payins({
        op: 'payments',
        method: 'POST',
        path: '/payments',
        schema: paymentSchema,
        body: body(over) as never,
      });
      expect([violation, a]).toEqual([violation, { refused: expect.objectContaining({ status: 400, code: 5010 }) }]);
      expect(fake.violations.splice(0)).toEqual([`POST /payments: ${violation}`]);
    }
  });
});

describe('dLocal payouts v3 through the connector', () => {
  it('a Peruvian bank payout goes with a bearer token that is cached, and is read back by our external_id', async () => {
    const fresh = connect();
    try {
      const before = fake.tokensIssued();
      const sent = fake.requests.length;
      const req = payout();
      const [created, none] = await Promise.all([fresh.payouts!.create(req), fresh.payouts!.get(payoutId())]);
      expect(created).toEqual({ kind: 'pending', orderId: expect.stringMatching(/^PO-/), held: false });
      expect(none).toEqual({ kind: 'not_found' });
      expect(await fresh.payouts!.get(req.payoutId)).toEqual(created);
      expect(fake.tokensIssued() - before).toBe(1);
      expect(fresh.client.tokenRequests()).toBe(1);
      // Every payouts v3 call carries the token with X-Date (ISO 8601 UTC) and X-Version 3.0 (dLocal's payouts v3
      // security page); the token request itself is plain JSON, as that page shows it.
      const calls = fake.requests.slice(sent).filter((r) => r.path.startsWith('/payouts/v3'));
      expect(calls.map((r) => r.method).sort()).toEqual(['GET', 'GET', 'POST']);
      for (const r of calls) {
        expect(r.headers).toMatchObject({
          authorization: expect.stringMatching(/^Bearer \S+$/),
          'x-version': '3.0',
          'x-date': expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
        });
        expect(Math.abs(Date.parse(String(r.headers['x-date'])) - r.at)).toBeLessThan(5_000);
      }
      expect(fake.requests.slice(sent).find((r) => r.path === '/oauth/token')?.headers['x-version']).toBeUndefined();
      expect(fake.payout(externalIdOf(req.payoutId))?.request).toEqual({
        external_id: externalIdOf(req.payoutId),
        country: 'PE',
        payment_method_id: 'BANK_TRANSFER',
        amount: 500,
        currency: 'PEN',
        purpose: 'OTHER',
        flow_type: 'B2C',
        notification_url: req.notificationUrl,
        beneficiary: {
          first_name: 'Luis',
          last_name: 'Alberto Huamán',
          document: { type: 'DNI', id: '41234567' },
          bank_account: { account: '19312345678012', type: 'SAVINGS', code: '002' },
        },
      });
    } finally {
      fresh.client.close();
    }
  });

  it('the token is refreshed before it expires (the fake counts a call with an expired token as a violation)', async () => {
    fake.setTokenLifetime(3);
    const fresh = connect();
    try {
      const req = payout();
      await fresh.payouts!.create(req);
      await new Promise((r) => setTimeout(r, 2_100));
      expect(await fresh.payouts!.get(req.payoutId)).toMatchObject({ kind: 'pending' });
      expect(fresh.client.tokenRequests()).toBe(2);
    } finally {
      fake.setTokenLifetime(180);
      fresh.client.close();
    }
  });

  it('a payouts call without X-Date or X-Version 3.0 (or a malformed X-Date) is refused by the fake as a bad token', async () => {
    // Our client's calls, with one header taken away or changed on the way out; the fake's answers as it gave them.
    const cases: Array<[string, (h: Record<string, string>) => Record<string, string>, string]> = [
      ['no X-Date', ({ 'x-date': _d, ...h }) => h, 'no X-Date'],
      ['no X-Version', ({ 'x-version': _v, ...h }) => h, 'no X-Version'],
      ['an RFC 1123 X-Date', (h) => ({ ...h, 'x-date': new Date().toUTCString() }), 'X-Date is not ISO 8601 UTC'],
      ['a local-time X-Date', (h) => ({ ...h, 'x-date': '2026-11-25T10:00:00.000-05:00' }), 'X-Date is not ISO 8601 UTC'],
      ['the pay-ins X-Version', (h) => ({ ...h, 'x-version': '2.1' }), 'X-Version is not 3.0'],
    ];
    for (const [what, alter, violation] of cases) {
      const cfg = configOf();
      const inner = providerHttp('dlocal', { caPem: cfg.ca_pem }, { connectMs: 1000, totalMs: TOTAL_MS });
      const statuses: number[] = [];
      const altering: ProviderHttp = {
        async send(r) {
          const payoutsCall = new URL(r.url).pathname.startsWith('/payouts/v3');
          const a = await inner.send(payoutsCall ? { ...r, headers: alter(r.headers ?? {}) } : r);
          if (payoutsCall) statuses.push(a.status);
          return a;
        },
        close: () => inner.close(),
      };
      const off = dlocalConnectors(cfg, dlocalClient(cfg, altering));
      try {
        const req = payout();
        const e = await off.payouts!.create(req).catch((x: unknown) => x);
        expect([what, e]).toEqual([what, expect.any(ProviderUnavailable)]);
        // dLocal's authentication failure (401), once with the cached token and once with a fresh one; nothing made.
        expect([what, statuses]).toEqual([what, [401, 401]]);
        expect(off.client.tokenRequests()).toBe(2);
        expect(fake.payoutCreates(externalIdOf(req.payoutId))).toBe(0);
        expect([what, fake.violations.splice(0)]).toEqual([what, [`payouts: ${violation}`, `payouts: ${violation}`]]);
      } finally {
        off.client.close();
      }
    }
  });

  it('a token dLocal no longer honours (401) is dropped and the call made once more with a new one', async () => {
    const req = payout();
    await live.payouts!.create(req);
    const before = live.client.tokenRequests();
    fake.revokeTokens();
    expect(await live.payouts!.get(req.payoutId)).toMatchObject({ kind: 'pending' });
    expect(live.client.tokenRequests()).toBe(before + 1);
    expect(fake.payoutCreates(externalIdOf(req.payoutId))).toBe(1);
  });

  it('a payout whose answer was lost is found by external_id on the retry: never a second payout', async () => {
    const req = payout({
      methodCode: 'svc-mt-31',
      currency: 'ARS',
      beneficiary: {
        name: 'Ana Gómez',
        document: '20123456789',
        documentType: 'CUIT',
        instantTransferKey: '0000003100010000000001',
        instantTransferType: 'cvu',
      },
    });
    fake.failNext('payouts', { hangAfter: true });
    await expect(live.payouts!.create(req)).rejects.toBeInstanceOf(ProviderUnavailable);
    const externalId = externalIdOf(req.payoutId);
    expect(await live.payouts!.create(req, { retry: true })).toMatchObject({ kind: 'pending', orderId: fake.payout(externalId)?.id });
    expect(fake.payoutCreates(externalId)).toBe(1);
    // Without the lookup, dLocal's "External ID already used" is read back the same way.
    expect(await live.payouts!.create(req)).toMatchObject({ orderId: fake.payout(externalId)?.id });
    expect(fake.payoutCreates(externalId)).toBe(2);
    expect(fake.payout(externalId)?.request.beneficiary.bank_account).toEqual({ account: '0000003100010000000001', type: 'CHECKING' });
  });

  it('payout statuses in our words, and its notifications verified before the read-back', async () => {
    const req = payout({
      methodCode: 'svc-mt-32',
      currency: 'COP',
      amountMinor: 10_000_000,
      beneficiary: {
        name: 'Camila Rojas',
        document: '1.020.304.050',
        documentType: 'CC',
        bankCode: '007',
        accountNumber: '123456789',
        accountType: 'checking',
      },
    });
    await live.payouts!.create(req);
    const externalId = externalIdOf(req.payoutId);
    fake.setPayoutStatus(externalId, 'ON_HOLD_BY_COMPLIANCE');
    expect(await live.payouts!.get(req.payoutId)).toMatchObject({ kind: 'pending', held: true });
    fake.setPayoutStatus(externalId, 'DELIVERED');
    expect(await live.payouts!.get(req.payoutId)).toMatchObject({ kind: 'pending', held: false });
    fake.setPayoutStatus(externalId, 'REJECTED', 'ERROR_ACCOUNT_INCORRECT');
    expect(await live.payouts!.get(req.payoutId)).toMatchObject({ kind: 'rejected', reason: 'invalid_account' });
    const n = await fake.notifyPayout(externalId);
    const item = { payoutId: req.payoutId, providerPayoutId: fake.payout(externalId)?.id, claimed: 'REJECTED' };
    expect(JSON.parse(n.body)).toEqual({ item: { ...item, verified: true } });
    expect(JSON.parse((await fake.notifyPayout(externalId, { sign: 'forged' })).body)).toEqual({ forged: true });
    // dLocal documents no signature on payout notifications: an unsigned one only prompts the read-back.
    expect(JSON.parse((await fake.notifyPayout(externalId, { sign: 'none' })).body)).toEqual({ item: { ...item, verified: false } });

    const paid = payout();
    await live.payouts!.create(paid);
    fake.setPayoutStatus(externalIdOf(paid.payoutId), 'PAID');
    expect(await live.payouts!.get(paid.payoutId)).toMatchObject({ kind: 'settled' });
  });

  it('a beneficiary that cannot be paid is refused before any call; wrong client credentials or a 5xx are unavailable', async () => {
    const before = fake.requests.length;
    const bad = await live
      .payouts!.create(payout({ beneficiary: { name: 'X', document: '41234567', documentType: 'DNI' } }))
      .catch((x: unknown) => x);
    expect((bad as ProviderRejected).code).toBe('invalid_account');
    const cvu = await live
      .payouts!.create(
        payout({
          methodCode: 'svc-mt-31',
          currency: 'ARS',
          beneficiary: { name: 'Ana', document: '20123456789', documentType: 'CUIT', instantTransferKey: '123' },
        }),
      )
      .catch((x: unknown) => x);
    expect((cvu as ProviderRejected).code).toBe('invalid_account');
    const cents = await live
      .payouts!.create(payout({ methodCode: 'svc-mt-32', currency: 'COP', amountMinor: 10_050 }))
      .catch((x: unknown) => x);
    expect((cents as ProviderRejected).code).toBe('amount_not_allowed');
    const dni = await live.payouts!.create(payout({ methodCode: 'svc-mt-32', currency: 'COP' })).catch((x: unknown) => x);
    expect((dni as ProviderRejected).code).toBe('invalid_beneficiary');
    expect(fake.requests.length).toBe(before);

    const rogue = connect({ payouts: { client_id: 'someone-else', client_secret: 'not-ours-at-all' } });
    try {
      await expect(rogue.payouts!.get(payoutId())).rejects.toBeInstanceOf(ProviderUnavailable);
    } finally {
      rogue.client.close();
    }
    fake.failNext('payouts', { status: 502 });
    const req = payout();
    await expect(live.payouts!.create(req)).rejects.toBeInstanceOf(ProviderUnavailable);
    expect(fake.payoutCreates(externalIdOf(req.payoutId))).toBe(0);
  });
});
