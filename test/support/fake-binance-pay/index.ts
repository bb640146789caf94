/**
 * A fake Binance Pay for the tests and the local live stage: HTTPS with its own CA (given to our client as ca_pem);
 * the merchant API's create order v3, query order v2, close, refund, refund query and certificates, every call a POST
 * that must carry BinancePay-Timestamp (fresh), BinancePay-Nonce (32 letters or digits), BinancePay-Certificate-SN
 * (our API key) and the HMAC-SHA512 signature over timestamp\nnonce\nbody\n, with a JSON content type; bodies are
 * checked against our schemas (state.ts). What is wrong is a violation, answered as Binance answers (FAIL 400002
 * signature, 400003 timestamp, 400004 key, 400001 parameters). A second create with one merchantTradeNo is
 * Binance's 400201. Fiat orders are priced at the fake's own scripted rates. Webhooks are signed base64 RSA SHA-256
 * with its own key, published by its certificates endpoint under a serial (the MD5 of the public key), which can be
 * rotated; they go to the order's (or refund's) webhookUrl when the order is paid, closed or expired or a refund
 * completes, and can be withheld, forged, repeated or sent stale. Faults per call: an HTTP status, a hang, a lost
 * answer, a business refusal. An order's checkoutUrl is a payer page of its own (Pay or Cancel, then back to the
 * order's returnUrl).
 */
import { createHash, generateKeyPair, randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { promisify } from 'node:util';
import {
  newNonce,
  one,
  requestSignatureValid,
  webhookSignature,
} from '../../../shared/adapters/providers/binance-pay/binance-pay.signature';
import { certificatesRequestSchema } from '../../../shared/adapters/providers/binance-pay/binance-pay.schemas';
import { decimalOf, unitsOf } from '../../../shared/adapters/providers/binance-pay/binance-pay.transformers';
import { makeCertificates } from '../fake-psp/certificates';
import { readBody } from '../fake-http';
import { BinanceError, BinancePayState, type FakeBinanceOp, type FakeOrder, type FakeRefund, type Fault, type RefundStatus } from './state';

export type { FakeBinanceOp, FakeOrder, FakeRefund, Fault, RefundStatus } from './state';

/** How a webhook is signed: with the published key, with another key (forged), under a serial never published, or not at all. */
export type Signing = 'good' | 'forged' | 'unknown_serial' | 'none';
/** What happens to the webhooks the fake sends by itself: sent, withheld (missed), or sent forged. */
export type WebhookMode = 'send' | 'withhold' | 'forge';

export interface WebhookAnswer {
  readonly status: number;
  readonly body: string;
}

/** Binance Pay takes a request only within a short window of its timestamp (its page says 1 s; the fake allows 5 s). */
export const FRESH_MS = 5_000;

const PATHS: Readonly<Record<string, FakeBinanceOp>> = {
  '/binancepay/openapi/v3/order': 'orders',
  '/binancepay/openapi/v2/order/query': 'order',
  '/binancepay/openapi/order/close': 'close',
  '/binancepay/openapi/order/refund': 'refunds',
  '/binancepay/openapi/order/refund/query': 'refund',
  '/binancepay/openapi/certificates': 'certificates',
};

interface SigningKey {
  readonly serial: string;
  readonly publicPem: string;
  readonly privatePem: string;
}

const rsa = promisify(generateKeyPair);
async function newKey(): Promise<SigningKey> {
  const { publicKey, privateKey } = await rsa('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });
  // "MD5 hash value of public key" (webhook-common): of its DER.
  const der = Buffer.from(publicKey.replace(/-----[^-]+-----|\s/g, ''), 'base64');
  return { serial: createHash('md5').update(der).digest('hex'), publicPem: publicKey, privatePem: privateKey };
}

export interface FakeBinancePay {
  readonly baseUrl: string;
  readonly caPem: string;
  readonly apiKey: string;
  readonly secretKey: string;
  binancePayConfig(over?: Record<string, unknown>): Record<string, unknown>;
  readonly requests: ReadonlyArray<{ path: string; body: unknown; headers: IncomingMessage['headers']; at: number }>;
  readonly violations: string[];
  /** Webhooks sent (and withheld), in order. */
  readonly webhooks: ReadonlyArray<{ url: string; body: string; signing: Signing | 'withheld'; answer?: WebhookAnswer }>;
  order(ref: string): FakeOrder | undefined;
  refund(refundRequestId: string): FakeRefund | undefined;
  /** The refunds Binance holds for an order (by prepayId). */
  refundsOf(prepayId: string): FakeRefund[];
  /** Creates received for one merchantTradeNo (a duplicate counts too) / refund sends for one refundRequestId. */
  creates(merchantTradeNo: string): number;
  refundSends(refundRequestId: string): number;
  /** Fiat units per USDT of the fake's quote (e.g. BRL 5.37). */
  setRate(fiat: string, rate: string): void;
  failNext(op: FakeBinanceOp, how: Fault, times?: number): void;
  /** Drops scripted faults and the webhook mode (back to 'send'). */
  clearFaults(): void;
  setWebhookMode(mode: WebhookMode): void;
  /** The payer pays the order (by merchantTradeNo or prepayId), optionally another USDT amount; then its webhook. */
  pay(ref: string, o?: { amount?: string }): Promise<WebhookAnswer | null>;
  /** The order closes (CANCELED) or expires (EXPIRED), then its PAY_CLOSED webhook. */
  closeOrder(ref: string): Promise<WebhookAnswer | null>;
  expire(ref: string): Promise<WebhookAnswer | null>;
  setStatus(ref: string, status: FakeOrder['status']): void;
  /** A refund reaches a final state (or is set back), then its webhook for a final one. */
  completeRefund(refundRequestId: string, status: RefundStatus): Promise<WebhookAnswer | null>;
  /** How the next refunds are answered at once (default REFUND_PENDING). */
  nextRefund(status: RefundStatus): void;
  /** How many refund requests an order takes (default 20): the last one refunds all that remains, whatever it asks. */
  setRefundAttempts(n: number): void;
  /**
   * Posts the order's webhook now (a duplicate when called again; with `bizStatus` for a stale, out-of-order copy),
   * signed per `sign`, to `url` or the order's webhookUrl.
   */
  notify(ref: string, o?: { sign?: Signing; bizStatus?: string; url?: string }): Promise<WebhookAnswer>;
  notifyRefund(refundRequestId: string, o?: { sign?: Signing; url?: string }): Promise<WebhookAnswer>;
  /** A webhook of our making, signed as Binance Pay would sign it (for tests that post it themselves). */
  signedWebhook(body: string, sign?: Signing): Record<string, string>;
  /** A new signing key under a new serial; the old one stays published unless `dropOld`. */
  rotateKey(o?: { dropOld?: boolean }): Promise<string>;
  readonly serial: () => string;
  readonly certificateQueries: () => number;
  close(): Promise<void>;
}

export async function startFakeBinancePay(opts: { hangMs?: number; port?: number } = {}): Promise<FakeBinancePay> {
  const [certs, firstKey] = await Promise.all([makeCertificates(), newKey()]);
  const apiKey = `bpkey${randomBytes(12).toString('hex')}`;
  const secretKey = randomBytes(32).toString('hex');
  let origin = '';
  const state = new BinancePayState(() => origin);
  const published: SigningKey[] = [firstKey];
  let current = firstKey;
  let certificateQueries = 0;
  let mode: WebhookMode = 'send';
  const requests: Array<{ path: string; body: unknown; headers: IncomingMessage['headers']; at: number }> = [];
  const webhooks: Array<{ url: string; body: string; signing: Signing | 'withheld'; answer?: WebhookAnswer }> = [];
  const sockets = new Set<Socket>();
  const hung = new Set<ServerResponse>();
  const hang = (res: ServerResponse) => {
    hung.add(res);
    setTimeout(() => res.destroy(), opts.hangMs ?? 60_000).unref();
  };
  const send = (res: ServerResponse, status: number, body: unknown) => {
    if (res.destroyed) return;
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };

  /** The request's signature headers as Binance Pay checks them; what is wrong is a violation and Binance's refusal. */
  function checkSigned(op: FakeBinanceOp, req: IncomingMessage, text: string) {
    const h = req.headers;
    const fail = (problem: string, code: string, message: string) => {
      state.violations.push(`${op}: ${problem}`);
      throw new BinanceError(400, code, message);
    };
    if (req.method !== 'POST') fail(`method ${req.method}`, '400006', 'Request method not supported');
    if (h['content-type']?.split(';')[0] !== 'application/json') fail('content-type is not JSON', '400007', 'Media type not supported');
    if (one(h['binancepay-certificate-sn']) !== apiKey)
      fail('BinancePay-Certificate-SN is not our API key', '400004', 'API identity key not found or invalid');
    const ts = one(h['binancepay-timestamp']) ?? '';
    if (!/^\d{13}$/.test(ts) || Math.abs(Date.now() - Number(ts)) > FRESH_MS)
      fail('BinancePay-Timestamp missing or not fresh', '400003', 'Timestamp for this request is outside of the time window');
    if (!/^[A-Za-z0-9]{32}$/.test(one(h['binancepay-nonce']) ?? ''))
      fail('BinancePay-Nonce is not 32 letters or digits', '400001', 'Invalid nonce');
    if (!requestSignatureValid(h, text, secretKey))
      fail('the HMAC-SHA512 signature does not match', '400002', 'Signature for this request is not valid.');
  }

  function route(op: FakeBinanceOp, body: unknown): unknown {
    switch (op) {
      case 'orders':
        return state.createOrder(body);
      case 'order':
        return state.queryOrder(body);
      case 'close':
        return state.closeOrder(body);
      case 'refunds':
        return state.refund(body);
      case 'refund':
        return state.refundQuery(body);
      case 'certificates':
        state.check('POST certificates', certificatesRequestSchema, body);
        certificateQueries += 1;
        return published.map((k) => ({ certSerial: k.serial, certPublic: k.publicPem }));
    }
  }

  const signedWebhook = (text: string, sign: Signing = 'good'): Record<string, string> => {
    const timestamp = String(Date.now());
    const nonce = newNonce();
    const forger = sign === 'forged' || sign === 'unknown_serial';
    const key = forger ? forgerKey : current;
    return {
      'content-type': 'application/json',
      'binancepay-timestamp': timestamp,
      'binancepay-nonce': nonce,
      'binancepay-certificate-sn': sign === 'unknown_serial' ? forgerKey.serial : current.serial,
      ...(sign === 'none' ? {} : { 'binancepay-signature': webhookSignature(key.privatePem, timestamp, nonce, text) }),
    };
  };
  const forgerKey = await newKey();

  async function post(url: string, text: string, sign: Signing): Promise<WebhookAnswer> {
    const r = await fetch(url, { method: 'POST', headers: signedWebhook(text, sign), body: text });
    const answer = { status: r.status, body: await r.text() };
    webhooks.push({ url, body: text, signing: sign, answer });
    return answer;
  }

  /** bizId is a long in Binance's body: written as a bare 19-digit number (beyond a double's precision), as Binance does. */
  const envelope = (bizType: string, prepayId: string, bizStatus: string, data: unknown) =>
    JSON.stringify({ bizType, bizId: 0, bizIdStr: prepayId, bizStatus, data: JSON.stringify(data) }).replace(
      '"bizId":0',
      `"bizId":${prepayId}`,
    );

  function orderWebhook(o: FakeOrder, bizStatus: string): string {
    return envelope('PAY', o.prepayId, bizStatus, {
      merchantTradeNo: o.request.merchantTradeNo,
      productType: o.request.goodsDetails[0]?.goodsType ?? '02',
      productName: o.request.goodsDetails[0]?.goodsName ?? '',
      transactTime: o.transactTime ?? Date.now(),
      tradeType: 'WEB',
      totalFee: Number(decimalOf(o.orderAmount)),
      currency: 'USDT',
      openUserId: '1a2b3c',
      passThroughInfo: o.request.passThroughInfo,
    });
  }
  function refundWebhook(r: FakeRefund): string {
    const o = state.byPrepayId.get(r.prepayId) as FakeOrder;
    return envelope('PAY_REFUND', o.prepayId, r.status === 'REFUND_SUCCESS' ? 'REFUND_SUCCESS' : 'REFUND_REJECTED', {
      merchantTradeNo: o.request.merchantTradeNo,
      productType: o.request.goodsDetails[0]?.goodsType ?? '02',
      productName: o.request.goodsDetails[0]?.goodsName ?? '',
      tradeType: 'WEB',
      totalFee: Number(decimalOf(o.orderAmount)),
      currency: 'USDT',
      refundInfo: {
        refundRequestId: r.refundRequestId,
        prepayId: o.prepayId,
        orderAmount: decimalOf(o.orderAmount),
        refundAmount: decimalOf(r.amount),
      },
    });
  }

  /** A webhook the fake sends by itself: per the mode, sent, withheld or forged. */
  async function auto(url: string | undefined, text: string): Promise<WebhookAnswer | null> {
    if (!url) return null;
    if (mode === 'withhold') {
      webhooks.push({ url, body: text, signing: 'withheld' });
      return null;
    }
    return post(url, text, mode === 'forge' ? 'forged' : 'good').catch(() => null);
  }

  const must = (ref: string): FakeOrder => {
    const o = state.find(/^bp/.test(ref) ? { merchantTradeNo: ref } : { prepayId: ref });
    if (!o) throw new Error(`fake Binance Pay: no order ${ref}`);
    return o;
  };

  async function pay(ref: string, o: { amount?: string } = {}) {
    const order = must(ref);
    order.status = 'PAID';
    order.transactTime = Date.now();
    order.transactionId = `M_${randomBytes(8).toString('hex').toUpperCase()}`;
    if (o.amount !== undefined) order.paidAmount = unitsOf(o.amount);
    return auto(order.request.webhookUrl, orderWebhook(order, 'PAY_SUCCESS'));
  }

  /** The payer page behind checkoutUrl: Pay or Cancel, its webhook, then back to the order's returnUrl. */
  async function payerPage(req: IncomingMessage, res: ServerResponse, prepayId: string, text: string) {
    const o = state.find({ prepayId });
    if (!o) {
      res.writeHead(404, { 'content-type': 'text/plain' });
      return res.end('no such order');
    }
    if (req.method !== 'POST') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      return res.end(
        '<!doctype html><html lang="en"><title>Fake Binance Pay</title><link rel="icon" href="data:,">' +
          `<h1>${decimalOf(o.orderAmount)} USDT</h1><p>${o.status}</p>` +
          '<form method="post"><button name="outcome" value="PAID">Pay</button> ' +
          '<button name="outcome" value="CANCELED">Cancel</button></form>',
      );
    }
    if (o.status === 'INITIAL' || o.status === 'PENDING') {
      if (new URLSearchParams(text).get('outcome') === 'PAID') await pay(prepayId);
      else {
        o.status = 'CANCELED';
        await auto(o.request.webhookUrl, orderWebhook(o, 'PAY_CLOSED'));
      }
    }
    res.writeHead(302, { location: o.request.returnUrl ?? 'about:blank' });
    res.end();
  }

  const server: Server = createServer({ key: certs.server.keyPem, cert: certs.server.certPem }, (req, res) => {
    void (async () => {
      const text = await readBody(req);
      const url = new URL(req.url ?? '/', 'https://fake-binance-pay');
      const page = /^\/checkout\/(\d+)$/.exec(url.pathname);
      if (page) return payerPage(req, res, page[1] as string, text);
      if (url.pathname === '/favicon.ico' || url.pathname.startsWith('/qr/')) return send(res, 404, {});
      let body: unknown;
      try {
        body = text ? JSON.parse(text) : undefined;
      } catch {
        state.violations.push(`${url.pathname}: a body that is not JSON`);
        return send(res, 400, new BinanceError(400, '400001', 'Parameter format is wrong').body());
      }
      requests.push({ path: url.pathname, body, headers: req.headers, at: Date.now() });
      const op = PATHS[url.pathname];
      if (!op) {
        state.violations.push(`no ${req.method} ${url.pathname}`);
        return send(res, 404, { status: 'FAIL', code: '400000', errorMessage: 'Not found' });
      }
      try {
        checkSigned(op, req, text);
        const fault = state.nextFault(op);
        if (fault && 'hang' in fault) return hang(res);
        if (fault && 'status' in fault)
          return send(res, fault.status, { status: 'FAIL', code: '400000', errorMessage: 'scripted failure' });
        if (fault && 'refuse' in fault) throw new BinanceError(fault.httpStatus ?? 400, fault.refuse, 'scripted refusal');
        const data = route(op, body);
        if (fault && 'hangAfter' in fault) return hang(res);
        send(res, 200, { status: 'SUCCESS', code: '000000', data, errorMessage: '' });
      } catch (e) {
        if (e instanceof BinanceError) return send(res, e.httpStatus, e.body());
        send(res, 500, { status: 'FAIL', code: '400000', errorMessage: String(e) });
      }
    })();
  });
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  server.on('tlsClientError', () => undefined);
  await new Promise<void>((r) => server.listen(opts.port ?? 0, '127.0.0.1', r));
  const addr = server.address();
  origin = `https://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}`;

  return {
    baseUrl: origin,
    caPem: certs.ca.certPem,
    apiKey,
    secretKey,
    binancePayConfig: (over = {}) => ({ base_url: origin, api_key: apiKey, secret_key: secretKey, ca_pem: certs.ca.certPem, ...over }),
    requests,
    violations: state.violations,
    webhooks,
    order: (ref) => state.find(/^bp/.test(ref) ? { merchantTradeNo: ref } : { prepayId: ref }),
    refund: (id) => state.refunds.get(id),
    refundsOf: (prepayId) => [...state.refunds.values()].filter((r) => r.prepayId === prepayId),
    creates: (mtn) => state.creates.get(mtn) ?? 0,
    refundSends: (id) => state.refundSends.get(id) ?? 0,
    setRate: (fiat, rate) => void state.rates.set(fiat, rate),
    failNext(op, how, times = 1) {
      state.faults.set(op, [...(state.faults.get(op) ?? []), ...Array.from({ length: times }, () => how)]);
    },
    clearFaults() {
      state.faults.clear();
      state.refundScripts.length = 0;
      mode = 'send';
    },
    setWebhookMode(m) {
      mode = m;
    },
    pay,
    async closeOrder(ref) {
      const o = must(ref);
      o.status = 'CANCELED';
      return auto(o.request.webhookUrl, orderWebhook(o, 'PAY_CLOSED'));
    },
    async expire(ref) {
      const o = must(ref);
      o.status = 'EXPIRED';
      return auto(o.request.webhookUrl, orderWebhook(o, 'PAY_CLOSED'));
    },
    setStatus(ref, status) {
      must(ref).status = status;
    },
    async completeRefund(id, status) {
      const r = state.setRefundStatus(id, status);
      return status === 'REFUND_PENDING' ? null : auto(r.webhookUrl, refundWebhook(r));
    },
    nextRefund: (status) => void state.refundScripts.push(status),
    setRefundAttempts: (n) => void (state.refundAttempts = n),
    async notify(ref, o = {}) {
      const order = must(ref);
      const status = o.bizStatus ?? (order.status === 'PAID' ? 'PAY_SUCCESS' : 'PAY_CLOSED');
      const url = o.url ?? order.request.webhookUrl;
      if (!url) throw new Error('fake Binance Pay: the order has no webhookUrl');
      return post(url, orderWebhook(order, status), o.sign ?? 'good');
    },
    async notifyRefund(id, o = {}) {
      const r = state.refunds.get(id);
      if (!r) throw new Error(`fake Binance Pay: no refund ${id}`);
      const url = o.url ?? r.webhookUrl;
      if (!url) throw new Error('fake Binance Pay: the refund has no webhookUrl');
      return post(url, refundWebhook(r), o.sign ?? 'good');
    },
    signedWebhook,
    async rotateKey(o = {}) {
      const k = await newKey();
      if (o.dropOld) published.length = 0;
      published.push(k);
      current = k;
      return k.serial;
    },
    serial: () => current.serial,
    certificateQueries: () => certificateQueries,
    async close() {
      for (const res of hung) res.destroy();
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
