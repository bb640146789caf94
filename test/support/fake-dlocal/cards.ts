/**
 * The fake dLocal's card payments (hooked into index.ts): POST /secure_payments checked against OUR schema
 * (dlocal.card-schemas.ts; a mismatch is dLocal's 400 5001 and a violation), decided by the test card's number,
 * read back by GET /orders/{order_id} and GET /payments/{id}, voided by POST /payments/{id}/cancel (an AUTHORIZED or
 * PENDING one; anything else is dLocal's 400 5002), a second create of one order_id is 5009. A 3-D Secure payment
 * answers PENDING 101 with `three_dsecure.redirect_url`, a page of the fake's (/3ds/{id}): Authenticate or Fail sets
 * the payment PAID or REJECTED, sends its signed notification, and returns the browser to the callback_url with a
 * form POST of paymentId, status (APPROVED, REJECTED), date and signature, as docs/configure-callback-url describes.
 *
 * Test cards (the fake's own: dLocal's sandbox approves every card and takes a code in `description` instead):
 *   4111111111111111 and any number not below   PAID
 *   4000000000000NNN, NNN in 300..326           REJECTED with status_code NNN (DLOCAL_CARD_DECLINES)
 *   4000000000002503                            PENDING 101, 3-D Secure (redirect_url)
 *   4000000000002602                            PENDING 100 (no redirect: the notification decides)
 *   4000000000002701                            AUTHORIZED 600 (held, not captured)
 * The card's number and CVV are never kept: a payment holds its last four digits; the request log (index.ts) gets
 * the body through redactCard.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Server } from 'node:https';
import type { Socket } from 'node:net';
import { cardPaymentRequestSchema, type CardPaymentRequest } from '../../../shared/adapters/providers/dlocal/dlocal.card-schemas';
import type { PaymentStatus } from '../../../shared/adapters/providers/dlocal/dlocal.schemas';
import { signatureOf } from '../../../shared/adapters/providers/dlocal/dlocal.signature';
import { DlocalError, PAYMENT_CODES, type DlocalState, type FakeDlocalOp } from './state';

export const FAKE_CARDS = {
  approve: '4111111111111111',
  threeDs: '4000000000002503',
  pending: '4000000000002602',
  authorized: '4000000000002701',
  decline: (code: number) => `4000000000000${code}`,
} as const;

/** A card payment as the fake holds it: the request without the card's number and CVV. */
export interface FakeCardPayment {
  readonly id: string;
  readonly request: Omit<CardPaymentRequest, 'card'> & { readonly card: Omit<CardPaymentRequest['card'], 'number' | 'cvv'> };
  readonly last4: string;
  status: PaymentStatus;
  statusCode: string;
  readonly createdDate: string;
  approvedDate?: string;
}

/** A request body as the fake logs it: a card's number reduced to its last four digits, its CVV dropped. */
export function redactCard(path: string, body: unknown): unknown {
  if (path !== '/secure_payments' || typeof body !== 'object' || body === null) return body;
  const card = (body as { card?: Record<string, unknown> }).card;
  if (typeof card !== 'object' || card === null) return body;
  const { number, cvv: _cvv, ...rest } = card;
  return { ...body, card: { ...rest, ...(typeof number === 'string' ? { number: `****${number.slice(-4)}` } : {}) } };
}

function decide(number: string): { status: PaymentStatus; statusCode: string } {
  if (number === FAKE_CARDS.threeDs) return { status: 'PENDING', statusCode: '101' };
  if (number === FAKE_CARDS.pending) return { status: 'PENDING', statusCode: '100' };
  if (number === FAKE_CARDS.authorized) return { status: 'AUTHORIZED', statusCode: '600' };
  const m = /^4000000000000(3[0-2]\d)$/.exec(number);
  if (m && Number(m[1]) <= 326) return { status: 'REJECTED', statusCode: m[1] as string };
  return { status: 'PAID', statusCode: '200' };
}

export class FakeCards {
  readonly payments = new Map<string, FakeCardPayment>();
  readonly byOrderId = new Map<string, FakeCardPayment>();
  readonly creates = new Map<string, number>();

  constructor(
    private readonly state: DlocalState,
    private readonly origin: () => string,
    private readonly credentials: { xLogin: string; secretKey: string },
    private readonly post: (url: string, object: unknown) => Promise<unknown>,
  ) {
    state.cardPayment = (id) => this.payments.get(id);
  }

  object(p: FakeCardPayment): Record<string, unknown> {
    const r = p.request;
    const threeDs = p.status === 'PENDING' && p.statusCode === '101';
    return {
      id: p.id,
      amount: r.amount,
      currency: r.currency,
      country: r.country,
      payment_method_id: 'CARD',
      payment_method_type: 'CARD',
      payment_method_flow: 'DIRECT',
      card: {
        holder_name: r.card.holder_name,
        expiration_month: r.card.expiration_month,
        expiration_year: r.card.expiration_year,
        brand: 'VI',
        last4: p.last4,
      },
      ...(threeDs ? { three_dsecure: { redirect_url: `${this.origin()}/3ds/${p.id}` } } : {}),
      created_date: p.createdDate,
      ...(p.approvedDate ? { approved_date: p.approvedDate } : {}),
      status: p.status,
      status_code: p.statusCode,
      status_detail: `The payment is ${p.status.toLowerCase()}.`,
      order_id: r.order_id,
      ...(r.notification_url ? { notification_url: r.notification_url } : {}),
      callback_url: r.callback_url,
    };
  }

  create(body: unknown): Record<string, unknown> {
    const r = this.state.check('POST /secure_payments', cardPaymentRequestSchema, body);
    this.creates.set(r.order_id, (this.creates.get(r.order_id) ?? 0) + 1);
    if (this.byOrderId.has(r.order_id)) throw new DlocalError(400, 5009, 'Order ID is duplicated.');
    const { number, cvv: _cvv, ...card } = r.card;
    const p: FakeCardPayment = {
      id: `D-4-${randomUUID()}`,
      request: { ...r, card },
      last4: number.slice(-4),
      ...decide(number),
      createdDate: new Date().toISOString(),
    };
    if (p.status === 'PAID') p.approvedDate = p.createdDate;
    this.payments.set(p.id, p);
    this.byOrderId.set(r.order_id, p);
    return this.object(p);
  }

  /** The card routes, or null for a request that is not about a card payment (the APM routes answer it). */
  route(op: FakeDlocalOp, path: string, body: unknown): [number, unknown] | null {
    const id = decodeURIComponent(path.split('/')[2] ?? '');
    switch (op) {
      case 'secure_payments':
        return [200, this.create(body)];
      case 'cancel': {
        const p = this.payments.get(id);
        if (!p) throw new DlocalError(404, 4000, 'Payment not found.');
        if (p.status !== 'AUTHORIZED' && p.status !== 'PENDING') throw new DlocalError(400, 5002, 'Invalid transaction status.');
        this.setStatus(p.request.order_id, 'CANCELLED');
        return [200, this.object(p)];
      }
      case 'payment': {
        const p = this.payments.get(id);
        return p ? [200, this.object(p)] : null;
      }
      case 'order': {
        const p = this.byOrderId.get(id);
        if (!p) return null;
        return [
          200,
          {
            order_id: id,
            payment_id: p.id,
            currency: p.request.currency,
            amount: p.request.amount,
            status: p.status,
            status_code: p.statusCode,
          },
        ];
      }
      default:
        return null;
    }
  }

  setStatus(orderId: string, status: PaymentStatus, statusCode = PAYMENT_CODES[status]): FakeCardPayment {
    const p = this.byOrderId.get(orderId);
    if (!p) throw new Error(`fake dLocal: no card payment for ${orderId}`);
    p.status = status;
    p.statusCode = statusCode;
    if (status === 'PAID') p.approvedDate = new Date().toISOString();
    return p;
  }

  /** Posts the card payment object to its notification_url, signed as dLocal signs (no URL: nothing is sent). */
  async notify(orderId: string): Promise<unknown> {
    const p = this.byOrderId.get(orderId);
    if (!p) throw new Error(`fake dLocal: no card payment for ${orderId}`);
    return p.request.notification_url ? this.post(p.request.notification_url, this.object(p)) : null;
  }

  /** The issuer's 3-D Secure page behind redirect_url: Authenticate or Fail, then back to the callback_url. */
  async threeDsPage(req: IncomingMessage, res: ServerResponse, id: string, text: string): Promise<void> {
    const p = this.payments.get(id);
    if (!p || p.status !== 'PENDING' || p.statusCode !== '101') {
      res.writeHead(404, { 'content-type': 'text/plain' });
      return void res.end('no payment awaiting 3-D Secure');
    }
    if (req.method !== 'POST') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      return void res.end(
        '<!doctype html><html lang="en"><title>Fake 3-D Secure</title><link rel="icon" href="data:,">' +
          `<h1>${p.request.amount} ${p.request.currency} ****${p.last4}</h1><form method="post">` +
          '<button name="outcome" value="PAID">Authenticate</button> <button name="outcome" value="REJECTED">Fail</button></form>',
      );
    }
    const paid = new URLSearchParams(text).get('outcome') === 'PAID';
    this.setStatus(p.request.order_id, paid ? 'PAID' : 'REJECTED', paid ? '200' : '300');
    await this.notify(p.request.order_id).catch(() => undefined);
    const status = paid ? 'APPROVED' : 'REJECTED';
    const date = new Date().toISOString();
    const signature = signatureOf(this.credentials.secretKey, this.credentials.xLogin, date, `{status:${status},paymentId:${p.id}}`);
    const attr = (v: string) => v.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
    const field = (name: string, value: string) => `<input type="hidden" name="${name}" value="${attr(value)}">`;
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(
      `<!doctype html><html><body onload="document.forms[0].submit()"><form method="post" action="${attr(p.request.callback_url)}">` +
        `${field('paymentId', p.id)}${field('status', status)}${field('date', date)}${field('signature', signature)}</form></body></html>`,
    );
  }
}

/**
 * Connections refused on demand: `reset` destroys each new connection before a byte is read or written (the client
 * sees a reset before its request left), `closed` stops listening (the client's connect is refused); null serves
 * again (on the same port). Either drops the kept-alive connections first (and gives their clients a moment to see it),
 * so no call slips through on one.
 */
export function connectionGate(server: Server, sockets: Set<Socket>, port: () => number) {
  let mode: 'reset' | 'closed' | null = null;
  server.on('connection', (s: Socket) => {
    if (mode === 'reset') s.destroy();
  });
  return async (next: 'reset' | 'closed' | null): Promise<void> => {
    if (next && sockets.size) {
      for (const s of sockets) s.destroy();
      await new Promise((r) => setTimeout(r, 50)); // the clients see their kept-alive connections end
    }
    if (next === 'closed' && mode !== 'closed') await new Promise<void>((r) => server.close(() => r()));
    if (next !== 'closed' && mode === 'closed') await new Promise<void>((r) => server.listen(port(), '127.0.0.1', r));
    mode = next;
  };
}
