/**
 * Refunds of Binance Pay orders (api-order-refund, api-order-refund-query), idempotent by our refund id: the
 * request carries our refundRequestId (derived from the refund id), and Binance answers a repeated one with the
 * same refund (duplicateRequest "Y"), so a send whose answer was lost is one refund. The order was paid in USDT at
 * Binance's quote: a refund of `amountMinor` of the payment's `paymentAmountMinor` (its own currency) is the paid
 * USDT in that proportion, rounded down to 8 places; a full refund is exactly what was paid. The paid USDT is read
 * from the order (its orderAmount), never from us. Note (api-order-refund): when remainingAttempts reaches 1,
 * Binance ignores the next request's amount and refunds all that remains; an answer refunding another amount than
 * asked pages (ProviderAmountMismatch) and is logged for an operator: the merchant was debited only what it asked.
 * refundStatus REFUND_PENDING stays pending; REFUND_SUCCESS succeeded; REFUND_FAIL / REFUND_REJECTED failed.
 */
import { type LocalRefundConnector, type ProviderRefundState, ProviderRejected, ProviderUnavailable } from '../../../application/providers';
import { logger } from '../../../observability';
import { recordProviderAmountMismatch } from '../../../observability/provider-metrics';
import type { BinancePayClient } from './binance-pay.client';
import { queryOrderAnswerSchema, refundAnswerSchema, type RefundAnswer } from './binance-pay.schemas';
import {
  BINANCE_PAY,
  decimalOf,
  ORDER_NOT_FOUND,
  refundRequestIdOf,
  refundUnits,
  refusalCodeOf,
  unitsOf,
} from './binance-pay.transformers';

export function refundStateOf(
  refundId: string,
  r: Pick<RefundAnswer, 'refundStatus'>,
  now: () => Date = () => new Date(),
): ProviderRefundState {
  switch (r.refundStatus) {
    case 'REFUND_SUCCESS':
      return { refundId, kind: 'succeeded', at: now().toISOString() };
    case 'REFUND_FAIL':
    case 'REFUND_REJECTED':
      return { refundId, kind: 'failed', reason: 'rejected_by_provider' };
    default: // REFUND_PENDING, or the refund answer (which carries no status)
      return { refundId, kind: 'pending' };
  }
}

function rejected(op: string, code: string, status: number): ProviderRejected {
  const ours = refusalCodeOf(code);
  logger.warn('Binance Pay refused a call', { provider: BINANCE_PAY, operation: op, status, binance_code: code, code: ours });
  return new ProviderRejected(BINANCE_PAY, op, ours, status);
}

export function binancePayRefunds(client: BinancePayClient): LocalRefundConnector {
  return {
    provider: { name: BINANCE_PAY, reference: refundRequestIdOf },
    async get({ providerPaymentId, refundId }) {
      const refundRequestId = refundRequestIdOf(refundId);
      const a = await client.call('refund', { refundRequestId }, refundAnswerSchema);
      if ('refused' in a) {
        // Only "not found" says it was never sent; any other refusal cannot tell, so nothing is sent.
        if (a.refused.code === ORDER_NOT_FOUND) return null;
        throw new ProviderUnavailable(BINANCE_PAY, 'refund', `Binance Pay refused the refund query (code ${a.refused.code})`);
      }
      if (a.ok.refundRequestId !== refundRequestId || a.ok.prepayId !== providerPaymentId)
        throw new ProviderUnavailable(BINANCE_PAY, 'refund', 'Binance Pay answered another refund');
      return refundStateOf(refundId, a.ok);
    },
    async send({ providerPaymentId, refundId, amountMinor, paymentAmountMinor, notificationUrl }) {
      if (paymentAmountMinor === undefined) throw new ProviderRejected(BINANCE_PAY, 'refunds', 'payment_amount_required', 0);
      const order = await client.call('order', { prepayId: providerPaymentId }, queryOrderAnswerSchema);
      if ('refused' in order) {
        if (order.refused.code === ORDER_NOT_FOUND) throw rejected('refunds', order.refused.code, order.refused.status);
        throw new ProviderUnavailable(BINANCE_PAY, 'refunds', `Binance Pay refused the order query (code ${order.refused.code})`);
      }
      if (order.ok.prepayId !== providerPaymentId)
        throw new ProviderUnavailable(BINANCE_PAY, 'refunds', 'Binance Pay answered another order');
      const units = refundUnits(unitsOf(order.ok.orderAmount), amountMinor, paymentAmountMinor);
      if (units <= 0n) throw new ProviderRejected(BINANCE_PAY, 'refunds', 'amount_too_small', 0);
      const refundRequestId = refundRequestIdOf(refundId);
      const a = await client.call(
        'refunds',
        {
          refundRequestId,
          prepayId: providerPaymentId,
          refundAmount: Number(decimalOf(units)),
          ...(notificationUrl.length <= 256 ? { webhookUrl: notificationUrl } : {}),
        },
        refundAnswerSchema,
      );
      if ('refused' in a) throw rejected('refunds', a.refused.code, a.refused.status);
      if (a.ok.refundRequestId !== refundRequestId || a.ok.prepayId !== providerPaymentId)
        throw new ProviderUnavailable(BINANCE_PAY, 'refunds', 'Binance Pay answered another refund');
      if (unitsOf(a.ok.refundAmount) !== units) {
        // The order's last refund attempt refunds all that remains (api-order-refund): the shopper got more back than
        // this refund debits the merchant. Money the service did not settle: it pages, and an operator decides.
        recordProviderAmountMismatch(BINANCE_PAY);
        logger.error('Binance Pay refunded another amount than asked: the difference is not debited, an operator decides', {
          provider: BINANCE_PAY,
          refund_id: refundId,
          page: true,
        });
      }
      return refundStateOf(refundId, a.ok);
    },
  };
}
