/** Response schemas of the events API views. */
import * as z from 'zod';
import { eventId, livemode, timestamp, url } from './wire.schemas';

const deliveryStatus = z.enum(['pending', 'delivered', 'retrying', 'gone', 'dead_lettered', 'no_endpoint']);
const eventSummary = {
  event_id: eventId,
  type: z.string().meta({ example: 'payment.success' }),
  object_id: z.string().meta({ example: 'pi_A1b2C3d4E5f6G7h8I9j0Kl' }),
  livemode,
  created_at: timestamp,
  delivery_status: deliveryStatus,
  delivered_at: timestamp.nullable(),
  attempt_count: z.number().int(),
  notification_url: url.nullable(),
};
/** GET /api/v1/events, 200. */
export const eventList = z.object({
  success: z.literal(true),
  data: z.array(z.object(eventSummary)),
  has_more: z.boolean(),
  next_cursor: z.string().nullable(),
});
/** GET /api/v1/events/{event_id}, 200: with the payload as delivered and every attempt. */
export const eventRecord = z.object({
  success: z.literal(true),
  ...eventSummary,
  payload: z.record(z.string(), z.unknown()).meta({ description: 'The webhook body (see the webhooks section).' }),
  attempts: z.array(
    z.object({
      attempt: z.number().int(),
      at: timestamp,
      url: url.nullable(),
      status: z.number().int().nullable(),
      error: z.string().nullable(),
      duration_ms: z.number(),
    }),
  ),
});
/** POST /api/v1/events/{event_id}/resend, 200. */
export const resentEvent = z.object({ success: z.literal(true), event_id: eventId, status: z.literal('queued'), message: z.string() });
