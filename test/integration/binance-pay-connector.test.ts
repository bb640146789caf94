/**
 * The Binance Pay connector against the fake Binance Pay, over real HTTPS: every call signed HMAC-SHA512 as Binance
 * checks it (a wrong secret is refused), a fiat order priced by the provider's quote (never a rate of ours) and
 * shown as its QR and checkout page, a retried create read back by our merchantTradeNo (one order), statuses in our
 * words (paid for the payment's own amount, or a mismatch), close, refunds in proportion of the paid USDT (rounded
 * down, one refund per refund id), webhooks verified with the published RSA key (fetched, cached, refreshed on a
 * new serial) before anything is read, and a 5xx or a hang is ProviderUnavailable within the configured time.
 */
import '../support/log-level-info';
import { createServer, type Server } from 'node:http';
import { randomBytes } from 'node:crypto';
import { ProviderRejected, ProviderUnavailable, type LocalNotificationParse } from '../../shared/application/providers';
import { parseProvidersConfig } from '../../shared/adapters/providers/providers.config';
import {
  binancePayConnectors,
  type BinancePayConnectors,
  type LocalPaymentRequest,
} from '../../shared/adapters/providers/binance-pay/binance-pay.connector';
import {
  merchantTradeNoOf,
  refundRequestIdOf,
  unitsOf,
  decimalOf,
} from '../../shared/adapters/providers/binance-pay/binance-pay.transformers';
import { startFakeBinancePay, type FakeBinancePay } from '../support/fake-binance-pay';
import { captureLogs } from '../support/live-stage';

const TOTAL_MS = 1000;
let fake: FakeBinancePay;
let live: BinancePayConnectors;
let receiver: Server;
let receiverUrl: string;
/** What our notification route parsed, in order, and what it answered. */
const received: Array<{ parsed: LocalNotificationParse; raw: string }> = [];

const configOf = (over: Record<string, unknown> = {}) =>
  parseProvidersConfig({ binance_pay: { ...fake.binancePayConfig(), timeouts: { connect_ms: 1000, total_ms: TOTAL_MS }, ...over } }, 'test')
    .binance_pay!;
const connect = (over: Record<string, unknown> = {}) => binancePayConnectors(configOf(over), { certificateRefreshMs: 0 });

beforeAll(async () => {
  fake = await startFakeBinancePay({ hangMs: 5_000 });
  live = connect();
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      void Promise.resolve(live.notifications.parse(req.headers, raw)).then(
        (parsed) => {
          received.push({ parsed, raw });
          const forged = parsed !== null && 'forged' in parsed;
          res.writeHead(forged ? 401 : 200, { 'content-type': 'application/json' });
          res.end(forged ? '{}' : JSON.stringify(live.notifications.acknowledgement));
        },
        () => {
          res.writeHead(503);
          res.end();
        },
      );
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  const addr = receiver.address();
  receiverUrl = `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}/providers/binance-pay/notifications`;
});
afterAll(async () => {
  live?.close();
  await fake?.close();
  await new Promise<void>((r) => (receiver ? receiver.close(() => r()) : r()));
});
afterEach(() => {
  expect(fake.violations).toEqual([]);
  fake.clearFaults();
});

const paymentId = () => `pi_${randomBytes(16).toString('base64url')}`;
const refundId = () => `re_${randomBytes(16).toString('base64url')}`;
const payment = (over: Partial<LocalPaymentRequest> = {}): LocalPaymentRequest => ({
  paymentId: paymentId(),
  methodCode: 'svc-mt-4',
  amountMinor: 12_345,
  currency: 'BRL',
  country: 'BRA',
  payer: { name: 'Ana Souza', email: 'ana@example.com.br', document: '12345678909' },
  description: 'Order 1001',
  merchantName: 'Loja Exemplo',
  notificationUrl: receiverUrl,
  returnUrl: 'https://merchant.example/return',
  ...over,
});
/** 123.45 BRL at the fake's 5.37 BRL per USDT, rounded down to 8 places (its quote, computed here independently). */
const QUOTE_BRL_12345 = '22.98882681';
const lastParsed = () => received[received.length - 1]?.parsed;

describe('Binance Pay orders through the connector', () => {
  it('a BRL session is a fiat order Binance prices: QR, checkout page, expiry, USDT quote; read back by merchantTradeNo', async () => {
    const expiresAt = new Date(Date.now() + 2 * 3_600_000).toISOString();
    const req = payment({ expiresAt });
    const before = Date.now();
    const created = await live.payments.create(req);
    const mtn = merchantTradeNoOf(req.paymentId);
    const held = fake.order(mtn);
    expect(created).toEqual({
      providerPaymentId: held?.prepayId,
      outcome: { kind: 'pending' },
      artefact: {
        kind: 'qr',
        qrContent: expect.stringContaining(fake.baseUrl),
        checkoutUrl: `${fake.baseUrl}/checkout/${held?.prepayId}`,
        expiresAt: new Date(held?.expireTime ?? 0).toISOString(),
      },
      quote: { currency: 'USDT', amount: QUOTE_BRL_12345 },
    });
    const sent = held?.request;
    expect(sent).toMatchObject({
      env: { terminalType: 'WEB' },
      merchantTradeNo: mtn,
      fiatAmount: 123.45,
      fiatCurrency: 'BRL',
      description: 'Order 1001',
      goodsDetails: [{ goodsType: '02', goodsCategory: 'Z000', referenceGoodsId: mtn, goodsName: 'Loja Exemplo' }],
      returnUrl: req.returnUrl,
      cancelUrl: req.returnUrl,
      webhookUrl: receiverUrl,
      passThroughInfo: JSON.stringify({ p: req.paymentId, a: 12_345, c: 'BRL' }),
    });
    expect(sent).not.toHaveProperty('orderAmount');
    // 30 minutes by default (the session ends later).
    expect(sent?.orderExpireTime).toBeGreaterThanOrEqual(before + 30 * 60_000);
    expect(sent?.orderExpireTime).toBeLessThanOrEqual(Date.now() + 30 * 60_000);
    const call = fake.requests.find(
      (r) => r.path === '/binancepay/openapi/v3/order' && (r.body as { merchantTradeNo: string }).merchantTradeNo === mtn,
    );
    expect(call?.headers).toMatchObject({
      'binancepay-certificate-sn': fake.apiKey,
      'binancepay-nonce': expect.stringMatching(/^[A-Za-z0-9]{32}$/),
      'binancepay-timestamp': expect.stringMatching(/^\d{13}$/),
      'binancepay-signature': expect.stringMatching(/^[0-9A-F]{128}$/),
    });
    // A read-back has no QR (only a create's answer does), the same order and quote.
    expect(await live.payments.get(req.paymentId)).toEqual({
      providerPaymentId: held?.prepayId,
      outcome: { kind: 'pending' },
      quote: created.quote,
    });
    expect(await live.payments.getByProviderId(created.providerPaymentId)).toEqual(await live.payments.get(req.paymentId));
    expect(await live.payments.get(paymentId())).toEqual({ kind: 'not_found' });
  });

  it('expiry never past the session; a USDT session is priced in USDT; another method is refused before any call', async () => {
    const expiresAt = new Date(Date.now() + 10 * 60_000).toISOString();
    const soon = payment({ expiresAt });
    await live.payments.create(soon);
    expect(fake.order(merchantTradeNoOf(soon.paymentId))?.request.orderExpireTime).toBe(Date.parse(expiresAt));

    const usdt = payment({ currency: 'USDT', amountMinor: 2_550 });
    expect(await live.payments.create(usdt)).toMatchObject({ quote: { currency: 'USDT', amount: '25.5' } });
    expect(fake.order(merchantTradeNoOf(usdt.paymentId))?.request).toMatchObject({ orderAmount: 25.5, currency: 'USDT' });
    expect(fake.order(merchantTradeNoOf(usdt.paymentId))?.request).not.toHaveProperty('fiatCurrency');

    const before = fake.requests.length;
    const e = await live.payments.create(payment({ methodCode: 'svc-mt-1' })).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(ProviderRejected);
    expect((e as ProviderRejected).code).toBe('method_not_available');
    const late = await live.payments.create(payment({ expiresAt: new Date(Date.now() + 10_000).toISOString() })).catch((x: unknown) => x);
    expect((late as ProviderRejected).code).toBe('session_expired');
    expect(fake.requests.length).toBe(before);
    expect(live.payments.flowOf('svc-mt-4', 'MEX')).toBe('qr');
    expect(live.payments.flowOf('svc-mt-12', 'PER')).toBeNull();
  });

  it('a lost create answer is unavailable; the retry is refused as a duplicate and reads the one order back', async () => {
    const req = payment();
    fake.failNext('orders', { hangAfter: true });
    const started = performance.now();
    await expect(live.payments.create(req)).rejects.toBeInstanceOf(ProviderUnavailable);
    expect(performance.now() - started).toBeLessThan(TOTAL_MS + 500);
    const mtn = merchantTradeNoOf(req.paymentId);
    const held = fake.order(mtn);
    const again = await live.payments.create(req);
    expect(again).toEqual({
      providerPaymentId: held?.prepayId,
      outcome: { kind: 'pending' },
      quote: { currency: 'USDT', amount: QUOTE_BRL_12345 },
    });
    expect(fake.creates(mtn)).toBe(2);
    expect(fake.order(mtn)).toBe(held);
  });

  it('statuses in our words: paid for the payment’s own amount (or a mismatch), cancelled, failed, expired', async () => {
    fake.setWebhookMode('withhold');
    const req = payment();
    const { providerPaymentId } = await live.payments.create(req);
    const mtn = merchantTradeNoOf(req.paymentId);
    fake.setStatus(mtn, 'PENDING');
    expect(await live.payments.get(req.paymentId)).toMatchObject({ outcome: { kind: 'pending' } });
    await fake.pay(mtn);
    const paid = await live.payments.get(req.paymentId);
    expect(paid).toMatchObject({ providerPaymentId, outcome: { kind: 'paid', amountMinor: 12_345, at: expect.any(String) } });
    for (const s of ['REFUNDING', 'REFUNDED', 'FULL_REFUNDED'] as const) {
      fake.setStatus(mtn, s);
      expect(await live.payments.getByProviderId(providerPaymentId)).toMatchObject({ outcome: { kind: 'paid', amountMinor: 12_345 } });
    }
    for (const [s, outcome] of [
      ['CANCELED', { kind: 'cancelled' }],
      ['ERROR', { kind: 'failed', code: 'rejected_by_provider' }],
      ['EXPIRED', { kind: 'expired' }],
    ] as const) {
      fake.setStatus(mtn, s);
      expect(await live.payments.get(req.paymentId)).toMatchObject({ outcome });
    }

    const short = payment();
    await live.payments.create(short);
    await fake.pay(merchantTradeNoOf(short.paymentId), { amount: '20' });
    expect(await live.payments.get(short.paymentId)).toMatchObject({ outcome: { kind: 'paid', amountMinor: -1 } });
    const expiring = payment();
    await live.payments.create(expiring);
    await fake.expire(merchantTradeNoOf(expiring.paymentId));
    expect(await live.payments.get(expiring.paymentId)).toMatchObject({ outcome: { kind: 'expired' } });
  });

  it('closing: accepted for an open order (then cancelled), refused for a paid one, not_found for none', async () => {
    const req = payment();
    await live.payments.create(req);
    expect(await live.payments.closeOrder(req.paymentId)).toBe('accepted');
    expect(await live.payments.get(req.paymentId)).toMatchObject({ outcome: { kind: 'cancelled' } });
    expect(await live.payments.closeOrder(req.paymentId)).toBe('refused');
    expect(await live.payments.closeOrder(paymentId())).toBe('not_found');
  });
});

describe('Binance Pay refunds', () => {
  async function paidOrder() {
    fake.setWebhookMode('withhold');
    const req = payment();
    const { providerPaymentId } = await live.payments.create(req);
    await fake.pay(providerPaymentId);
    fake.setWebhookMode('send');
    return { req, providerPaymentId };
  }

  it('the order’s last refund attempt refunds all that remains (Binance’s rule): the difference pages, never silently', async () => {
    fake.setRefundAttempts(1);
    try {
      const { providerPaymentId } = await paidOrder();
      const partial = refundId();
      const logs = captureLogs();
      try {
        await live.refunds.send({
          providerPaymentId,
          refundId: partial,
          amountMinor: 1_000,
          currency: 'BRL',
          paymentAmountMinor: 12_345,
          notificationUrl: receiverUrl,
        });
      } finally {
        logs.restore();
      }
      // Binance refunded the whole order although 1,000 of 12,345 was asked.
      expect(decimalOf(fake.refund(refundRequestIdOf(partial))?.amount ?? 0n)).toBe(QUOTE_BRL_12345);
      const lines = logs.lines.filter((l) => l.includes('refunded another amount than asked'));
      expect(lines).toHaveLength(1);
      expect(JSON.parse(lines[0]!)).toMatchObject({ level: 'ERROR', provider: 'binance_pay', page: true });
    } finally {
      fake.setRefundAttempts(20);
    }
  });

  it('a full refund is exactly the USDT paid; a partial one its proportion rounded down; a retried send is the one refund', async () => {
    const { providerPaymentId } = await paidOrder();
    const partial = refundId();
    const send = () =>
      live.refunds.send({
        providerPaymentId,
        refundId: partial,
        amountMinor: 1_000,
        currency: 'BRL',
        paymentAmountMinor: 12_345,
        notificationUrl: receiverUrl,
      });
    expect(await live.refunds.get({ providerPaymentId, refundId: partial })).toBeNull();
    expect(await send()).toEqual({ refundId: partial, kind: 'pending' });
    // 22.98882681 × 1000 / 12345 = 1.86219739... → 1.86219739
    const expected = (unitsOf(QUOTE_BRL_12345) * 1_000n) / 12_345n;
    expect(decimalOf(expected)).toBe('1.86219739');
    expect(fake.refund(refundRequestIdOf(partial))?.amount).toBe(expected);
    expect(await send()).toEqual({ refundId: partial, kind: 'pending' });
    expect(fake.refundSends(refundRequestIdOf(partial))).toBe(2);
    expect(fake.refundsOf(providerPaymentId).map((r) => r.refundRequestId)).toEqual([refundRequestIdOf(partial)]);

    await fake.completeRefund(refundRequestIdOf(partial), 'REFUND_SUCCESS');
    expect(await live.refunds.get({ providerPaymentId, refundId: partial })).toMatchObject({ kind: 'succeeded', at: expect.any(String) });
    expect(lastParsed()).toEqual({
      item: {
        kind: 'refund',
        refundId: partial,
        paymentId: expect.stringMatching(/^pi_/),
        providerRefundId: refundRequestIdOf(partial),
        providerPaymentId,
        claimed: 'REFUND_SUCCESS',
      },
    });

    const { providerPaymentId: other } = await paidOrder();
    const full = refundId();
    await live.refunds.send({
      providerPaymentId: other,
      refundId: full,
      amountMinor: 12_345,
      currency: 'BRL',
      paymentAmountMinor: 12_345,
      notificationUrl: receiverUrl,
    });
    expect(decimalOf(fake.refund(refundRequestIdOf(full))?.amount ?? 0n)).toBe(QUOTE_BRL_12345);
    await fake.completeRefund(refundRequestIdOf(full), 'REFUND_FAIL');
    expect(await live.refunds.get({ providerPaymentId: other, refundId: full })).toEqual({
      refundId: full,
      kind: 'failed',
      reason: 'rejected_by_provider',
    });
  });

  it('a refused refund is ProviderRejected in our words; no paymentAmountMinor or a zero refund is refused before sending', async () => {
    const { providerPaymentId } = await paidOrder();
    fake.failNext('refunds', { refuse: '400203' });
    const e = await live.refunds
      .send({
        providerPaymentId,
        refundId: refundId(),
        amountMinor: 100,
        currency: 'BRL',
        paymentAmountMinor: 12_345,
        notificationUrl: receiverUrl,
      })
      .catch((x: unknown) => x);
    expect(e).toBeInstanceOf(ProviderRejected);
    expect((e as ProviderRejected).code).toBe('method_not_available');
    const none = await live.refunds
      .send({ providerPaymentId, refundId: refundId(), amountMinor: 100, currency: 'BRL', notificationUrl: receiverUrl })
      .catch((x: unknown) => x);
    expect((none as ProviderRejected).code).toBe('payment_amount_required');
    const tiny = await live.refunds
      .send({
        providerPaymentId,
        refundId: refundId(),
        amountMinor: 1,
        currency: 'BRL',
        paymentAmountMinor: 10 ** 12,
        notificationUrl: receiverUrl,
      })
      .catch((x: unknown) => x);
    expect((tiny as ProviderRejected).code).toBe('amount_too_small');
    // A refund query Binance cannot answer is not "never sent".
    fake.failNext('refund', { refuse: '400001' });
    await expect(live.refunds.get({ providerPaymentId, refundId: refundId() })).rejects.toBeInstanceOf(ProviderUnavailable);
  });
});

describe('Binance Pay webhooks', () => {
  it('a paid order’s webhook is verified with the published key, names what to read back, is acknowledged; one key fetch', async () => {
    const fetches = live.notifications.certificateFetches();
    const req = payment();
    const { providerPaymentId } = await live.payments.create(req);
    const answer = await fake.pay(providerPaymentId);
    expect(answer).toEqual({ status: 200, body: '{"returnCode":"SUCCESS","returnMessage":null}' });
    expect(lastParsed()).toEqual({ item: { kind: 'payment', paymentId: req.paymentId, providerPaymentId, claimed: 'PAY_SUCCESS' } });
    // A duplicate and a stale, out-of-order copy only name the order again: the read-back says paid.
    await fake.notify(providerPaymentId);
    await fake.notify(providerPaymentId, { bizStatus: 'PAY_CLOSED' });
    expect(lastParsed()).toMatchObject({ item: { paymentId: req.paymentId, claimed: 'PAY_CLOSED' } });
    expect(await live.payments.get(req.paymentId)).toMatchObject({ outcome: { kind: 'paid' } });
    expect(live.notifications.certificateFetches() - fetches).toBeLessThanOrEqual(1);
    const cached = live.notifications.certificateFetches();
    await fake.notify(providerPaymentId);
    expect(live.notifications.certificateFetches()).toBe(cached);
  });

  it('forged, unsigned, unpublished serials are forged; a rotated key is fetched on its serial; a wrong shape is null', async () => {
    const req = payment();
    const { providerPaymentId } = await live.payments.create(req);
    expect(await fake.notify(providerPaymentId, { sign: 'forged' })).toMatchObject({ status: 401 });
    expect(lastParsed()).toEqual({ forged: true });
    expect(await fake.notify(providerPaymentId, { sign: 'none' })).toMatchObject({ status: 401 });
    expect(await fake.notify(providerPaymentId, { sign: 'unknown_serial' })).toMatchObject({ status: 401 });

    const fetches = live.notifications.certificateFetches();
    const serial = await fake.rotateKey({ dropOld: true });
    expect(await fake.notify(providerPaymentId)).toMatchObject({ status: 200 });
    expect(live.notifications.certificateFetches()).toBe(fetches + 1);
    expect(received[received.length - 1]?.raw).toContain(providerPaymentId);
    expect(fake.serial()).toBe(serial);

    for (const body of ['{"hello":1}', JSON.stringify({ bizType: 'PAYOUT', bizIdStr: '1', bizStatus: 'X', data: '{}' }), 'not json']) {
      expect(await live.notifications.parse(fake.signedWebhook(body), body)).toBeNull();
    }
    // The signature covers the raw bytes: one changed byte is forged.
    const body = JSON.stringify({ bizType: 'PAY', bizIdStr: providerPaymentId, bizStatus: 'PAY_SUCCESS', data: '{}' });
    expect(await live.notifications.parse(fake.signedWebhook(body), body.replace('PAY_SUCCESS', 'PAY_SUCCESS '))).toEqual({ forged: true });
  });

  it('withheld webhooks leave the read-back as the only source: the order is still seen paid', async () => {
    const req = payment();
    await live.payments.create(req);
    const seen = received.length;
    fake.setWebhookMode('withhold');
    expect(await fake.pay(merchantTradeNoOf(req.paymentId))).toBeNull();
    expect(received.length).toBe(seen);
    expect(await live.payments.get(req.paymentId)).toMatchObject({ outcome: { kind: 'paid', amountMinor: 12_345 } });
  });
});

describe('Binance Pay failures', () => {
  it('5xx and a hang are ProviderUnavailable within the time limit; a read is retried once, a create never', async () => {
    const req = payment();
    fake.failNext('orders', { status: 502 });
    await expect(live.payments.create(req)).rejects.toBeInstanceOf(ProviderUnavailable);
    expect(fake.creates(merchantTradeNoOf(req.paymentId))).toBe(0);
    fake.failNext('orders', { hang: true });
    const started = performance.now();
    await expect(live.payments.create(req)).rejects.toBeInstanceOf(ProviderUnavailable);
    expect(performance.now() - started).toBeLessThan(TOTAL_MS + 500);
    expect(fake.creates(merchantTradeNoOf(req.paymentId))).toBe(0);

    await live.payments.create(req);
    fake.failNext('order', { status: 500 });
    expect(await live.payments.get(req.paymentId)).toMatchObject({ outcome: { kind: 'pending' } });
    fake.failNext('order', { hang: true }, 2);
    await expect(live.payments.get(req.paymentId)).rejects.toBeInstanceOf(ProviderUnavailable);
  });

  it('a business refusal is ProviderRejected with our code; a refusal of our call (signature, key) is unavailable', async () => {
    fake.failNext('orders', { refuse: '400203' });
    const e = await live.payments.create(payment()).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(ProviderRejected);
    expect((e as ProviderRejected).code).toBe('method_not_available');
    fake.failNext('orders', { refuse: '400102' });
    expect(((await live.payments.create(payment()).catch((x: unknown) => x)) as ProviderRejected).code).toBe('rejected_by_provider');

    const rogue = connect({ secret_key: 'not-the-secret-binance-gave-us' });
    try {
      const req = payment();
      await expect(rogue.payments.create(req)).rejects.toBeInstanceOf(ProviderUnavailable);
      expect(fake.order(merchantTradeNoOf(req.paymentId))).toBeUndefined();
      expect(fake.violations.splice(0)).toEqual([expect.stringContaining('the HMAC-SHA512 signature does not match')]);
    } finally {
      rogue.close();
    }
  });
});
