/**
 * Refunds of dLocal pay-ins (POST /refunds, reference/make-a-refund), idempotent by our refund id: the request
 * carries our reference as `order_refund_id`, and before any send the payment's refunds are read back
 * (GET /payments/{payment_id}/refunds) and ours is looked for by that reference. dLocal documents no idempotency on
 * POST /refunds, so a send whose answer was lost must never be sent again blindly: when the read-back cannot tell
 * (no answer, no list, or a refund there that carries no order_refund_id) the refund stays pending and is asked
 * about again, never sent a second time. Statuses: PENDING stays pending; SUCCESS succeeded; REJECTED and
 * CANCELLED (the refund period expired) failed. dLocal's texts never leave this module.
 */
import { type LocalRefundConnector, type ProviderRefundState, ProviderRejected, ProviderUnavailable } from '../../../application/providers';
import { logger } from '../../../observability';
import { DLOCAL, type DlocalClient } from './dlocal.client';
import { paymentRefundsSchema, refundSchema, type DlocalRefund } from './dlocal.schemas';
import { dlocalAmount, refundReferenceOf, refusalCodeOf } from './dlocal.transformers';

/** What a dLocal refund status means for our refund. */
export function refundStateOf(refundId: string, r: Pick<DlocalRefund, 'status'>, now: () => Date = () => new Date()): ProviderRefundState {
  switch (r.status) {
    case 'SUCCESS':
      return { refundId, kind: 'succeeded', at: now().toISOString() };
    case 'PENDING':
      return { refundId, kind: 'pending' };
    case 'CANCELLED':
      return { refundId, kind: 'failed', reason: 'refund_period_expired' };
    default:
      return { refundId, kind: 'failed', reason: 'rejected_by_provider' };
  }
}

export function dlocalRefunds(client: DlocalClient): LocalRefundConnector {
  return {
    provider: { name: DLOCAL, reference: refundReferenceOf },
    async get({ providerPaymentId, refundId }) {
      const ref = refundReferenceOf(refundId);
      const a = await client.payins({
        op: 'refund',
        method: 'GET',
        path: `/payments/${encodeURIComponent(providerPaymentId)}/refunds`,
        schema: paymentRefundsSchema,
        retry: true,
      });
      // No list at all is not "never sent": we cannot tell, so nothing is sent.
      if ('refused' in a) throw new ProviderUnavailable(DLOCAL, 'refund', `dLocal refused the refunds read-back (${a.refused.status})`);
      const list = Array.isArray(a.ok) ? a.ok : a.ok.refunds;
      const ours = list.filter((r) => r.order_refund_id === ref);
      if (ours.length > 1) logger.error('dLocal holds two refunds for one of ours', { provider: DLOCAL, refund_id: refundId });
      const found = ours[0];
      if (found) return refundStateOf(refundId, found);
      if (list.some((r) => r.order_refund_id === undefined))
        throw new ProviderUnavailable(DLOCAL, 'refund', 'dLocal lists a refund without our reference: cannot tell whether ours was sent');
      return null;
    },
    async send({ providerPaymentId, refundId, amountMinor, currency, notificationUrl }) {
      const a = await client.payins({
        op: 'refunds',
        method: 'POST',
        path: '/refunds',
        schema: refundSchema,
        body: {
          payment_id: providerPaymentId,
          amount: dlocalAmount(amountMinor, currency),
          currency,
          notification_url: notificationUrl,
          order_refund_id: refundReferenceOf(refundId),
        },
      });
      if ('refused' in a) {
        const code = refusalCodeOf(a.refused.code);
        logger.warn('dLocal refused a refund', { provider: DLOCAL, status: a.refused.status, dlocal_code: a.refused.code, code });
        throw new ProviderRejected(DLOCAL, 'refunds', code, a.refused.status);
      }
      if (a.ok.payment_id !== providerPaymentId)
        throw new ProviderUnavailable(DLOCAL, 'refunds', 'dLocal answered a refund of another payment');
      return refundStateOf(refundId, a.ok);
    },
  };
}
