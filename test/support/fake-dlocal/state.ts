/**
 * What the fake dLocal holds and how it answers, apart from HTTP: payments by id and by order_id, refunds,
 * payouts by id and by external_id, OAuth tokens with their expiry, scripted answers and faults. Every request
 * body is checked against OUR schemas of dLocal's API; a mismatch is answered as dLocal answers (400 with a code)
 * and recorded in `violations`, which the tests assert empty.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import * as z from '../../../shared/domain/zod';
import {
  createPaymentRequestSchema,
  createPayoutRequestSchema,
  createRefundRequestSchema,
  tokenRequestSchema,
  type CreatePaymentRequest,
  type CreatePayoutRequest,
  type PaymentStatus,
  type PayoutStatus,
} from '../../../shared/adapters/providers/dlocal/dlocal.schemas';
import type { PixPayoutRequest } from '../../../shared/adapters/providers/dlocal/dlocal.pix-schemas';
import type { PixPayinRequest } from '../../../shared/adapters/providers/dlocal/dlocal.pix-payin-schemas';

export type FakeDlocalOp =
  | 'payments'
  | 'secure_payments'
  | 'payment'
  | 'order'
  | 'cancel'
  | 'refunds'
  | 'refund'
  | 'token'
  | 'payouts'
  | 'payout'
  | 'methods'
  | 'chargeback';
/** A status answered instead; no answer at all; or the request done and its answer lost. */
/** A status (with dLocal's numeric `code` for a refusal, e.g. 514 insufficient funds), no answer, or a lost answer. */
/** A scripted failure: an error status, no answer, the work done but its answer lost (hung or dropped), or a slow answer. */
export type Fault = { status: number; code?: number } | { hang: true } | { hangAfter: true } | { dropAfter: true } | { delayMs: number };

/** How the next payment create answers (default: PENDING with its ticket or redirect). */
export type PaymentScript = { status: 'REJECTED'; statusCode: string } | { refuse: number; httpStatus?: number };

export interface FakePayment {
  readonly id: string;
  /** A local payment's request, or a Brazilian Pix pay-in's (pix-payins.ts). */
  readonly request: CreatePaymentRequest | PixPayinRequest;
  status: PaymentStatus;
  statusCode: string;
  readonly createdDate: string;
  /** A ticket's due date, fixed when the ticket is issued. */
  readonly expirationDate: string;
  /** A QR's expiry (Bre-B), fixed when the QR is issued. */
  readonly qrExpirationDate: string;
  approvedDate?: string;
  /** What dLocal reports as paid, when it is not the amount asked for (the payer paid another amount). */
  paidAmount?: number;
}

export interface FakePayout {
  readonly id: string;
  /** A bank payout's request, or a Brazilian PIX payout's (pix-payouts.ts). */
  readonly request: CreatePayoutRequest | PixPayoutRequest;
  status: PayoutStatus;
  statusCode: string;
  reason?: string;
  readonly createdDate: string;
  lastUpdated: string;
}

export interface FakeRefund {
  readonly id: string;
  readonly paymentId: string;
  readonly amount: number;
  readonly currency: string;
  /**
   * Our order_refund_id, echoed in the refund object as it was sent (reference/the-refund-object does not list it:
   * what dLocal's sandbox echoes is to confirm; our read-back refuses to guess when a refund lacks it).
   * Absent for a refund made outside the API (dLocal's dashboard).
   */
  readonly orderRefundId?: string;
  readonly notificationUrl: string;
  status: 'PENDING' | 'SUCCESS' | 'REJECTED' | 'CANCELLED';
}

export class DlocalError extends Error {
  constructor(
    readonly status: number,
    readonly code: number,
    message: string,
    readonly param?: string,
  ) {
    super(message);
  }
  body() {
    return { code: this.code, message: this.message, ...(this.param ? { param: this.param } : {}) };
  }
}

export const PAYMENT_CODES: Readonly<Record<PaymentStatus, string>> = {
  PENDING: '100',
  PAID: '200',
  REJECTED: '300',
  CANCELLED: '400',
  EXPIRED: '500',
  AUTHORIZED: '600',
  VERIFIED: '700',
};
export const PAYOUT_CODES: Readonly<Record<PayoutStatus, string>> = {
  PENDING: '100',
  PAID: '200',
  REJECTED: '300',
  CANCELLED: '400',
  DELIVERED: '500',
  ON_HOLD: '600',
  ON_HOLD_BY_COMPLIANCE: '700',
};
const REFUND_CODES = { PENDING: '100', SUCCESS: '200', REJECTED: '300', CANCELLED: '400' } as const;

/**
 * The methods the fake serves, as the country pages list them (see LIVE_METHODS in dlocal.transformers.ts for the
 * sources): country, currency, payment_method_type, allowed flows, and what a DIRECT answer carries (a cash ticket or
 * a QR). A payment with another id, country, currency or flow is a violation answered as dLocal answers an unknown
 * method (400, 5010 "Payment method not available"). None of these pages asks for a request field beyond the
 * payer's name, email and document.
 */
interface FakeMethod {
  readonly currency: string;
  readonly type: 'TICKET' | 'BANK_TRANSFER' | 'WALLET';
  readonly flows: ReadonlyArray<'DIRECT' | 'REDIRECT'>;
  readonly direct?: 'ticket' | 'qr' | 'pix';
}
export const FAKE_METHODS: Readonly<Record<string, FakeMethod>> = {
  'PE:EF': { currency: 'PEN', type: 'TICKET', flows: ['DIRECT', 'REDIRECT'], direct: 'ticket' },
  'PE:IO': { currency: 'PEN', type: 'BANK_TRANSFER', flows: ['REDIRECT'] },
  'PE:YP': { currency: 'PEN', type: 'WALLET', flows: ['REDIRECT'] },
  'PE:BC': { currency: 'PEN', type: 'BANK_TRANSFER', flows: ['REDIRECT'] },
  'CO:PC': { currency: 'COP', type: 'BANK_TRANSFER', flows: ['REDIRECT'] },
  'CO:QP': { currency: 'COP', type: 'WALLET', flows: ['REDIRECT'] },
  'CO:EY': { currency: 'COP', type: 'TICKET', flows: ['DIRECT', 'REDIRECT'], direct: 'ticket' },
  'CO:BQ': { currency: 'COP', type: 'BANK_TRANSFER', flows: ['DIRECT'], direct: 'qr' },
  'CL:WP': { currency: 'CLP', type: 'BANK_TRANSFER', flows: ['REDIRECT'] },
  'CL:SP': { currency: 'CLP', type: 'TICKET', flows: ['DIRECT', 'REDIRECT'], direct: 'ticket' },
  'AR:IO': { currency: 'ARS', type: 'BANK_TRANSFER', flows: ['DIRECT', 'REDIRECT'] },
  'BR:OF': { currency: 'BRL', type: 'BANK_TRANSFER', flows: ['REDIRECT'] },
  'BR:MP': { currency: 'BRL', type: 'WALLET', flows: ['REDIRECT'] },
  'BR:PP': { currency: 'BRL', type: 'WALLET', flows: ['REDIRECT'] },
  'BR:NU': { currency: 'BRL', type: 'WALLET', flows: ['REDIRECT'] },
  // Pix (docs/pix-payments): a DIRECT answer's ticket carries the BR Code (pix-payins.ts).
  'BR:PQ': { currency: 'BRL', type: 'TICKET', flows: ['DIRECT', 'REDIRECT'], direct: 'pix' },
};

/**
 * The account's methods in a country as dLocal's search answers them (GET /payments-methods?country=, "The Payment
 * Method Object": id, type, name, country, logo, allowed_flows), less those a test withheld (an account that does not
 * have them).
 */
export function methodList(country: string, withheld: ReadonlySet<string>) {
  return Object.entries(FAKE_METHODS)
    .filter(([key]) => key.startsWith(`${country}:`) && !withheld.has(key))
    .map(([key, m]) => {
      const id = key.slice(country.length + 1);
      return {
        id,
        type: m.type,
        name: `Method ${id}`,
        country: [country],
        logo: `https://fake.dlocal.test/logos/${id}.png`,
        allowed_flows: m.flows,
      };
    });
}

/** A Bre-B QR's content as an EMVCo payload (payload format 01, the order's id, the amount, CRC left as zeros). */
function emvPayload(p: Pick<FakePayment, 'id' | 'request'>): string {
  const field = (tag: string, value: string) => `${tag}${String(value.length).padStart(2, '0')}${value}`;
  const body =
    field('00', '01') +
    field('26', field('00', 'CO.COM.BREB') + field('01', p.id.slice(-25))) +
    field('53', '170') +
    field('54', String(p.request.amount)) +
    field('58', 'CO') +
    field('62', field('05', p.request.order_id.slice(0, 25)));
  return `${body}6304` + '0000';
}

export class DlocalState {
  readonly violations: string[] = [];
  readonly payments = new Map<string, FakePayment>();
  readonly byOrderId = new Map<string, FakePayment>();
  readonly refunds = new Map<string, FakeRefund>();
  readonly payouts = new Map<string, FakePayout>();
  readonly byExternalId = new Map<string, FakePayout>();
  readonly creates = new Map<string, number>();
  readonly payoutCreates = new Map<string, number>();
  readonly faults = new Map<FakeDlocalOp, Fault[]>();
  readonly scripts: PaymentScript[] = [];
  /** How the next refunds are answered at once (default PENDING). */
  readonly refundScripts: Array<FakeRefund['status']> = [];
  readonly tokens = new Map<string, number>();
  tokensIssued = 0;
  tokenLifetimeSeconds = 180;
  /** How long a Bre-B QR is payable (dLocal's page gives no figure: 10 minutes here). */
  qrLifetimeSeconds = 600;
  /** The ticket of an open DIRECT payment of a kind laid out elsewhere (pix-payins.ts's Pix). */
  readonly tickets: Partial<Record<'pix', (p: FakePayment) => Record<string, unknown>>> = {};
  /** A card payment by dLocal's id (cards.ts fills it): refunded through POST /refunds like the others. */
  cardPayment: (
    id: string,
  ) => (Pick<FakePayment, 'id' | 'status'> & { request: { amount: number; currency: string; order_id: string } }) | undefined = () =>
    undefined;

  constructor(
    readonly origin: () => string,
    readonly clientId: string,
    readonly clientSecret: string,
  ) {}

  nextFault(op: FakeDlocalOp): Fault | undefined {
    return this.faults.get(op)?.shift();
  }

  check<S extends z.ZodMiniType>(what: string, schema: S, value: unknown): z.infer<S> {
    const r = z.safeParse(schema, value);
    if (r.success) return r.data;
    const detail = r.error.issues.map((i) => `${i.path.join('.') || '(body)'}: ${i.message}`).join('; ');
    this.violations.push(`${what}: ${detail}`);
    throw new DlocalError(400, 5001, 'Invalid parameter', r.error.issues[0]?.path.join('.'));
  }

  methodOf(r: FakePayment['request']): FakeMethod {
    const m = FAKE_METHODS[`${r.country}:${r.payment_method_id}`];
    if (!m) throw new Error(`fake dLocal: no method ${r.payment_method_id} in ${r.country}`);
    return m;
  }

  paymentObject(p: FakePayment): Record<string, unknown> {
    const r = p.request;
    const m = this.methodOf(r);
    const direct = r.payment_method_flow === 'DIRECT' ? m.direct : undefined;
    const open = p.status === 'PENDING';
    const digits = p.id.replace(/\D/g, '');
    return {
      id: p.id,
      amount: p.paidAmount ?? r.amount,
      currency: r.currency,
      country: r.country,
      payment_method_id: r.payment_method_id,
      payment_method_type: m.type,
      payment_method_flow: r.payment_method_flow,
      payer: { name: r.payer.name, email: r.payer.email },
      order_id: r.order_id,
      notification_url: r.notification_url,
      created_date: p.createdDate,
      ...(p.approvedDate ? { approved_date: p.approvedDate } : {}),
      status: p.status,
      status_code: p.statusCode,
      status_detail: `The payment is ${p.status.toLowerCase()}.`,
      ...(open && r.payment_method_flow === 'REDIRECT' ? { redirect_url: `${this.origin()}/checkout/${p.id}` } : {}),
      ...(open && direct === 'ticket'
        ? {
            ticket: {
              type: 'CUSTOM',
              number: digits.slice(0, 8).padEnd(8, '7'),
              // Cash slips (Efecty, Servipag) carry a barcode; a PagoEfectivo CIP is only its number.
              ...(r.payment_method_id === 'EF' ? {} : { barcode: `7709998${digits.padEnd(22, '0').slice(0, 22)}` }),
              expiration_date: p.expirationDate,
              id: `${r.payment_method_id}-${p.id.slice(-8)}`,
              provider_name: r.payment_method_id,
              image_url: `${this.origin()}/tickets/${p.id}`,
              amount: r.amount,
              currency: r.currency,
            },
          }
        : {}),
      ...(open && direct === 'pix' && this.tickets.pix ? { ticket: this.tickets.pix(p) } : {}),
      // A Bre-B QR: its EMVCo content, its expiry and an image of it, in the DIRECT answer's ticket.
      ...(open && direct === 'qr'
        ? {
            ticket: {
              type: 'CUSTOM',
              qr_code: emvPayload(p),
              expiration_date: p.qrExpirationDate,
              id: `${r.payment_method_id}-${p.id.slice(-8)}`,
              image_url: `${this.origin()}/qr/${p.id}.png`,
              amount: r.amount,
              currency: r.currency,
            },
          }
        : {}),
    };
  }

  createPayment(body: unknown): Record<string, unknown> {
    const r = this.check('POST /payments', createPaymentRequestSchema, body);
    const m = FAKE_METHODS[`${r.country}:${r.payment_method_id}`];
    const off = !m
      ? `${r.payment_method_id} is not a method in ${r.country}`
      : m.currency !== r.currency
        ? `${r.payment_method_id} is charged in ${m.currency}, not ${r.currency}`
        : !m.flows.includes(r.payment_method_flow)
          ? `${r.payment_method_id} allows ${m.flows.join('|')}, not ${r.payment_method_flow}`
          : null;
    if (off) {
      this.violations.push(`POST /payments: ${off}`);
      throw new DlocalError(400, 5010, 'Payment method not available.', 'payment_method_id');
    }
    this.creates.set(r.order_id, (this.creates.get(r.order_id) ?? 0) + 1);
    if (this.byOrderId.has(r.order_id)) throw new DlocalError(400, 5009, 'Order ID is duplicated.');
    const script = this.scripts.shift();
    if (script && 'refuse' in script) throw new DlocalError(script.httpStatus ?? 400, script.refuse, 'Scripted refusal');
    const p: FakePayment = {
      id: `D-4-${randomUUID()}`,
      request: r,
      status: script ? script.status : 'PENDING',
      statusCode: script ? script.statusCode : '100',
      createdDate: new Date().toISOString(),
      expirationDate: new Date(Date.now() + 2 * 86_400_000).toISOString(),
      qrExpirationDate: new Date(Date.now() + this.qrLifetimeSeconds * 1000).toISOString(),
    };
    this.payments.set(p.id, p);
    this.byOrderId.set(r.order_id, p);
    return this.paymentObject(p);
  }

  order(orderId: string): Record<string, unknown> {
    const p = this.byOrderId.get(orderId);
    if (!p) throw new DlocalError(404, 4000, 'Payment not found.');
    return {
      order_id: orderId,
      payment_id: p.id,
      currency: p.request.currency,
      amount: p.request.amount,
      created_date: p.createdDate,
      ...(p.approvedDate ? { approved_date: p.approvedDate } : {}),
      status: p.status,
      status_code: p.statusCode,
      status_detail: 'detail',
    };
  }

  setStatus(orderId: string, status: PaymentStatus, statusCode = PAYMENT_CODES[status]): FakePayment {
    const p = this.byOrderId.get(orderId);
    if (!p) throw new Error(`fake dLocal: no payment for ${orderId}`);
    p.status = status;
    p.statusCode = statusCode;
    if (status === 'PAID') p.approvedDate = new Date().toISOString();
    return p;
  }

  refundObject(r: FakeRefund): Record<string, unknown> {
    return {
      id: r.id,
      payment_id: r.paymentId,
      amount: r.amount,
      currency: r.currency,
      status: r.status,
      status_code: REFUND_CODES[r.status],
      status_detail: `The refund is ${r.status.toLowerCase()}.`,
      created_date: new Date().toISOString(),
      notification_url: r.notificationUrl,
      ...(r.orderRefundId ? { order_refund_id: r.orderRefundId } : {}),
      order_id: (this.payments.get(r.paymentId) ?? this.cardPayment(r.paymentId))?.request.order_id,
    };
  }

  /** A refund made in dLocal's dashboard (no order_refund_id), SUCCESS at once. */
  dashboardRefund(orderId: string, amount: number): FakeRefund {
    const p = this.byOrderId.get(orderId);
    if (!p) throw new Error(`fake dLocal: no payment for ${orderId}`);
    const refund: FakeRefund = {
      id: `REF-${randomBytes(6).toString('hex')}`,
      paymentId: p.id,
      amount,
      currency: p.request.currency,
      notificationUrl: p.request.notification_url,
      status: 'SUCCESS',
    };
    this.refunds.set(refund.id, refund);
    return refund;
  }

  /**
   * GET /orders/{order_refund_id}: the refund dLocal holds for one of our refund references ("Retrieve an order" in
   * the Refunds section of dLocal's reference), or dLocal's 404 4000. Two refunds for one reference (a double send)
   * answer the first; the test sees both through refundsFor.
   */
  refundByOrder(orderRefundId: string): Record<string, unknown> {
    const r = [...this.refunds.values()].find((x) => x.orderRefundId === orderRefundId);
    if (!r) throw new DlocalError(404, 4000, 'Refund not found.');
    return this.refundObject(r);
  }

  createRefund(body: unknown): Record<string, unknown> {
    const r = this.check('POST /refunds', createRefundRequestSchema, body);
    const p = this.payments.get(r.payment_id) ?? this.cardPayment(r.payment_id);
    if (!p) throw new DlocalError(404, 4000, 'Payment not found.');
    if (p.status !== 'PAID') throw new DlocalError(400, 5002, 'Invalid transaction status.');
    if (r.currency !== p.request.currency) this.violations.push('POST /refunds: currency differs from the payment');
    const refunded = [...this.refunds.values()].filter((x) => x.paymentId === p.id).reduce((s, x) => s + x.amount, 0);
    if (refunded + r.amount > p.request.amount + 1e-9) throw new DlocalError(400, 5007, 'Amount exceeded.');
    const refund: FakeRefund = {
      id: `REF-${randomBytes(6).toString('hex')}`,
      paymentId: p.id,
      amount: r.amount,
      currency: r.currency,
      orderRefundId: r.order_refund_id,
      notificationUrl: r.notification_url,
      status: this.refundScripts.shift() ?? 'PENDING',
    };
    this.refunds.set(refund.id, refund);
    return this.refundObject(refund);
  }

  issueToken(body: unknown): Record<string, unknown> {
    const t = this.check('POST /oauth/token', tokenRequestSchema, body);
    if (t.client_id !== this.clientId || t.client_secret !== this.clientSecret) throw new DlocalError(401, 3001, 'Invalid Credentials.');
    const token = randomBytes(24).toString('base64url');
    this.tokens.set(token, Date.now() + this.tokenLifetimeSeconds * 1000);
    this.tokensIssued += 1;
    return { access_token: token, scope: 'payouts', expires_in: this.tokenLifetimeSeconds, token_type: 'Bearer' };
  }

  /** A bearer token it issued and that has not expired; an expired one used by us is a violation (refresh first). */
  bearerValid(header: string | undefined): boolean {
    const m = /^Bearer (\S+)$/.exec(header ?? '');
    const expiry = m ? this.tokens.get(m[1] as string) : undefined;
    if (expiry === undefined) return false;
    if (Date.now() >= expiry) {
      this.violations.push('payouts: a call with an expired token (it should have been refreshed)');
      return false;
    }
    return true;
  }

  payoutObject(p: FakePayout): Record<string, unknown> {
    const r = p.request;
    return {
      id: p.id,
      external_id: r.external_id,
      status: p.status,
      status_code: p.statusCode,
      status_detail: `The payout is ${p.status.toLowerCase()}`,
      ...(p.reason ? { status_reason: p.reason } : {}),
      created_date: p.createdDate,
      last_updated: p.lastUpdated,
      payment_method_id: r.payment_method_id,
      flow_type: r.flow_type,
      country: r.country,
      currency: r.currency,
      currency_to_pay: r.currency,
      amount: r.amount,
      purpose: r.purpose,
      on_hold: p.status === 'ON_HOLD',
      notification_url: r.notification_url,
    };
  }

  createPayout(body: unknown): Record<string, unknown> {
    const r = this.check('POST /payouts/v3', createPayoutRequestSchema, body);
    this.payoutCreates.set(r.external_id, (this.payoutCreates.get(r.external_id) ?? 0) + 1);
    if (this.byExternalId.has(r.external_id)) throw new DlocalError(400, 5011, 'External ID already used.');
    const now = new Date().toISOString();
    const p: FakePayout = {
      id: `PO-4-${randomUUID()}`,
      request: r,
      status: 'PENDING',
      statusCode: '100',
      createdDate: now,
      lastUpdated: now,
    };
    this.payouts.set(p.id, p);
    this.byExternalId.set(r.external_id, p);
    return this.payoutObject(p);
  }

  setPayoutStatus(externalId: string, status: PayoutStatus, reason?: string): FakePayout {
    const p = this.byExternalId.get(externalId);
    if (!p) throw new Error(`fake dLocal: no payout ${externalId}`);
    p.status = status;
    p.statusCode = PAYOUT_CODES[status];
    p.lastUpdated = new Date().toISOString();
    if (reason) p.reason = reason;
    return p;
  }
}
