/** What webhook dispatch and delivery need: the event store and the delivery queue. */
import * as z from '../../domain/zod';
import type { DomainEvent } from '../../domain/events';
import type { DeliveryAttempt, DeliveryStatus } from '../../domain/webhooks/retry';

/** The message on the webhooks queue: which event, which attempt, and when it may run. */
export const deliveryMessage = z.object({
  event_id: z.string().check(z.minLength(1), z.maxLength(100)),
  attempt: z.number().check(z.int(), z.gte(0), z.lte(100)),
  /** Unix ms; a message received earlier is sent on as another hop. */
  not_before: z.optional(z.number().check(z.int(), z.nonnegative())),
  /** A merchant's resend or an ops redrive: deliver even if the event already reached a final state. */
  manual: z.optional(z.boolean()),
});
export type DeliveryMessage = Readonly<z.infer<typeof deliveryMessage>>;

export interface StoredEvent extends DomainEvent {
  readonly delivery_status: DeliveryStatus;
  readonly attempts: DeliveryAttempt[];
  readonly delivered_at?: string | null;
}

/** One page of a merchant's events, newest first, with the cursor of the next. */
export interface EventPage {
  readonly items: StoredEvent[];
  readonly nextCursor: string | null;
}

export interface EventStore {
  get(eventId: string): Promise<StoredEvent | null>;
  recordAttempt(eventId: string, attempt: DeliveryAttempt, status: DeliveryStatus): Promise<void>;
  list(
    merchantId: string,
    mode: string,
    q: { type?: string; objectId?: string; deliveryStatus?: string; limit: number; cursor?: string },
  ): Promise<EventPage>;
}

export interface DeliveryQueue {
  send(messages: readonly DeliveryMessage[], delaySeconds?: number): Promise<void>;
  sendToDeadLetter(message: DeliveryMessage): Promise<void>;
}
