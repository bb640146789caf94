/**
 * The Binance Pay connector (DESIGN.md section 9.1): crypto orders (svc-mt-4, USDT) the shopper pays on Binance's
 * checkout page or by scanning its QR, their read-back by our merchantTradeNo, closing, refunds
 * (binance-pay.refunds.ts) and the signed webhooks (binance-pay.notifications.ts).
 * Pricing: a fiat session is priced by Binance Pay's own quote: the order is created with fiatAmount + fiatCurrency
 * (the session's amount and currency) and Binance sets the order's USDT amount (currency USDT, totalFee /
 * orderAmount), which becomes the payment's quote; a USDT session is an order in USDT for its own amount. No rate of
 * ours is ever applied. The payment's own amount travels in passThroughInfo, which the order query returns as-is,
 * so a read-back can say "paid, for this payment's amount" without state of ours.
 * Every call is made after the application committed its intent; Binance's texts never leave this module.
 */
import type { CountryCode } from '../../../domain/geo';
import {
  type FoundLocalPayment,
  type HeldLocalPaymentConnector,
  type LocalPaymentRequest,
  type LocalPaymentState,
  type LocalRefundConnector,
  ProviderRejected,
  ProviderUnavailable,
} from '../../../application/providers';
import { logger } from '../../../observability';
import type { BinancePayConfig } from '../providers.config';
import { binancePayClient, type BinancePayClient } from './binance-pay.client';
import { binancePayNotifications, type BinancePayNotifications } from './binance-pay.notifications';
import { binancePayRefunds } from './binance-pay.refunds';
import {
  closeOrderAnswerSchema,
  createOrderAnswerSchema,
  queryOrderAnswerSchema,
  type CreateOrderAnswer,
  type CreateOrderRequest,
  type QueryOrderAnswer,
} from './binance-pay.schemas';
import {
  BINANCE_PAY,
  CRYPTO_METHOD,
  decimalOf,
  DUPLICATE_TRADE_NO,
  FIAT_CURRENCIES,
  majorOf,
  merchantTradeNoOf,
  ORDER_NOT_FOUND,
  outcomeOf,
  passThroughOf,
  refusalCodeOf,
  unitsOf,
} from './binance-pay.transformers';

export type { LocalPaymentRequest, LocalPaymentState } from '../../../application/providers';

/** Minutes an order stays payable when the configuration does not say (Binance Pay allows at most 60). */
export const DEFAULT_ORDER_EXPIRY_MINUTES = 30;
const MAX_ORDER_MS = 60 * 60_000;
/** An order payable for less than this is not worth making: the session is about to end. */
const MIN_ORDER_MS = 60_000;

/** What a close request met: accepted (Binance then reports PAY_CLOSED), no such order, or refused (paid, ...). */
export type CloseOutcome = 'accepted' | 'not_found' | 'refused';

export interface BinancePayPayments extends HeldLocalPaymentConnector {
  /**
   * Closes the order of a payment cancelled or expired here, so it can no longer be paid (api-order-close). A
   * refusal (the order was paid, or is already closed) is 'refused': read the order back to learn which.
   */
  closeOrder(paymentId: string): Promise<CloseOutcome>;
}

export interface BinancePayConnectors {
  readonly payments: BinancePayPayments;
  readonly refunds: LocalRefundConnector;
  readonly notifications: BinancePayNotifications;
  readonly client: Pick<BinancePayClient, 'close'>;
  close(): void;
}

export interface BinancePayOptions {
  readonly client?: BinancePayClient;
  readonly now?: () => number;
  /** Least time between two certificate fetches for unknown serials (default 30 s). */
  readonly certificateRefreshMs?: number;
}

function rejected(op: string, code: string, status: number): ProviderRejected {
  const ours = refusalCodeOf(code);
  logger.warn('Binance Pay refused a call', { provider: BINANCE_PAY, operation: op, status, binance_code: code, code: ours });
  return new ProviderRejected(BINANCE_PAY, op, ours, status);
}

/** An order as read back: where it stands, and its quote. The query carries no QR: only a create's answer does. */
function stateOf(order: QueryOrderAnswer, merchantTradeNo: string): FoundLocalPayment {
  return {
    providerPaymentId: order.prepayId,
    outcome: outcomeOf(order, merchantTradeNo),
    quote: { currency: order.currency, amount: decimalOf(unitsOf(order.orderAmount)) },
  };
}

/** The order's expiry: the configured minutes (at most 60), never past the session's expiresAt. */
export function orderExpiryOf(
  cfg: Pick<BinancePayConfig, 'order_expiry_minutes'>,
  req: Pick<LocalPaymentRequest, 'expiresAt' | 'createdAt'>,
  now: number,
): number {
  // Counted from when the payment was made (a retry after a lost answer sends the same request), else from now.
  const made = req.createdAt ? Date.parse(req.createdAt) : NaN;
  const from = Number.isNaN(made) ? now : made;
  let at = from + Math.min((cfg.order_expiry_minutes ?? DEFAULT_ORDER_EXPIRY_MINUTES) * 60_000, MAX_ORDER_MS);
  if (req.expiresAt) {
    const session = Date.parse(req.expiresAt);
    if (Number.isNaN(session)) throw new RangeError('expiresAt is not a date');
    at = Math.min(at, session);
  }
  return at;
}

export function createOrderRequestOf(cfg: BinancePayConfig, req: LocalPaymentRequest, now: number): CreateOrderRequest {
  const merchantTradeNo = merchantTradeNoOf(req.paymentId);
  const name = (req.merchantName ?? req.description ?? 'Payment').slice(0, 256);
  const url = (u: string) => (u.length <= 256 ? u : undefined);
  const returnUrl = url(req.returnUrl);
  const webhookUrl = url(req.notificationUrl);
  if (!webhookUrl) logger.warn('Binance Pay order sent without webhookUrl (over 256 characters)', { provider: BINANCE_PAY });
  return {
    env: { terminalType: 'WEB' },
    merchantTradeNo,
    ...(req.currency === 'USDT'
      ? { orderAmount: majorOf(req.amountMinor, 'USDT'), currency: 'USDT' as const }
      : { fiatAmount: majorOf(req.amountMinor, req.currency), fiatCurrency: req.currency as Exclude<typeof req.currency, 'USDT'> }),
    description: (req.description ?? name).slice(0, 256),
    goodsDetails: [{ goodsType: '02', goodsCategory: 'Z000', referenceGoodsId: merchantTradeNo, goodsName: name }],
    ...(returnUrl ? { returnUrl, cancelUrl: returnUrl } : {}),
    ...(webhookUrl ? { webhookUrl } : {}),
    orderExpireTime: orderExpiryOf(cfg, req, now),
    passThroughInfo: passThroughOf(req.paymentId, req.amountMinor, req.currency),
  };
}

export function binancePayConnectors(cfg: BinancePayConfig, opts: BinancePayOptions = {}): BinancePayConnectors {
  const client = opts.client ?? binancePayClient(cfg);
  const now = opts.now ?? Date.now;

  async function query(by: { merchantTradeNo: string } | { prepayId: string }): Promise<LocalPaymentState> {
    const a = await client.call('order', by, queryOrderAnswerSchema);
    if ('refused' in a) {
      if (a.refused.code === ORDER_NOT_FOUND) return { kind: 'not_found' };
      throw new ProviderUnavailable(BINANCE_PAY, 'order', `Binance Pay refused the read-back (code ${a.refused.code})`);
    }
    const o = a.ok;
    if ('merchantTradeNo' in by ? o.merchantTradeNo !== by.merchantTradeNo : o.prepayId !== by.prepayId)
      throw new ProviderUnavailable(BINANCE_PAY, 'order', 'Binance Pay answered another order');
    return stateOf(o, o.merchantTradeNo);
  }

  const get = (paymentId: string) => query({ merchantTradeNo: merchantTradeNoOf(paymentId) });

  async function quoteOf(created: CreateOrderAnswer): Promise<{ currency: string; amount: string }> {
    if (created.currency && created.totalFee !== undefined)
      return { currency: created.currency, amount: decimalOf(unitsOf(created.totalFee)) };
    // The answer did not carry the order's amount: the order itself does.
    const back = await query({ prepayId: created.prepayId });
    if (!('outcome' in back) || !back.quote) throw new ProviderUnavailable(BINANCE_PAY, 'orders', 'the order made has no quote');
    return back.quote;
  }

  const payments: BinancePayPayments = {
    provider: { name: BINANCE_PAY, reference: merchantTradeNoOf },
    flowOf: (methodCode: string, _country: CountryCode) => (methodCode === CRYPTO_METHOD ? 'qr' : null),
    async create(req) {
      if (req.methodCode !== CRYPTO_METHOD || (req.currency !== 'USDT' && !FIAT_CURRENCIES.has(req.currency)))
        throw new ProviderRejected(BINANCE_PAY, 'orders', 'method_not_available', 0);
      const at = now();
      const body = createOrderRequestOf(cfg, req, at);
      if (body.orderExpireTime - at < MIN_ORDER_MS) throw new ProviderRejected(BINANCE_PAY, 'orders', 'session_expired', 0);
      const a = await client.call('orders', body, createOrderAnswerSchema);
      if ('refused' in a) {
        if (a.refused.code === DUPLICATE_TRADE_NO) {
          // An earlier create got through (its answer was lost): the order Binance holds is this payment's.
          const back = await get(req.paymentId);
          if ('outcome' in back) return back;
          throw new ProviderUnavailable(BINANCE_PAY, 'orders', 'Binance Pay reports the merchantTradeNo as used but has no order for it');
        }
        throw rejected('orders', a.refused.code, a.refused.status);
      }
      const o = a.ok;
      const expiresAt = new Date(o.expireTime ?? body.orderExpireTime).toISOString();
      return {
        providerPaymentId: o.prepayId,
        outcome: { kind: 'pending' },
        artefact: { kind: 'qr', qrContent: o.qrContent, expiresAt, ...(o.checkoutUrl ? { checkoutUrl: o.checkoutUrl } : {}) },
        quote: await quoteOf(o),
      };
    },
    get,
    getByProviderId: (prepayId) => query({ prepayId }),
    async closeOrder(paymentId) {
      const a = await client.call('close', { merchantTradeNo: merchantTradeNoOf(paymentId) }, closeOrderAnswerSchema);
      if ('refused' in a) {
        if (a.refused.code === ORDER_NOT_FOUND) return 'not_found';
        logger.warn('Binance Pay refused to close an order', { provider: BINANCE_PAY, binance_code: a.refused.code });
        return 'refused';
      }
      return a.ok ? 'accepted' : 'refused';
    },
  };

  return {
    payments,
    refunds: binancePayRefunds(client),
    notifications: binancePayNotifications(client, {
      now,
      ...(opts.certificateRefreshMs !== undefined ? { refreshEveryMs: opts.certificateRefreshMs } : {}),
    }),
    client,
    close: () => client.close(),
  };
}
