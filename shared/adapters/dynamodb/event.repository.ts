/** Event items: delivery attempts, and the merchant's event listing (the listing index, keys only). */
import { GetCommand, QueryCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { EventStore, StoredEvent } from '../../application/webhooks';
import { eventEntity, eventListKinds } from './entities/event.entity';
import { INDEX, indexKeys, stripKeys } from './keys';
import { fetchItems, matches } from './listing';

/** The cursor: the listing position (created_at#event_id) the next page reads below. */
const encodeCursor = (c: { p: string }) => Buffer.from(JSON.stringify(c)).toString('base64url');
function positionOf(cursor: string | undefined): string | undefined {
  if (!cursor) return undefined;
  try {
    const c = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as { p?: unknown; GSI1SK?: unknown };
    // An earlier cursor was the index's LastEvaluatedKey: its GSI1SK is the same position.
    const p = c.p ?? c.GSI1SK;
    return typeof p === 'string' ? p : undefined;
  } catch {
    return undefined;
  }
}

export function eventRepository(db: DynamoDBDocumentClient, tableName: () => string): EventStore {
  return {
    async get(eventId) {
      const r = await db.send(new GetCommand({ TableName: tableName(), Key: eventEntity.key(eventId), ConsistentRead: true }));
      return r.Item ? stripKeys<StoredEvent>(r.Item) : null;
    },

    async recordAttempt(eventId, attempt, status) {
      await db.send(
        new UpdateCommand({
          TableName: tableName(),
          Key: eventEntity.key(eventId),
          UpdateExpression:
            'SET attempts = list_append(if_not_exists(attempts, :empty), :attempt), delivery_status = :status, last_attempt_at = :at' +
            (status === 'delivered' ? ', delivered_at = :at' : ''),
          ConditionExpression: 'attribute_exists(PK)',
          ExpressionAttributeValues: { ':empty': [], ':attempt': [attempt], ':status': status, ':at': attempt.at },
        }),
      );
    },

    async list(merchantId, mode, q) {
      // The listing index holds keys only: the filters apply to the items read from the table.
      const where = { type: q.type, object_id: q.objectId, delivery_status: q.deliveryStatus };
      const below = positionOf(q.cursor);
      // Each listing partition, newest first below the cursor, until it gives a page of matches (bounded reads).
      const shards = await Promise.all(
        eventListKinds.map(async (kind) => {
          const items: Record<string, unknown>[] = [];
          let start: Record<string, unknown> | undefined;
          for (let pages = 0; pages < 10 && items.length < q.limit; pages++) {
            const r = await db.send(
              new QueryCommand({
                TableName: tableName(),
                IndexName: INDEX.listing,
                KeyConditionExpression: below ? 'GSI1PK = :pk AND GSI1SK < :below' : 'GSI1PK = :pk',
                ScanIndexForward: false,
                ExpressionAttributeValues: {
                  ':pk': indexKeys.listing(merchantId, mode, kind).GSI1PK,
                  ...(below ? { ':below': below } : {}),
                },
                Limit: q.limit - items.length,
                ExclusiveStartKey: start,
              }),
            );
            const read = await fetchItems(db, tableName(), r.Items ?? []);
            items.push(...read.filter((i) => matches(i, where)));
            start = r.LastEvaluatedKey;
            if (!start) break;
          }
          // Where this partition's reading stopped: entries below it are unread.
          return { items, frontier: start ? String(start.GSI1SK) : null };
        }),
      );
      // Only what every partition has been read down to can be shown: nothing newer is still unread anywhere.
      const cut = shards.reduce<string | null>((c, s) => (s.frontier && (!c || s.frontier > c) ? s.frontier : c), null);
      const merged = shards
        .flatMap((s) => s.items)
        .filter((i) => !cut || String(i.GSI1SK) >= cut)
        .sort((a, b) => (String(a.GSI1SK) < String(b.GSI1SK) ? 1 : -1));
      const page = merged.slice(0, q.limit);
      const last = page.at(-1);
      const more = merged.length > q.limit || cut !== null;
      const next = !more ? null : page.length === q.limit && last ? String(last.GSI1SK) : cut;
      return { items: page.map((i) => stripKeys<StoredEvent>(i)), nextCursor: next ? encodeCursor({ p: next }) : null };
    },
  };
}
