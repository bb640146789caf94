/** Mandate event items (DESIGN.md 9.3): mandate.approved, .rejected, .cancelled, .expired. */
import type { DomainEvent } from '../events';
import { fromMinor } from '../money';
import type { Mandate } from './mandate';

/** The mandate as its events and its resource show it (amounts in major units, the payer's account masked). */
export function mandateFields(m: Mandate) {
  return {
    mandate_id: m.mandate_id,
    status: m.status,
    method: m.method,
    country: m.country,
    currency: m.currency,
    description: m.description,
    frequency: m.frequency,
    amount: m.amount_minor === null ? null : fromMinor(m.amount_minor, m.currency),
    max_amount: m.max_amount_minor === null ? null : fromMinor(m.max_amount_minor, m.currency),
    start_date: m.start_date,
    end_date: m.end_date,
    retry_policy: m.retry_policy,
    card: m.card,
    reference_id: m.reference_id,
    approved_at: m.approved_at,
    ended_at: m.ended_at,
    ...(m.cancelled_by ? { cancelled_by: m.cancelled_by } : {}),
    ...(m.failure_code ? { failure_code: m.failure_code } : {}),
    livemode: m.livemode,
    metadata: m.metadata,
  };
}

export function mandateEvent(type: string, m: Mandate, eventId: string, at: string): DomainEvent {
  return {
    event_id: eventId,
    type,
    merchant_id: m.merchant_id,
    livemode: m.livemode,
    object_id: m.mandate_id,
    notification_url: m.notification_url,
    created_at: at,
    payload: { event: type, event_id: eventId, merchant_id: m.merchant_id, ...mandateFields(m), timestamp: at, created_at: at },
  };
}
