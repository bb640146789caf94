/** Every event type and its webhook body, for the `webhooks:` section and the contract tests. */
import type { ZodType } from 'zod';
import { DISPUTE_EVENTS } from '../domain/payments/dispute';
import { PAYMENT_EVENT } from '../domain/payments/payment';
import { SESSION_EVENT } from '../domain/payments/session';
import { PAYOUT_EVENT } from '../domain/payouts/payout';
import { REFUND_EVENT } from '../domain/refunds/refund';
import {
  disputeEventBody,
  mandateEventBody,
  paymentEventBody,
  payoutEventBody,
  refundEventBody,
  sessionEventBody,
} from '../http/views/webhook.schemas';
import { MANDATE_EVENT } from '../domain/mandates/mandate';
import { DISPUTE_CASE_EVENTS } from '../domain/disputes/dispute-case';

export interface WebhookContract {
  readonly type: string;
  readonly summary: string;
  readonly body: ZodType;
  /** The hex signature header (SPEC.md 6.1 / 6.2). */
  readonly hexHeader: 'X-Signature' | 'X-Webhook-Signature';
}

const SUMMARIES: Readonly<Record<string, string>> = {
  'payment.pending_3ds': 'A card payment waits for the shopper’s 3-D Secure challenge.',
  'payment.success': 'The payment completed; the amount is in your balance.',
  'payment.failed': 'The payment failed (failure_code says why).',
  'payment.expired': 'The shopper did not pay in time.',
  'payment.cancelled': 'The payment was cancelled with its checkout session.',
  'payment.refunded': 'Refunds reached the payment’s amount.',
  'payment.disputed':
    'The payment is disputed (`dispute.kind`). A card chargeback: the disputed amount left your balance (a chargeback entry). ' +
    'A PIX infraction (fraud_return, MED): the payer’s bank reported fraud; `dispute.reason_code` and `dispute.deadline` say ' +
    'what and until when; nothing leaves your balance yet.',
  'payment.dispute_won':
    'The dispute is won. A chargeback reversed: the amount is back in your balance (a chargeback_reversal entry). ' +
    'A PIX infraction closed without a return: nothing moved.',
  'payment.dispute_lost':
    'The dispute is lost, final: the amount stays with the shopper. A PIX fraud return (MED): the returned amount ' +
    '(`dispute.amount`) left your balance now (a pix_fraud_return entry), which may go below zero.',
  'checkout.session.cancelled': 'You cancelled the checkout session.',
  'checkout.session.expired': 'The checkout session expired unpaid.',
  'payout.processing': 'The payout left for the beneficiary’s bank.',
  'payout.completed': 'The beneficiary received the money.',
  'payout.failed': 'The payout failed; the amount is back in your balance.',
  'payout.refunded': 'The beneficiary bank returned the payout; the amount is back in your balance.',
  'payout.cancelled': 'You cancelled the payout; the amount is back in your balance.',
  'refund.created': 'A refund was accepted; your balance was debited.',
  'refund.succeeded': 'The refund reached the shopper.',
  'refund.failed': 'The refund failed; the amount is back in your balance.',
  'mandate.approved': 'The payer approved the mandate: it is active and can be charged (POST /api/v1/mandates/{id}/charges).',
  'mandate.rejected': 'The payer (or their bank) refused the mandate; failure_code says why.',
  'mandate.cancelled': 'The mandate ended: cancelled_by says whether you, the payer (in the bank app) or the provider ended it.',
  'mandate.expired': 'The payer did not approve before approval_expires_at, or the mandate reached its end at the provider.',
  'dispute.created':
    'A dispute opened on one of your payments (a card chargeback or a PIX MED infraction): see evidence_due_by, then send ' +
    'evidence (POST /api/v1/disputes/{id}/evidence and /submit) or accept it.',
  'dispute.updated':
    'The dispute changed: its status (under_review, accepted), funds_withdrawn (a chargeback debited your balance after it was ' +
    'announced), amount, deadline, or a refused submission (last_error).',
  'dispute.won': 'The dispute was decided for you: the disputed amount is back in your balance (a card chargeback reversed).',
  'dispute.lost': 'The dispute was decided for the payer, final: the disputed amount stays with them.',
  'dispute.evidence_due_soon': 'The evidence deadline is 48 hours away and nothing was submitted.',
};

const values = (m: Readonly<Record<string, string | undefined>>) => Object.values(m).filter((v): v is string => v !== undefined);

const entry = (type: string, body: (t: string) => ZodType): WebhookContract => ({
  type,
  summary: SUMMARIES[type] ?? type,
  body: body(type),
  hexHeader: type.startsWith('payout.') ? 'X-Webhook-Signature' : 'X-Signature',
});

export const WEBHOOK_CONTRACTS: readonly WebhookContract[] = [
  ...values(PAYMENT_EVENT).map((t) => entry(t, paymentEventBody)),
  ...DISPUTE_EVENTS.map((t) => entry(t, paymentEventBody)),
  ...values(SESSION_EVENT).map((t) => entry(t, sessionEventBody)),
  ...values(PAYOUT_EVENT).map((t) => entry(t, payoutEventBody)),
  ...values(REFUND_EVENT).map((t) => entry(t, refundEventBody)),
  ...values(MANDATE_EVENT).map((t) => entry(t, mandateEventBody)),
  ...DISPUTE_CASE_EVENTS.map((t) => entry(t, disputeEventBody)),
];
