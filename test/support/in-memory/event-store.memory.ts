/**
 * EventStore in memory, as shared/adapters/dynamodb/event.repository.ts: delivery attempts appended, and the
 * merchant's listing newest first, read in Limit-sized
 * pages whose filters apply after the limit (so a page may come back short with a cursor), as a Query does.
 */
import type { EventStore, StoredEvent } from '../../../shared/application/webhooks';
import { modeOf } from '../../../shared/domain/access';
import { ConditionalCheckFailed, MemoryTable, strip, type StoredEventItem } from './memory-table';

export interface MemoryEventStore extends EventStore {
  readonly table: MemoryTable;
}

/** The listing sort key (GSI1SK) of an event: created_at#event_id. */
const listingKey = (e: StoredEventItem) => `${e.created_at}#${e.event_id}`;

const encodeCursor = (sk: string | undefined) => (sk ? Buffer.from(JSON.stringify({ GSI1SK: sk })).toString('base64url') : null);
function decodeCursor(cursor: string | undefined): string | undefined {
  if (!cursor) return undefined;
  try {
    const key = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as { GSI1SK?: unknown };
    return typeof key.GSI1SK === 'string' ? key.GSI1SK : undefined;
  } catch {
    return undefined;
  }
}

export function memoryEventStore(table: MemoryTable = new MemoryTable()): MemoryEventStore {
  return {
    table,

    async get(eventId) {
      const e = table.events.get(eventId);
      return e ? strip<StoredEvent>(e) : null;
    },

    async recordAttempt(eventId, attempt, status) {
      const e = table.events.get(eventId);
      if (!e) throw new ConditionalCheckFailed(`recordAttempt: no event ${eventId}`);
      Object.assign(
        e,
        { attempts: [...(e.attempts ?? []), structuredClone(attempt)], delivery_status: status, last_attempt_at: attempt.at },
        status === 'delivered' ? { delivered_at: attempt.at } : {},
      );
    },

    async list(merchantId, mode, q) {
      const all = [...table.events.values()]
        .filter((e) => e.merchant_id === merchantId && modeOf(e.livemode) === mode)
        .sort((a, b) => listingKey(b).localeCompare(listingKey(a)));
      const matches = (e: StoredEventItem) =>
        (!q.type || e.type === q.type) &&
        (!q.objectId || e.object_id === q.objectId) &&
        (!q.deliveryStatus || e.delivery_status === q.deliveryStatus);
      const items: StoredEvent[] = [];
      let start = decodeCursor(q.cursor);
      let last: string | undefined;
      for (let pages = 0; pages < 10 && items.length < q.limit; pages++) {
        const pageLimit = q.limit - items.length;
        const from = start === undefined ? 0 : all.findIndex((e) => listingKey(e) < (start as string));
        const evaluated = from < 0 ? [] : all.slice(from, from + pageLimit);
        items.push(...evaluated.filter(matches).map((e) => strip<StoredEvent>(e)));
        // LastEvaluatedKey: present whenever the page stopped at its Limit (even if nothing follows), absent at the end.
        const lastEvaluated = evaluated[evaluated.length - 1];
        last = evaluated.length === pageLimit && lastEvaluated ? listingKey(lastEvaluated) : undefined;
        if (!last) break;
        start = last;
      }
      return { items, nextCursor: encodeCursor(last) };
    },
  };
}
