/** zod schemas of the refund endpoints. */
import * as z from '../zod';
import { metadataSchema, paymentIdSchema } from '../payments/payment.schemas';
import { beneficiarySchema } from '../payouts/payout.schemas';
import { REFUND_REASONS } from './refund';

export const refundIdSchema = z.string().check(z.regex(/^re_[A-Za-z0-9_-]{22,64}$/, 'must be a refund id (re_...)'));

export const createRefundBody = z.object({
  /** Major units with the currency's decimals; default: what is left to refund. */
  amount: z.optional(z.number().check(z.positive())),
  reason: z._default(z.enum(REFUND_REASONS), 'requested_by_customer'),
  metadata: metadataSchema,
  /** Voucher-paid methods only: the account the money goes to (the payout rules of the payment's country). */
  beneficiary: z.optional(beneficiarySchema),
});
export type CreateRefundInput = z.infer<typeof createRefundBody>;

export const paymentRefundsPath = z.object({ payment_id: paymentIdSchema });
export const refundPath = z.object({ refund_id: refundIdSchema });
