/**
 * Refunds of dLocal pay-ins (POST /refunds, reference/make-a-refund), idempotent by our refund id: the request
 * carries our reference as `order_refund_id`, and before any send the refund is read back by that reference,
 * GET /orders/{order_refund_id}: dLocal's reference "Retrieve an order" in its Refunds section
 * (https://docs.dlocal.com/reference/retrieve-order-refund: "Refunds can include an order_refund_id ... Merchants can
 * retrieve refunds based on this ID", the order ID given being the refund's, not the payment's) on the orders read
 * GET /orders/{order_id} (reference/the-order-object). dLocal's own pages name no list of a payment's refunds; the
 * GET /payments/{payment_id}/refunds read used before is named only by a third-party rebuild of the reference
 * (api-evangelist's dLocal OpenAPI), so it is not used. dLocal's "Retrieve a refund" (docs/refunds,
 * GET /refunds/{refund_id}) reads by dLocal's own refund id, which a lost answer never gave us.
 * dLocal documents no idempotency on POST /refunds, so a send whose answer was lost must never be sent again
 * blindly: only dLocal's "not found" (code 4000) on our reference means never sent; any other refusal, no answer, or
 * an answer about another payment or reference leaves the refund pending, asked about again, never sent a second
 * time. Statuses: PENDING stays pending; SUCCESS succeeded; REJECTED and CANCELLED (the refund period expired) failed.
 * dLocal's texts never leave this module.
 */
import { type LocalRefundConnector, type ProviderRefundState, ProviderRejected, ProviderUnavailable } from '../../../application/providers';
import { logger } from '../../../observability';
import { DLOCAL, type DlocalClient } from './dlocal.client';
import { refundOrderSchema, refundSchema, type DlocalRefund } from './dlocal.schemas';
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
      const a = await client.payins({ op: 'refund', method: 'GET', path: `/orders/${ref}`, schema: refundOrderSchema, retry: true });
      if ('refused' in a) {
        // dLocal's "not found" for our reference: it holds no refund of ours, so none was sent.
        if (a.refused.code === 4000) return null;
        throw new ProviderUnavailable(DLOCAL, 'refund', `dLocal refused the refund read-back (${a.refused.status})`);
      }
      if (a.ok.payment_id !== providerPaymentId)
        throw new ProviderUnavailable(DLOCAL, 'refund', 'dLocal answered a refund of another payment');
      if (a.ok.order_refund_id !== undefined && a.ok.order_refund_id !== ref)
        throw new ProviderUnavailable(DLOCAL, 'refund', 'dLocal answered another refund');
      return refundStateOf(refundId, a.ok);
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
