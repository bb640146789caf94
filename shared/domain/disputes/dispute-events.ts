/** Dispute event items (DESIGN.md 9.4): dispute.created, .updated, .won, .lost, .evidence_due_soon. */
import type { DomainEvent } from '../events';
import { fromMinor } from '../money';
import type { DisputeCase } from './dispute-case';

/** The dispute as its events and its resource show it: amounts in major units, documents by type and size only. */
export function disputeCaseFields(d: DisputeCase) {
  return {
    dispute_id: d.dispute_id,
    payment_id: d.payment_id,
    kind: d.kind,
    status: d.status,
    reason: d.reason,
    provider_reason_code: d.provider_reason_code,
    amount: fromMinor(d.amount_minor, d.currency),
    currency: d.currency,
    funds_withdrawn: d.funds_withdrawn ?? false,
    evidence_due_by: d.evidence_due_by,
    evidence: d.evidence
      ? {
          defense_reason: d.evidence.defense_reason,
          text: d.evidence.text,
          documents: d.evidence.documents.map((x) => ({ type: x.type, mime: x.mime, size_bytes: x.size_bytes })),
          staged_at: d.evidence.staged_at,
        }
      : null,
    submitted_at: d.submitted_at,
    accepted_at: d.accepted_at,
    last_error: d.last_error ? { code: d.last_error.code, message: d.last_error.message, at: d.last_error.at } : null,
    created_at: d.created_at,
    updated_at: d.updated_at,
    closed_at: d.closed_at,
    livemode: d.livemode,
    metadata: d.metadata,
  };
}

export function disputeCaseEvent(type: string, d: DisputeCase, eventId: string, at: string): DomainEvent {
  return {
    event_id: eventId,
    type,
    merchant_id: d.merchant_id,
    livemode: d.livemode,
    object_id: d.dispute_id,
    notification_url: d.notification_url,
    created_at: at,
    payload: { event: type, event_id: eventId, merchant_id: d.merchant_id, ...disputeCaseFields(d), timestamp: at, created_at: at },
  };
}
