/** The webhook bodies (shared/domain/events.ts, payout-events.ts, refund-events.ts) as published under `webhooks:`. */
import * as z from 'zod';
import { PAYOUT_STATUSES } from '../../domain/payouts/payout';
import { REFUND_REASONS, REFUND_STATUSES } from '../../domain/refunds/refund';
import { SESSION_STATUSES } from '../../domain/payments/session';
import { paymentDispute, paymentMethod, paymentStatus, providerAttempts } from './payment.schemas';
import { disputeResource } from './dispute.schemas';
import { mandateResource } from './mandate.schemas';
import {
  amount,
  currency,
  eventId,
  livemode,
  merchantId,
  metadata,
  paymentId,
  payoutId,
  refundId,
  sessionId,
  timestamp,
} from './wire.schemas';

const envelope = (type: string) => ({
  event: z.literal(type),
  event_id: eventId,
  merchant_id: merchantId,
  timestamp,
  created_at: timestamp,
  livemode,
  metadata,
});

export const paymentEventBody = (type: string) =>
  z.object({
    ...envelope(type),
    payment_id: paymentId,
    checkout_session_id: sessionId.nullable(),
    reference_id: z.string().nullable(),
    status: paymentStatus,
    amount,
    currency,
    payment_method: paymentMethod,
    paid_at: timestamp.nullable(),
    refunded_amount: amount,
    failure_code: z.string().optional().meta({ example: 'CARD_DECLINED' }),
    failure_message: z.string().nullable().optional(),
    dispute: paymentDispute.optional(),
    provider_attempts: providerAttempts.optional().meta({
      description: 'Live payments: the attempts at providers, in order (routing and failover); absent in the sandbox.',
    }),
  });

export const sessionEventBody = (type: string) =>
  z.object({
    ...envelope(type),
    checkout_session_id: sessionId,
    reference_id: z.string().nullable(),
    status: z.enum(SESSION_STATUSES),
    amount,
    currency,
  });

export const payoutEventBody = (type: string) =>
  z.object({
    ...envelope(type),
    payout_id: payoutId,
    status: z.enum(PAYOUT_STATUSES),
    amount,
    currency,
    method_code: z.string(),
    beneficiary_name: z.string(),
    completed_at: timestamp.nullable(),
    failure_reason: z.string().optional(),
  });

export const refundEventBody = (type: string) =>
  z.object({
    ...envelope(type),
    refund_id: refundId,
    payment_id: paymentId,
    reference_id: z.string().nullable(),
    status: z.enum(REFUND_STATUSES),
    amount,
    currency,
    reason: z.enum(REFUND_REASONS),
    refunded_amount: amount,
    failure_reason: z.string().optional(),
    completed_at: timestamp.nullable(),
  });

/** mandate.approved, .rejected, .cancelled, .expired (DESIGN.md 9.3): the mandate as its resource shows it. */
export const mandateEventBody = (type: string) =>
  z.object({
    ...envelope(type),
    ...mandateResource.omit({
      success: true,
      livemode: true,
      metadata: true,
      customer: true,
      payer: true,
      approval: true,
      approval_expires_at: true,
      success_url: true,
      cancel_url: true,
      charges_count: true,
      created_at: true,
      updated_at: true,
    }).shape,
  });

/** dispute.created, .updated, .won, .lost, .evidence_due_soon (DESIGN.md 9.4): the dispute as its resource shows it. */
export const disputeEventBody = (type: string) =>
  z.object({
    ...envelope(type),
    ...disputeResource.omit({ success: true, defense_reasons: true }).shape,
  });
