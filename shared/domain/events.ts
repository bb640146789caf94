/**
 * Event items: the outbox written in the same transaction as each state change
 * (DESIGN.md section 5). Payloads follow SPEC.md 6.1 plus event_id, created_at, livemode.
 */
import { disputeIdOf } from './disputes/dispute-case';
import { fromMinor } from './money';
import type { Payment } from './payments/payment';
import { providerAttemptsOf } from './payments/provider-attempts';
import type { CheckoutSession } from './payments/session';

export interface DomainEvent {
  readonly event_id: string;
  readonly type: string;
  readonly merchant_id: string;
  readonly livemode: boolean;
  readonly object_id: string;
  /** Where the webhook goes: the object's notification_url, else the merchant default at delivery. */
  readonly notification_url: string | null;
  readonly payload: Record<string, unknown>;
  readonly created_at: string;
}

export function paymentEvent(
  type: string,
  p: Payment,
  session: Pick<CheckoutSession, 'reference_id' | 'order_number' | 'notification_url' | 'metadata'> | null,
  eventId: string,
  at: string,
): DomainEvent {
  const referenceId = session ? (session.order_number ?? session.reference_id) : p.reference_id;
  return {
    event_id: eventId,
    type,
    merchant_id: p.merchant_id,
    livemode: p.livemode,
    object_id: p.payment_id,
    notification_url: p.notification_url ?? session?.notification_url ?? null,
    created_at: at,
    payload: {
      event: type,
      event_id: eventId,
      payment_id: p.payment_id,
      checkout_session_id: p.checkout_session_id,
      merchant_id: p.merchant_id,
      reference_id: referenceId ?? null,
      status: p.status,
      amount: fromMinor(p.amount_minor, p.currency),
      currency: p.currency,
      payment_method: p.payment_method,
      paid_at: p.paid_at,
      refunded_amount: fromMinor(p.refunded_minor ?? 0, p.currency),
      timestamp: at,
      created_at: at,
      livemode: p.livemode,
      metadata: session ? { ...session.metadata, ...p.metadata } : p.metadata,
      ...(p.failure_code ? { failure_code: p.failure_code, failure_message: p.failure_message } : {}),
      ...(p.dispute ? { dispute: disputeFields(p) } : {}),
      ...(p.mandate_id ? { mandate_id: p.mandate_id, due_date: p.due_date ?? null } : {}),
      // Live payments: which providers were tried, and how each attempt ended (never a provider's message).
      ...(p.provider || p.ended_attempts?.length ? { provider_attempts: providerAttemptsOf(p) } : {}),
    },
  };
}

/** A disputed payment's case as merchants read it (webhooks and the status route). */
export function disputeFields(p: Payment) {
  const d = p.dispute!;
  return {
    dispute_id: disputeIdOf(p.payment_id),
    kind: d.kind ?? 'chargeback',
    status: d.status,
    amount: fromMinor(d.amount_minor, p.currency),
    currency: p.currency,
    reason_code: d.reason_code,
    deadline: d.deadline ?? null,
    opened_at: d.opened_at,
    closed_at: d.closed_at,
  };
}

export function sessionEvent(type: string, s: CheckoutSession, eventId: string, at: string): DomainEvent {
  return {
    event_id: eventId,
    type,
    merchant_id: s.merchant_id,
    livemode: s.livemode,
    object_id: s.session_id,
    notification_url: s.notification_url,
    created_at: at,
    payload: {
      event: type,
      event_id: eventId,
      checkout_session_id: s.session_id,
      merchant_id: s.merchant_id,
      reference_id: s.order_number ?? s.reference_id,
      status: s.status,
      amount: fromMinor(s.amount_minor, s.currency),
      currency: s.currency,
      timestamp: at,
      created_at: at,
      livemode: s.livemode,
      metadata: s.metadata,
    },
  };
}
