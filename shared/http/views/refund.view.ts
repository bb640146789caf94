/** How refunds look on the wire. */
import { fromMinor } from '../../domain/money';
import type { Payment } from '../../domain/payments/payment';
import type { Refund } from '../../domain/refunds/refund';

export function refundRecord(r: Refund) {
  return {
    refund_id: r.refund_id,
    payment_id: r.payment_id,
    status: r.status,
    amount: fromMinor(r.amount_minor, r.currency),
    currency: r.currency,
    reason: r.reason,
    beneficiary: r.beneficiary,
    failure_reason: r.failure_reason,
    reference_id: r.reference_id,
    metadata: r.metadata,
    created_at: r.created_at,
    completed_at: r.completed_at,
  };
}

/** POST /api/v1/payments/{payment_id}/refunds and GET /api/v1/refunds/{refund_id}. */
export const refundView = (r: Refund) => ({ success: true, ...refundRecord(r) });

/** GET /api/v1/payments/{payment_id}/refunds: the refunds and what they add up to. */
export const paymentRefundsView = ({ payment, refunds }: { payment: Payment; refunds: readonly Refund[] }) => ({
  success: true,
  payment_id: payment.payment_id,
  payment_status: payment.status,
  amount: fromMinor(payment.amount_minor, payment.currency),
  refunded_amount: refundedAmount(payment),
  currency: payment.currency,
  data: refunds.map(refundRecord),
});

/** Refunds pending or succeeded, in major units (0 before the first). */
export const refundedAmount = (p: Pick<Payment, 'refunded_minor' | 'currency'>) => fromMinor(p.refunded_minor ?? 0, p.currency);
