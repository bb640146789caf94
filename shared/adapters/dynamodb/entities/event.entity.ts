/** Event: the outbox item written in the same transaction as each state change; on the work index until dispatched. */
import { modeOf } from '../../../domain/access';
import type { DomainEvent } from '../../../domain/events';
import { envelope, indexKeys, type EntityModel } from '../keys';
import type { TaggedWrite } from '../transact';
import { putNew } from './writes';

const model = { entity: 'event', version: 1 } as const;
const key = (eventId: string) => ({ PK: `EVENT#${eventId}`, SK: 'EVENT' });

export const eventEntity = {
  ...model,
  key,
  item: (e: DomainEvent) => ({
    ...key(e.event_id),
    ...indexKeys.listing(e.merchant_id, modeOf(e.livemode), 'EVENT', e.created_at, e.event_id),
    ...indexKeys.outbox(e.event_id, e.created_at),
    ...envelope(model),
    ...e,
    delivery_status: 'pending',
    attempts: [],
  }),
  /** The events of one transaction, each a new item. */
  puts: (tableName: string, events: readonly DomainEvent[]): TaggedWrite[] =>
    events.map((e) => putNew('event', tableName, eventEntity.item(e))),
} as const satisfies EntityModel;
