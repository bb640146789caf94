/**
 * A fake dLocal for the tests and the local live stage: HTTPS with its own CA (given to our client as ca_pem); the
 * pay-ins API (POST /payments, GET /payments/{id}, GET /orders/{order_id}, POST /refunds, GET /refunds/{id},
 * GET /orders/{order_refund_id} for a refund by our reference) where
 * every request must carry X-Login, X-Trans-Key, X-Version 2.1 and a V2-HMAC-SHA256 signature over
 * X-Login + X-Date + body, and payouts v3 (POST /oauth/token, POST /payouts/v3, GET /payouts/v3?external_id=) behind
 * bearer tokens that expire, each payouts call with X-Date (ISO 8601 UTC) and X-Version 3.0 beside its token
 * (docs.dlocal.com/reference/security-payouts-v3). Bodies are checked against our schemas (state.ts); a second
 * create with one order_id is dLocal's 5009 "duplicated", one external_id payouts v3's 5011. It signs notifications
 * as dLocal signs them (or forges them), sends them twice, out of order or not at all, and fails on demand (a
 * status, a hang, a lost answer). Brazilian PIX payouts (country BR) and refused connections are pix-payouts.ts's;
 * Brazilian Pix pay-ins (PQ, DIRECT, with their BR Code and cancel) pix-payins.ts's. A
 * REDIRECT payment's redirect_url is a payer page of its own (Pay or Reject, then back to the callback_url); a Bre-B
 * (BQ, DIRECT) payment answers its QR in the ticket (`qr_code`, `expiration_date`) and is paid with setStatus. Each
 * payment_method_id is checked against its country, currency and flows (state.ts FAKE_METHODS); GET
 * /payments/{id}/refunds, which dLocal's own pages do not name, is answered 404 and recorded as a violation. Card
 * payments (POST /secure_payments, read-back, cancel, 3-D Secure) and refused connections are cards.ts's; chargebacks
 * (opened on a paid card, GET /chargebacks/{id}, their signed notices) chargebacks.ts's.
 */
import { readBody } from '../fake-http';
import { createServer, type Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { randomBytes } from 'node:crypto';
import { authorizationOf, signatureOf, signatureValid } from '../../../shared/adapters/providers/dlocal/dlocal.signature';
import type { PaymentStatus, PayoutStatus } from '../../../shared/adapters/providers/dlocal/dlocal.schemas';
import { makeCertificates } from '../fake-psp/certificates';
import { connectionGate, FakeCards, redactCard as redact } from './cards';
import { FakeChargebacks } from './chargebacks';
import {
  DlocalError,
  DlocalState,
  methodList,
  type FakeDlocalOp,
  type FakePayment,
  type FakePayout,
  type FakeRefund,
  type Fault,
  type PaymentScript,
} from './state';
import { FakePixPayouts, isPixPayoutBody, type PixRefusal } from './pix-payouts';
import { FakePixPayIns } from './pix-payins';

export type { FakeDlocalOp, FakeRefund, Fault, PaymentScript } from './state';
export { FAKE_CARDS, type FakeCardPayment } from './cards';
export type { FakeChargeback } from './chargebacks';

export interface NotificationAnswer {
  readonly status: number;
  readonly body: string;
}

/** How a notification is signed: as dLocal signs it, with another secret, or not at all. */
export type Signing = 'good' | 'forged' | 'none';

export interface FakeDlocal {
  readonly baseUrl: string;
  readonly caPem: string;
  readonly xLogin: string;
  readonly secretKey: string;
  dlocalConfig(over?: Record<string, unknown>): Record<string, unknown>;
  readonly requests: ReadonlyArray<{ method: string; path: string; body: unknown; headers: IncomingMessage['headers']; at: number }>;
  readonly violations: string[];
  payment(orderId: string): FakePayment | undefined;
  payout(externalId: string): FakePayout | undefined;
  /** An open Bre-B payment's QR as dLocal answers it (the ticket's qr_code and expiration_date), or null. */
  qrOf(orderId: string): { qr_code: string; expiration_date: string } | null;
  /** Leaves a method (`BR:PP`) out of the account's method list, as an account that does not have it. */
  withholdMethod(key: string): void;
  refund(id: string): FakeRefund | undefined;
  /** The refunds dLocal holds for one of our refund references (order_refund_id): more than one is a double refund. */
  refundsFor(orderRefundId: string): FakeRefund[];
  /** A refund made outside the API (dLocal's dashboard): it carries no order_refund_id. */
  dashboardRefund(orderId: string, amount: number): FakeRefund;
  /** How the next refund is answered at once: SUCCESS, REJECTED, CANCELLED (default PENDING). */
  nextRefund(status: FakeRefund['status']): void;
  /** Creates received for one order_id / external_id (a duplicate counts too). */
  creates(orderId: string): number;
  payoutCreates(externalId: string): number;
  readonly tokensIssued: () => number;
  setTokenLifetime(seconds: number): void;
  /** dLocal forgets every token it issued (a revocation): the next call with one is a 401. */
  revokeTokens(): void;
  nextPayment(script: PaymentScript): void;
  failNext(op: FakeDlocalOp, how: Fault, times?: number): void;
  /** The payer pays, or dLocal rejects, cancels, expires (no notification: call notify). */
  setStatus(orderId: string, status: PaymentStatus, statusCode?: string): void;
  /** dLocal reports another amount than was asked for (with the next setStatus PAID: a payer who paid another amount). */
  setPaidAmount(orderId: string, amount: number): void;
  setPayoutStatus(externalId: string, status: PayoutStatus, reason?: string): void;
  /** A Brazilian PIX payout's creates to this key are refused with dLocal's code (counted; nothing made). */
  refusePixKey(key: string, how: PixRefusal): void;
  setRefundStatus(id: string, status: FakeRefund['status']): void;
  /**
   * Posts the payment object (as it is now, or with `status` for a stale, out-of-order copy) to its notification_url,
   * signed per `sign`. Calling it twice is a duplicate; not calling it is a skipped notification.
   */
  notify(orderId: string, o?: { sign?: Signing; status?: PaymentStatus }): Promise<NotificationAnswer>;
  /** Posts the refund object (as it is now, or with `status` for a stale copy) to its notification_url. */
  notifyRefund(id: string, o?: { sign?: Signing; status?: FakeRefund['status'] }): Promise<NotificationAnswer>;
  notifyPayout(externalId: string, o?: { sign?: Signing; status?: PayoutStatus }): Promise<NotificationAnswer>;
  /** The headers dLocal would sign a body with (for tests that post it themselves). */
  signedNotificationHeaders(body: string, sign?: Signing): Record<string, string>;
  /** Card payments (cards.ts); every connection refused (`reset` before a byte, `closed` listener) until null. */
  readonly cards: FakeCards;
  /** Chargebacks of paid card payments (chargebacks.ts): opened, moved, read back, notified to the registered URL. */
  readonly chargebacks: FakeChargebacks;
  /** Brazilian Pix pay-ins (pix-payins.ts): their BR Code, and paid, rejected or expired on demand (notified). */
  readonly pixPayIns: FakePixPayIns;
  refuseConnections(mode: 'reset' | 'closed' | null): Promise<void>;
  close(): Promise<void>;
}

/** X-Date as dLocal takes it: ISO 8601 with the UTC designator (2018-07-12T13:46:28.629Z). */
const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

function opOf(method: string, path: string): FakeDlocalOp | null {
  if (method === 'POST' && path === '/payments') return 'payments';
  if (method === 'POST' && path === '/secure_payments') return 'secure_payments';
  if (method === 'POST' && /^\/payments\/[^/]+\/cancel$/.test(path)) return 'cancel';
  if (method === 'GET' && /^\/payments\/[^/]+$/.test(path)) return 'payment';
  // A refund read back by our reference (`dr` + 32 hex) is a refund read; a payment's order (`dp...`) an order read.
  if (method === 'GET' && /^\/orders\/dr[0-9a-f]{32}$/.test(path)) return 'refund';
  if (method === 'GET' && /^\/orders\/[^/]+$/.test(path)) return 'order';
  if (method === 'POST' && path === '/refunds') return 'refunds';
  if (method === 'GET' && /^\/refunds\/[^/]+$/.test(path)) return 'refund';
  if (method === 'POST' && path === '/oauth/token') return 'token';
  if (method === 'GET' && path === '/payments-methods') return 'methods';
  if (method === 'POST' && path === '/payouts/v3') return 'payouts';
  if (method === 'GET' && path === '/payouts/v3') return 'payout';
  if (method === 'GET' && /^\/chargebacks\/[^/]+$/.test(path)) return 'chargeback';
  return null;
}

export async function startFakeDlocal(opts: { hangMs?: number; port?: number } = {}): Promise<FakeDlocal> {
  const certs = await makeCertificates();
  const xLogin = `login-${randomBytes(6).toString('hex')}`;
  const xTransKey = `trans-${randomBytes(6).toString('hex')}`;
  const secretKey = randomBytes(24).toString('base64url');
  const clientId = `client-${randomBytes(6).toString('hex')}`;
  const clientSecret = randomBytes(24).toString('base64url');
  let origin = '';
  const state = new DlocalState(() => origin, clientId, clientSecret);
  const cards = new FakeCards(state, () => origin, { xLogin, secretKey }, post);
  const pix = new FakePixPayouts(state);
  const pixIn = new FakePixPayIns(state, () => origin, post);
  const chargebacks = new FakeChargebacks(cards, post);
  /** Methods the account does not have (`COUNTRY:ID`): left out of GET /payments-methods. */
  const withheldMethods = new Set<string>();
  const requests: Array<{ method: string; path: string; body: unknown; headers: IncomingMessage['headers']; at: number }> = [];
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

  /**
   * A payouts v3 call with the headers dLocal's payouts v3 security page shows beside the token (X-Date, ISO 8601
   * UTC; X-Version 3.0): what is missing or wrong is a violation, answered as a bad token is (401 Unauthorized).
   */
  function checkPayoutsHeaders(op: FakeDlocalOp, req: IncomingMessage) {
    const h = req.headers;
    const problems: string[] = [];
    if (h['x-version'] !== '3.0') problems.push(h['x-version'] === undefined ? 'no X-Version' : 'X-Version is not 3.0');
    if (h['x-date'] === undefined) problems.push('no X-Date');
    else if (!ISO_UTC.test(String(h['x-date'])) || Number.isNaN(Date.parse(String(h['x-date']))))
      problems.push('X-Date is not ISO 8601 UTC');
    if (problems.length) {
      state.violations.push(`${op}: ${problems.join('; ')}`);
      throw new DlocalError(401, 401, 'Unauthorized');
    }
  }

  /** A pay-ins call signed as dLocal requires; what is wrong is a violation, answered 403 3001 as dLocal does. */
  function checkSigned(op: FakeDlocalOp, req: IncomingMessage, text: string) {
    const h = req.headers;
    const problems: string[] = [];
    if (h['x-login'] !== xLogin) problems.push('X-Login is not ours');
    if (h['x-trans-key'] !== xTransKey) problems.push('X-Trans-Key is not ours');
    if (h['x-version'] !== '2.1') problems.push('X-Version is not 2.1');
    if (!ISO_UTC.test(String(h['x-date'] ?? ''))) problems.push('X-Date is not ISO 8601 UTC');
    if (req.method === 'POST' && h['content-type']?.split(';')[0] !== 'application/json') problems.push('content-type is not JSON');
    if (!signatureValid(h, text, { xLogin, secretKey })) problems.push('the V2-HMAC-SHA256 signature does not match');
    if (problems.length) {
      state.violations.push(`${op}: ${problems.join('; ')}`);
      throw new DlocalError(403, 3001, 'Invalid Credentials.');
    }
  }

  function route(
    op: FakeDlocalOp,
    req: IncomingMessage,
    path: string,
    query: URLSearchParams,
    text: string,
    body: unknown,
  ): [number, unknown] {
    if (op === 'token') return [200, state.issueToken(body)];
    if (op === 'payouts' || op === 'payout') {
      checkPayoutsHeaders(op, req);
      if (!state.bearerValid(req.headers.authorization)) throw new DlocalError(401, 401, 'Unauthorized');
      if (op === 'payouts') return [200, isPixPayoutBody(body) ? pix.create(body) : state.createPayout(body)];
      const externalId = query.get('external_id');
      const p = externalId ? state.byExternalId.get(externalId) : state.payouts.get(query.get('payout_id') ?? '');
      if (!externalId && !query.get('payout_id')) state.violations.push('GET /payouts/v3: neither external_id nor payout_id');
      if (!p) throw new DlocalError(404, 509, 'Payout not found with this ID.');
      return [200, state.payoutObject(p)];
    }
    checkSigned(op, req, text);
    if (op === 'methods') {
      const country = query.get('country') ?? '';
      if (!/^[A-Z]{2}$/.test(country)) {
        state.violations.push(`GET /payments-methods without a country (${country})`);
        throw new DlocalError(400, 5000, 'Invalid request.');
      }
      return [200, methodList(country, withheldMethods)];
    }
    const card = pixIn.route(op, path, body) ?? cards.route(op, path, body) ?? chargebacks.route(op, path);
    if (card) return card;
    const last = decodeURIComponent(path.slice(path.lastIndexOf('/') + 1));
    switch (op) {
      case 'payments':
        return [200, state.createPayment(body)];
      case 'payment': {
        const p = state.payments.get(last);
        if (!p) throw new DlocalError(404, 4000, 'Payment not found.');
        return [200, state.paymentObject(p)];
      }
      case 'order':
        return [200, state.order(last)];
      case 'refunds':
        return [200, state.createRefund(body)];
      default: {
        if (path.startsWith('/orders/')) return [200, state.refundByOrder(last)];
        const r = state.refunds.get(last);
        if (!r) throw new DlocalError(404, 4000, 'Refund not found.');
        return [200, state.refundObject(r)];
      }
    }
  }

  /**
   * The page a REDIRECT payment's redirect_url opens (the bank's or wallet's, behind dLocal): Pay or Reject. Either
   * sets the payment's status, sends its signed notification, then sends the browser to the payment's callback_url.
   */
  async function payerPage(req: IncomingMessage, res: ServerResponse, paymentId: string, text: string) {
    const p = state.payments.get(paymentId);
    if (!p || p.request.payment_method_flow !== 'REDIRECT') {
      res.writeHead(404, { 'content-type': 'text/plain' });
      return res.end('no such payment');
    }
    if (req.method !== 'POST') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      return res.end(
        '<!doctype html><html lang="es"><title>Fake dLocal</title><link rel="icon" href="data:,">' +
          `<h1>${p.request.payment_method_id} ${p.request.amount} ${p.request.currency}</h1>` +
          '<form method="post"><button name="outcome" value="PAID">Pay</button> ' +
          '<button name="outcome" value="REJECTED">Reject</button></form>',
      );
    }
    const outcome = new URLSearchParams(text).get('outcome') === 'PAID' ? 'PAID' : 'REJECTED';
    if (p.status === 'PENDING') {
      state.setStatus(p.request.order_id, outcome, outcome === 'PAID' ? undefined : '301');
      await post(p.request.notification_url, state.paymentObject(p)).catch(() => undefined);
    }
    res.writeHead(302, { location: p.request.callback_url ?? 'about:blank' });
    res.end();
  }

  const server: Server = createServer({ key: certs.server.keyPem, cert: certs.server.certPem }, (req, res) => {
    void (async () => {
      const text = await readBody(req);
      const url = new URL(req.url ?? '/', 'https://fake-dlocal');
      const method = req.method ?? 'GET';
      const page = /^\/(checkout|3ds)\/([^/]+)$/.exec(url.pathname);
      if (page?.[1] === 'checkout') return payerPage(req, res, decodeURIComponent(page[2] as string), text);
      if (page) return cards.threeDsPage(req, res, decodeURIComponent(page[2] as string), text);
      if (url.pathname === '/favicon.ico') return send(res, 404, {}); // the payer page's browser, not our client
      let body: unknown;
      try {
        body = text ? JSON.parse(text) : undefined;
      } catch {
        state.violations.push(`${method} ${url.pathname}: a body that is not JSON`);
        return send(res, 400, { code: 5000, message: 'Invalid request.' });
      }
      requests.push({ method, path: url.pathname + url.search, body: redact(url.pathname, body), headers: req.headers, at: Date.now() });
      const op = opOf(method, url.pathname);
      if (!op) {
        state.violations.push(`no ${method} ${url.pathname}`);
        return send(res, 404, { code: 5000, message: 'Not found.' });
      }
      const fault = state.nextFault(op);
      if (fault && 'hang' in fault) return hang(res);
      if (fault && 'status' in fault) return send(res, fault.status, { code: fault.code ?? 0, message: 'scripted failure' });
      try {
        const [status, answer] = route(op, req, url.pathname, url.searchParams, text, body);
        if (fault && 'hangAfter' in fault) return hang(res);
        if (fault && 'dropAfter' in fault) return void res.socket?.destroy();
        // Slow: the answer as it was when asked, arriving late (what a read racing another's write sees).
        if (fault && 'delayMs' in fault) await new Promise((r) => setTimeout(r, fault.delayMs));
        send(res, status, answer);
      } catch (e) {
        if (e instanceof DlocalError) return send(res, e.status, e.body());
        send(res, 500, { code: 0, message: String(e) });
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
  const refuseConnections = connectionGate(server, sockets, () => Number(new URL(origin).port));

  const signedNotificationHeaders = (text: string, sign: Signing = 'good'): Record<string, string> => {
    const xDate = new Date().toISOString();
    const secret = sign === 'good' ? secretKey : randomBytes(24).toString('base64url');
    return {
      'content-type': 'application/json',
      'x-date': xDate,
      'x-login': xLogin,
      ...(sign === 'none' ? {} : { authorization: authorizationOf(signatureOf(secret, xLogin, xDate, text)) }),
    };
  };
  async function post(url: string, object: unknown, sign: Signing = 'good'): Promise<NotificationAnswer> {
    const text = JSON.stringify(object);
    const r = await fetch(url, { method: 'POST', headers: signedNotificationHeaders(text, sign), body: text });
    return { status: r.status, body: await r.text() };
  }

  return {
    baseUrl: origin,
    caPem: certs.ca.certPem,
    xLogin,
    secretKey,
    dlocalConfig: (over = {}) => ({
      base_url: origin,
      x_login: xLogin,
      x_trans_key: xTransKey,
      secret_key: secretKey,
      payouts: { client_id: clientId, client_secret: clientSecret },
      ca_pem: certs.ca.certPem,
      ...over,
    }),
    requests,
    violations: state.violations,
    payment: (orderId) => state.byOrderId.get(orderId),
    payout: (externalId) => state.byExternalId.get(externalId),
    withholdMethod: (key) => void withheldMethods.add(key),
    qrOf(orderId) {
      const p = state.byOrderId.get(orderId);
      const t = p ? (state.paymentObject(p).ticket as { qr_code?: string; expiration_date: string } | undefined) : undefined;
      return t?.qr_code ? { qr_code: t.qr_code, expiration_date: t.expiration_date } : null;
    },
    refund: (id) => state.refunds.get(id),
    refundsFor: (orderRefundId) => [...state.refunds.values()].filter((r) => r.orderRefundId === orderRefundId),
    nextRefund: (status) => void state.refundScripts.push(status),
    dashboardRefund: (orderId, amount) => state.dashboardRefund(orderId, amount),
    creates: (orderId) => state.creates.get(orderId) ?? 0,
    payoutCreates: (externalId) => state.payoutCreates.get(externalId) ?? 0,
    tokensIssued: () => state.tokensIssued,
    setTokenLifetime(seconds) {
      state.tokenLifetimeSeconds = seconds;
    },
    revokeTokens: () => state.tokens.clear(),
    nextPayment: (script) => void state.scripts.push(script),
    failNext(op, how, times = 1) {
      state.faults.set(op, [...(state.faults.get(op) ?? []), ...Array.from({ length: times }, () => how)]);
    },
    setStatus: (orderId, status, statusCode) => void state.setStatus(orderId, status, statusCode),
    setPaidAmount(orderId, amount) {
      const p = state.byOrderId.get(orderId);
      if (!p) throw new Error(`fake dLocal: no payment for ${orderId}`);
      p.paidAmount = amount;
    },
    setPayoutStatus: (externalId, status, reason) => void state.setPayoutStatus(externalId, status, reason),
    refusePixKey: (key, how) => void pix.refusals.set(key, how),
    setRefundStatus(id, status) {
      const r = state.refunds.get(id);
      if (!r) throw new Error(`fake dLocal: no refund ${id}`);
      r.status = status;
    },
    async notify(orderId, o = {}) {
      const p = state.byOrderId.get(orderId);
      if (!p) throw new Error(`fake dLocal: no payment for ${orderId}`);
      const object = state.paymentObject(p);
      return post(
        p.request.notification_url,
        o.status ? { ...object, status: o.status, status_code: o.status === 'PENDING' ? '100' : object.status_code } : object,
        o.sign,
      );
    },
    async notifyRefund(id, o = {}) {
      const r = state.refunds.get(id);
      if (!r) throw new Error(`fake dLocal: no refund ${id}`);
      const object = state.refundObject(r);
      return post(r.notificationUrl, o.status ? { ...object, status: o.status } : object, o.sign);
    },
    async notifyPayout(externalId, o = {}) {
      const p = state.byExternalId.get(externalId);
      if (!p) throw new Error(`fake dLocal: no payout ${externalId}`);
      const object = state.payoutObject(p);
      return post(p.request.notification_url, o.status ? { ...object, status: o.status } : object, o.sign);
    },
    signedNotificationHeaders,
    cards,
    chargebacks,
    pixPayIns: pixIn,
    refuseConnections,
    async close() {
      for (const res of hung) res.destroy();
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
