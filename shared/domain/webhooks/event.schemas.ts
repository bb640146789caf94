/** zod schemas of the events API. */
import * as z from '../zod';

export const eventPath = z.object({
  event_id: z.string().check(z.regex(/^evt_[A-Za-z0-9_-]{22,64}$/, 'must be an event id (evt_...)')),
});

// The OpenAPI examples are attached as classic zod's `.meta()` does it: to a clone, registered in the global registry.
export const listEventsQuery = z.object({
  type: z.optional(
    z
      .string()
      .check(z.regex(/^[a-z][a-z0-9_]*(\.[a-z0-9_]+)+$/, 'must be an event type such as payment.success'), z.maxLength(60))
      .clone()
      .register(z.globalRegistry, { example: 'payment.success' }),
  ),
  object_id: z.optional(
    z
      .string()
      .check(z.regex(/^(pi|po|cs|re|md|dsp)_[A-Za-z0-9_-]{22,64}$/, 'must be a pi_, po_, cs_, re_, md_ or dsp_ id'))
      .clone()
      .register(z.globalRegistry, { example: 'pi_A1b2C3d4E5f6G7h8I9j0Kl' }),
  ),
  delivery_status: z.optional(z.enum(['pending', 'delivered', 'retrying', 'gone', 'dead_lettered', 'no_endpoint'])),
  limit: z._default(z.coerce.number().check(z.int(), z.gte(1), z.lte(100)), 20),
  cursor: z.optional(z.string().check(z.maxLength(2048))),
});
