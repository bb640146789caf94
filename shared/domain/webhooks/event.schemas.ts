/** zod schemas of the events API. */
import * as z from 'zod';

export const eventPath = z.object({ event_id: z.string().regex(/^evt_[A-Za-z0-9_-]{22,64}$/, 'must be an event id (evt_...)') });

export const listEventsQuery = z.object({
  type: z
    .string()
    .regex(/^[a-z][a-z0-9_]*(\.[a-z0-9_]+)+$/, 'must be an event type such as payment.success')
    .max(60)
    .meta({ example: 'payment.success' })
    .optional(),
  object_id: z
    .string()
    .regex(/^(pi|po|cs|re)_[A-Za-z0-9_-]{22,64}$/, 'must be a pi_, po_, cs_ or re_ id')
    .meta({ example: 'pi_A1b2C3d4E5f6G7h8I9j0Kl' })
    .optional(),
  delivery_status: z.enum(['pending', 'delivered', 'retrying', 'gone', 'dead_lettered', 'no_endpoint']).optional(),
  limit: z.coerce.number().int().min(1).max(100).default(20),
  cursor: z.string().max(2048).optional(),
});
