/** How events look in the events API (GET /api/v1/events, /{id}, POST /{id}/resend). */
import type { EventPage, StoredEvent } from '../../application/webhooks';

export function eventSummary(e: StoredEvent, withPayload: boolean) {
  return {
    event_id: e.event_id,
    type: e.type,
    object_id: e.object_id,
    livemode: e.livemode,
    created_at: e.created_at,
    delivery_status: e.delivery_status,
    delivered_at: e.delivered_at ?? null,
    attempt_count: e.attempts?.length ?? 0,
    notification_url: e.notification_url,
    ...(withPayload ? { payload: e.payload, attempts: e.attempts ?? [] } : {}),
  };
}

export const eventView = (e: StoredEvent) => ({ success: true, ...eventSummary(e, true) });

export const eventListView = (page: EventPage) => ({
  success: true,
  data: page.items.map((e) => eventSummary(e, false)),
  has_more: page.nextCursor !== null,
  next_cursor: page.nextCursor,
});

export const resentEventView = (e: StoredEvent) => ({
  success: true,
  event_id: e.event_id,
  status: 'queued',
  message: 'The event will be delivered again.',
});
