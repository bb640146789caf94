/** Event items: the outbox marker (GSI2), delivery attempts, and the merchant's event listing (GSI1). */
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { GetCommand, QueryCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { EventStore, StoredEvent } from '../../application/webhook-ports';
import { eventEntity } from './entities/event.entity';
import { INDEX, indexKeys, REMOVE_FROM_WORK_INDEX, stripKeys } from './keys';
import { dueInWorkIndex, oldestInWorkIndex } from './work-index';

const encodeCursor = (key: Record<string, unknown> | undefined) => (key ? Buffer.from(JSON.stringify(key)).toString('base64url') : null);
function decodeCursor(cursor: string | undefined): Record<string, unknown> | undefined {
  if (!cursor) return undefined;
  try {
    return JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as Record<string, unknown>;
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

    async markDispatched(eventIds, at) {
      await Promise.all(
        eventIds.map((id) =>
          db
            .send(
              new UpdateCommand({
                TableName: tableName(),
                Key: eventEntity.key(id),
                UpdateExpression: `SET dispatched_at = :at ${REMOVE_FROM_WORK_INDEX}`,
                ConditionExpression: 'attribute_exists(PK)',
                ExpressionAttributeValues: { ':at': at },
              }),
            )
            .catch((e: unknown) => {
              if (!(e instanceof ConditionalCheckFailedException)) throw e;
            }),
        ),
      );
    },

    async undispatched(before, limit) {
      return dueInWorkIndex(db, tableName(), indexKeys.outboxPartition, before, limit, 'event_id');
    },

    async oldestUndispatchedAt() {
      return oldestInWorkIndex(db, tableName(), indexKeys.outboxPartition);
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
      const filters: string[] = [];
      const values: Record<string, unknown> = { ':pk': indexKeys.listing(merchantId, mode, 'EVENT').GSI1PK };
      const names: Record<string, string> = {};
      if (q.type) {
        filters.push('#type = :type');
        names['#type'] = 'type';
        values[':type'] = q.type;
      }
      if (q.objectId) {
        filters.push('object_id = :oid');
        values[':oid'] = q.objectId;
      }
      if (q.deliveryStatus) {
        filters.push('delivery_status = :ds');
        values[':ds'] = q.deliveryStatus;
      }
      const items: StoredEvent[] = [];
      let start = decodeCursor(q.cursor);
      let last: Record<string, unknown> | undefined;
      // Newest first; with filters, keep reading pages (bounded) until the page is full.
      for (let pages = 0; pages < 10 && items.length < q.limit; pages++) {
        const r = await db.send(
          new QueryCommand({
            TableName: tableName(),
            IndexName: INDEX.listing,
            KeyConditionExpression: 'GSI1PK = :pk',
            ScanIndexForward: false,
            ...(filters.length ? { FilterExpression: filters.join(' AND ') } : {}),
            ...(Object.keys(names).length ? { ExpressionAttributeNames: names } : {}),
            ExpressionAttributeValues: values,
            Limit: q.limit - items.length,
            ExclusiveStartKey: start,
          }),
        );
        items.push(...(r.Items ?? []).map((i) => stripKeys<StoredEvent>(i)));
        last = r.LastEvaluatedKey;
        if (!last) break;
        start = last;
      }
      return { items, nextCursor: encodeCursor(last) };
    },
  };
}
