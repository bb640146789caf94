/** Response schemas of the refund views. */
import * as z from 'zod';
import { REFUND_REASONS, REFUND_STATUSES } from '../../domain/refunds/refund';
import { paymentStatus } from './payment.schemas';
import { maskedBeneficiary } from './payout.schemas';
import { amount, currency, metadata, paymentId, refundId, timestamp } from './wire.schemas';

const refundFields = {
  refund_id: refundId,
  payment_id: paymentId,
  status: z.enum(REFUND_STATUSES).meta({ example: 'pending' }),
  amount,
  currency,
  reason: z.enum(REFUND_REASONS),
  beneficiary: maskedBeneficiary.nullable(),
  failure_reason: z.string().nullable(),
  reference_id: z.string().nullable(),
  metadata,
  created_at: timestamp,
  completed_at: timestamp.nullable(),
};
export const refundRecord = z.object(refundFields).meta({ id: 'Refund' });
/** POST /api/v1/payments/{payment_id}/refunds and GET /api/v1/refunds/{refund_id}, 200. */
export const refund = z.object({ success: z.literal(true), ...refundFields });
/** GET /api/v1/payments/{payment_id}/refunds, 200. */
export const paymentRefunds = z.object({
  success: z.literal(true),
  payment_id: paymentId,
  payment_status: paymentStatus,
  amount,
  refunded_amount: amount,
  currency,
  data: z.array(refundRecord),
});
