/** Payout event items: SPEC.md 6.2 payloads plus event_id, created_at, livemode. */
import type { DomainEvent } from '../events';
import { fromMinor } from '../money';
import type { Payout } from './payout';

export function payoutEvent(type: string, p: Payout, eventId: string, at: string): DomainEvent {
  return {
    event_id: eventId,
    type,
    merchant_id: p.merchant_id,
    livemode: p.livemode,
    object_id: p.payout_id,
    notification_url: p.notification_url,
    created_at: at,
    payload: {
      event: type,
      event_id: eventId,
      payout_id: p.payout_id,
      merchant_id: p.merchant_id,
      status: p.status,
      amount: fromMinor(p.amount_minor, p.currency),
      currency: p.currency,
      method_code: p.method_code,
      beneficiary_name: p.beneficiary.name,
      completed_at: p.completed_at,
      ...(p.failure_reason ? { failure_reason: p.failure_reason } : {}),
      timestamp: at,
      created_at: at,
      livemode: p.livemode,
      metadata: p.metadata,
    },
  };
}
