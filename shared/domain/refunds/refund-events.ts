/** Refund event items: refund.created / succeeded / failed, with the payment's refunded amount after the change. */
import type { DomainEvent } from '../events';
import { fromMinor } from '../money';
import type { Payment } from '../payments/payment';
import type { Refund } from './refund';

export function refundEvent(type: string, r: Refund, payment: Pick<Payment, 'refunded_minor'>, eventId: string, at: string): DomainEvent {
  return {
    event_id: eventId,
    type,
    merchant_id: r.merchant_id,
    livemode: r.livemode,
    object_id: r.refund_id,
    notification_url: r.notification_url,
    created_at: at,
    payload: {
      event: type,
      event_id: eventId,
      refund_id: r.refund_id,
      payment_id: r.payment_id,
      merchant_id: r.merchant_id,
      reference_id: r.reference_id,
      status: r.status,
      amount: fromMinor(r.amount_minor, r.currency),
      currency: r.currency,
      reason: r.reason,
      refunded_amount: fromMinor(payment.refunded_minor ?? 0, r.currency),
      ...(r.failure_reason ? { failure_reason: r.failure_reason } : {}),
      completed_at: r.completed_at,
      timestamp: at,
      created_at: at,
      livemode: r.livemode,
      metadata: r.metadata,
    },
  };
}
