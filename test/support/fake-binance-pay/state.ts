/**
 * What the fake Binance Pay holds and how it answers, apart from HTTP: orders by merchantTradeNo and prepayId, their
 * USDT quote (a fixed scripted rate per fiat currency: the fake is the provider, so it prices), refunds by
 * refundRequestId, scripted faults. Every request body is checked against OUR schemas of Binance Pay's API; a
 * mismatch is answered as Binance answers (FAIL with a result code) and recorded in `violations`, which the tests
 * assert empty.
 */
import { randomInt } from 'node:crypto';
import * as z from '../../../shared/domain/zod';
import {
  closeOrderRequestSchema,
  createOrderRequestSchema,
  queryOrderRequestSchema,
  refundQueryRequestSchema,
  refundRequestSchema,
  type CreateOrderRequest,
  type OrderStatus,
} from '../../../shared/adapters/providers/binance-pay/binance-pay.schemas';
import { decimalOf, unitsOf } from '../../../shared/adapters/providers/binance-pay/binance-pay.transformers';

export type FakeBinanceOp = 'orders' | 'order' | 'close' | 'refunds' | 'refund' | 'certificates';
/** A scripted failure: an HTTP status, no answer, the work done and its answer lost, or a business refusal (a result code). */
export type Fault = { status: number } | { hang: true } | { hangAfter: true } | { refuse: string; httpStatus?: number };
export type RefundStatus = 'REFUND_PENDING' | 'REFUND_SUCCESS' | 'REFUND_FAIL';

export interface FakeOrder {
  readonly prepayId: string;
  readonly request: CreateOrderRequest;
  /** The USDT the order asks, in units of 1e-8 (the fake's quote of a fiat order). */
  readonly orderAmount: bigint;
  status: OrderStatus;
  readonly createTime: number;
  readonly expireTime: number;
  transactTime?: number;
  transactionId?: string;
  /** What the payer paid when it is not what was asked (units of 1e-8). */
  paidAmount?: bigint;
}

export interface FakeRefund {
  readonly refundId: string;
  readonly refundRequestId: string;
  readonly prepayId: string;
  readonly amount: bigint;
  readonly webhookUrl?: string;
  status: RefundStatus;
}

export class BinanceError extends Error {
  constructor(
    readonly httpStatus: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
  body() {
    return { status: 'FAIL', code: this.code, data: null, errorMessage: this.message };
  }
}

/** USDT per fiat unit is 1 / these: fiat units per USDT, the fake's own scripted quote. */
export const DEFAULT_RATES: Readonly<Record<string, string>> = {
  BRL: '5.37',
  MXN: '18.21',
  COP: '4012.5',
  CLP: '947',
  PEN: '3.73',
  ARS: '1183.4',
  USD: '1',
};

const digits = (n: number) => Array.from({ length: n }, () => randomInt(10)).join('');

export class BinancePayState {
  readonly violations: string[] = [];
  readonly orders = new Map<string, FakeOrder>();
  readonly byPrepayId = new Map<string, FakeOrder>();
  readonly refunds = new Map<string, FakeRefund>();
  readonly creates = new Map<string, number>();
  readonly refundSends = new Map<string, number>();
  readonly faults = new Map<FakeBinanceOp, Fault[]>();
  readonly refundScripts: RefundStatus[] = [];
  readonly rates = new Map<string, string>(Object.entries(DEFAULT_RATES));

  constructor(readonly origin: () => string) {}

  nextFault(op: FakeBinanceOp): Fault | undefined {
    return this.faults.get(op)?.shift();
  }

  check<S extends z.ZodMiniType>(what: string, schema: S, value: unknown): z.infer<S> {
    const r = z.safeParse(schema, value);
    if (r.success) return r.data;
    const detail = r.error.issues.map((i) => `${i.path.join('.') || '(body)'}: ${i.message}`).join('; ');
    this.violations.push(`${what}: ${detail}`);
    throw new BinanceError(400, '400001', 'Parameter format is wrong');
  }

  /** The order, expired once its expireTime has passed unpaid. */
  find(by: { merchantTradeNo?: string; prepayId?: string }): FakeOrder | undefined {
    const o = by.prepayId ? this.byPrepayId.get(by.prepayId) : this.orders.get(by.merchantTradeNo ?? '');
    if (o && (o.status === 'INITIAL' || o.status === 'PENDING') && Date.now() > o.expireTime) o.status = 'EXPIRED';
    return o;
  }

  must(by: { merchantTradeNo?: string; prepayId?: string }): FakeOrder {
    const o = this.find(by);
    if (!o) throw new BinanceError(400, '400202', 'Order not found');
    return o;
  }

  /** The fake's quote: the fiat amount at its scripted rate, rounded down to 8 places. */
  quote(r: CreateOrderRequest): bigint {
    if (r.currency === 'USDT' && r.orderAmount !== undefined) return unitsOf(String(r.orderAmount));
    const rate = this.rates.get(r.fiatCurrency ?? '');
    if (!rate || r.fiatAmount === undefined) throw new BinanceError(400, '400102', 'fiatCurrency not supported');
    return (unitsOf(String(r.fiatAmount)) * 10n ** 8n) / unitsOf(rate);
  }

  createOrder(body: unknown): Record<string, unknown> {
    const r = this.check('POST v3/order', createOrderRequestSchema, body);
    const priced =
      (r.orderAmount !== undefined) === (r.currency !== undefined) && (r.fiatAmount !== undefined) === (r.fiatCurrency !== undefined);
    if (!priced || (r.orderAmount === undefined) === (r.fiatAmount === undefined)) {
      this.violations.push('POST v3/order: exactly one of orderAmount+currency or fiatAmount+fiatCurrency');
      throw new BinanceError(400, '400001', 'Parameter format is wrong');
    }
    const now = Date.now();
    if (r.orderExpireTime <= now || r.orderExpireTime > now + 3_600_000 + 5_000) {
      this.violations.push('POST v3/order: orderExpireTime not within the next hour');
      throw new BinanceError(400, '400102', 'orderExpireTime out of range');
    }
    this.creates.set(r.merchantTradeNo, (this.creates.get(r.merchantTradeNo) ?? 0) + 1);
    if (this.orders.has(r.merchantTradeNo)) throw new BinanceError(400, '400201', 'merchantTradeNo is invalid or duplicated');
    const o: FakeOrder = {
      prepayId: `3${digits(18)}`,
      request: r,
      orderAmount: this.quote(r),
      status: 'INITIAL',
      createTime: now,
      expireTime: r.orderExpireTime,
    };
    this.orders.set(r.merchantTradeNo, o);
    this.byPrepayId.set(o.prepayId, o);
    const checkout = `${this.origin()}/checkout/${o.prepayId}`;
    return {
      prepayId: o.prepayId,
      terminalType: 'WEB',
      expireTime: o.expireTime,
      qrcodeLink: `${this.origin()}/qr/${o.prepayId}.jpg`,
      qrContent: `${checkout}?qr=1`,
      checkoutUrl: checkout,
      deeplink: `bnc://app.binance.com/payment/secpay?prepayId=${o.prepayId}`,
      universalUrl: `${checkout}?universal=1`,
      currency: 'USDT',
      totalFee: decimalOf(o.orderAmount),
    };
  }

  orderObject(o: FakeOrder): Record<string, unknown> {
    return {
      merchantId: 98765987,
      prepayId: o.prepayId,
      ...(o.transactionId ? { transactionId: o.transactionId } : {}),
      merchantTradeNo: o.request.merchantTradeNo,
      status: o.status,
      currency: 'USDT',
      orderAmount: decimalOf(o.orderAmount),
      openUserId: '1a2b3c',
      passThroughInfo: o.request.passThroughInfo,
      ...(o.transactTime ? { transactTime: o.transactTime } : {}),
      createTime: o.createTime,
      ...(o.transactTime
        ? {
            paymentInfo: {
              payerId: 1234567,
              payMethod: 'funding',
              paymentInstructions: [{ currency: 'USDT', amount: decimalOf(o.paidAmount ?? o.orderAmount), price: '1' }],
              channel: 'DEFAULT',
            },
          }
        : {}),
    };
  }

  queryOrder(body: unknown): Record<string, unknown> {
    const q = this.check('POST v2/order/query', queryOrderRequestSchema, body);
    return this.orderObject(this.must(q));
  }

  closeOrder(body: unknown): boolean {
    const q = this.check('POST order/close', closeOrderRequestSchema, body);
    const o = this.must(q);
    if (o.status !== 'INITIAL' && o.status !== 'PENDING') throw new BinanceError(400, '400001', 'Order status not support');
    o.status = 'CANCELED';
    return true;
  }

  /** Refund requests an order takes (Binance's remainingAttempts counts down from it); the last takes all that remains. */
  refundAttempts = 20;

  refundObject(r: FakeRefund, duplicate?: boolean): Record<string, unknown> {
    const o = this.byPrepayId.get(r.prepayId) as FakeOrder;
    const refunded = [...this.refunds.values()].filter((x) => x.prepayId === r.prepayId && x.status !== 'REFUND_FAIL');
    return {
      refundId: r.refundId,
      refundRequestId: r.refundRequestId,
      prepayId: r.prepayId,
      orderAmount: decimalOf(o.orderAmount),
      refundedAmount: decimalOf(refunded.reduce((s, x) => s + x.amount, 0n)),
      refundAmount: decimalOf(r.amount),
      remainingAttempts: this.refundAttempts - refunded.length,
      payerOpenId: 'dde730c2e0ea1f1780cf26343b98fd3b',
      ...(duplicate === undefined ? { refundStatus: r.status } : { duplicateRequest: duplicate ? 'Y' : 'N' }),
    };
  }

  refund(body: unknown): Record<string, unknown> {
    const r = this.check('POST order/refund', refundRequestSchema, body);
    this.refundSends.set(r.refundRequestId, (this.refundSends.get(r.refundRequestId) ?? 0) + 1);
    const known = this.refunds.get(r.refundRequestId);
    if (known) {
      if (known.prepayId !== r.prepayId || known.amount !== unitsOf(String(r.refundAmount)))
        this.violations.push('POST order/refund: one refundRequestId sent with another request');
      return this.refundObject(known, true);
    }
    const o = this.must({ prepayId: r.prepayId });
    if (!['PAID', 'REFUNDING', 'REFUNDED'].includes(o.status)) throw new BinanceError(400, '400001', 'Order status not support refund');
    const paid = o.paidAmount ?? o.orderAmount;
    const refunded = [...this.refunds.values()].filter((x) => x.prepayId === o.prepayId && x.status !== 'REFUND_FAIL');
    const asked = unitsOf(String(r.refundAmount));
    const before = refunded.reduce((s, x) => s + x.amount, 0n);
    if (before + asked > paid) throw new BinanceError(400, '400102', 'refundAmount exceeds');
    // api-order-refund: on the order's last remaining attempt Binance ignores the amount and refunds all that remains.
    const amount = this.refundAttempts - refunded.length <= 1 ? paid - before : asked;
    const refund: FakeRefund = {
      refundId: digits(17),
      refundRequestId: r.refundRequestId,
      prepayId: o.prepayId,
      amount,
      ...(r.webhookUrl ? { webhookUrl: r.webhookUrl } : {}),
      status: this.refundScripts.shift() ?? 'REFUND_PENDING',
    };
    this.refunds.set(refund.refundRequestId, refund);
    o.status = 'REFUNDING';
    this.settleOrder(o);
    return this.refundObject(refund, false);
  }

  /** An order's status after its refunds: REFUNDED when one succeeded, FULL_REFUNDED when all was refunded. */
  settleOrder(o: FakeOrder): void {
    const rs = [...this.refunds.values()].filter((x) => x.prepayId === o.prepayId);
    if (rs.some((x) => x.status === 'REFUND_PENDING')) return;
    const done = rs.filter((x) => x.status === 'REFUND_SUCCESS').reduce((s, x) => s + x.amount, 0n);
    o.status = done === 0n ? 'PAID' : done >= (o.paidAmount ?? o.orderAmount) ? 'FULL_REFUNDED' : 'REFUNDED';
  }

  refundQuery(body: unknown): Record<string, unknown> {
    const q = this.check('POST order/refund/query', refundQueryRequestSchema, body);
    const r = this.refunds.get(q.refundRequestId);
    if (!r) throw new BinanceError(400, '400202', 'Refund order not found');
    return this.refundObject(r);
  }

  setRefundStatus(refundRequestId: string, status: RefundStatus): FakeRefund {
    const r = this.refunds.get(refundRequestId);
    if (!r) throw new Error(`fake Binance Pay: no refund ${refundRequestId}`);
    r.status = status;
    this.settleOrder(this.byPrepayId.get(r.prepayId) as FakeOrder);
    return r;
  }
}
