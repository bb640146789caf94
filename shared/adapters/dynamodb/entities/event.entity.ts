/**
 * Event: the item written in the same transaction as each state change. Its insert on the table's stream is what
 * hands it to webhook delivery (shared/manifest/streams.ts, eventDispatch): the commit is the publish, so there is
 * no outbox row to put and clear (issue 22: that was 4 write units per event).
 */
import { modeOf } from '../../../domain/access';
import type { DomainEvent } from '../../../domain/events';
import { envelope, hashShard, indexKeys, type EntityModel } from '../keys';
import type { TaggedWrite } from '../transact';
import { putNew } from './writes';

const model = { entity: 'event', version: 3 } as const;
const key = (eventId: string) => ({ PK: `EVENT#${eventId}`, SK: 'EVENT' });

/**
 * A merchant's event listing is spread over EVENT_LIST_SHARDS index partitions (by event id): each event writes
 * its listing row three times (put, dispatch, delivery), and one partition takes 1,000 writes a second, so one
 * unsharded partition capped a merchant at about 330 events a second (issue 22). Version 1 events, listed
 * under the unsharded kind, are read as one more partition until they age out.
 */
export const EVENT_LIST_SHARDS = 4;
export const eventListKinds = ['EVENT', ...Array.from({ length: EVENT_LIST_SHARDS }, (_, s) => `EVENT#${s}`)];

export const eventEntity = {
  ...model,
  key,
  item: (e: DomainEvent) => ({
    ...key(e.event_id),
    ...indexKeys.listing(e.merchant_id, modeOf(e.livemode), `EVENT#${hashShard(e.event_id, EVENT_LIST_SHARDS)}`, e.created_at, e.event_id),
    ...envelope(model),
    ...e,
    delivery_status: 'pending',
    attempts: [],
  }),
  /** The events of one transaction, each a new item. */
  puts: (tableName: string, events: readonly DomainEvent[]): TaggedWrite[] =>
    events.map((e) => putNew('event', tableName, eventEntity.item(e))),
} as const satisfies EntityModel;
