/** Disputes (DESIGN.md 9.4): the case, its listing and its staged documents' chunks. */
import { BatchWriteCommand, GetCommand, QueryCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { DisputeStore } from '../../application/ports';
import { disputeIdOf, type DisputeCase } from '../../domain/disputes/dispute-case';
import { disputeEntity, disputeDuePartition, DOCUMENT_CHUNK_CHARS } from './entities/dispute.entity';
import { eventEntity } from './entities/event.entity';
import { idempotencyRecordEntity } from './entities/idempotency-record.entity';
import { indexKeys, stripKeys } from './keys';
import { listOfKind } from './listing';
import { transaction } from './transact';
import { dueInWorkIndex } from './work-index';

/** BatchWriteItem's limit of writes per request. */
const BATCH_WRITE_MAX = 25;

async function batchWrite(db: DynamoDBDocumentClient, tableName: string, requests: Record<string, unknown>[]) {
  for (let i = 0; i < requests.length; i += BATCH_WRITE_MAX) {
    let pending = requests.slice(i, i + BATCH_WRITE_MAX);
    for (let round = 0; pending.length > 0; round++) {
      if (round >= 8) throw new Error(`BatchWriteItem left ${pending.length} writes unprocessed`);
      if (round > 0) await new Promise((r) => setTimeout(r, Math.min(2000, 25 * 2 ** round)));
      const r = await db.send(new BatchWriteCommand({ RequestItems: { [tableName]: pending } }));
      pending = (r.UnprocessedItems?.[tableName] ?? []) as Record<string, unknown>[];
    }
  }
}

export const getDisputeCase = async (db: DynamoDBDocumentClient, tableName: string, disputeId: string) => {
  const r = await db.send(new GetCommand({ TableName: tableName, Key: disputeEntity.key(disputeId), ConsistentRead: true }));
  return r.Item ? stripKeys<DisputeCase>(r.Item) : null;
};

export function disputeRepository(db: DynamoDBDocumentClient, tableName: () => string): DisputeStore {
  async function chunkKeys(disputeId: string, prefix: string) {
    const keys: Record<string, unknown>[] = [];
    let start: Record<string, unknown> | undefined;
    do {
      const r = await db.send(
        new QueryCommand({
          TableName: tableName(),
          KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
          ExpressionAttributeValues: { ':pk': disputeEntity.key(disputeId).PK, ':prefix': prefix },
          ProjectionExpression: 'PK, SK',
          ExclusiveStartKey: start,
        }),
      );
      keys.push(...(r.Items ?? []));
      start = r.LastEvaluatedKey;
    } while (start);
    return keys;
  }

  return {
    get: (disputeId) => getDisputeCase(db, tableName(), disputeId),

    async list(merchantId, md, q) {
      if (q.paymentId) {
        // One case per payment: its id is the payment's; the other filters apply to it.
        const only = await getDisputeCase(db, tableName(), disputeIdOf(q.paymentId));
        const fits =
          only &&
          only.merchant_id === merchantId &&
          (only.livemode ? 'live' : 'test') === md &&
          (!q.status || only.status === q.status) &&
          (!q.from || only.created_at >= q.from) &&
          (!q.to || only.created_at.slice(0, q.to.length) <= q.to);
        const items = fits && q.offset === 0 && !q.startingAfter ? [only] : [];
        return { items, total: fits ? 1 : 0, more: false };
      }
      const after = q.startingAfter;
      return listOfKind(
        db,
        tableName(),
        {
          pk: indexKeys.listing(merchantId, md, 'DISPUTE').GSI1PK,
          from: q.from,
          to: q.to,
          status: q.status,
          limit: q.limit,
          offset: q.offset,
        },
        after && { key: disputeEntity.key(after.dispute_id), createdAt: after.created_at, id: after.dispute_id },
        (i) => stripKeys<DisputeCase>(i),
      );
    },

    async save({ next, readRevision, events, done }) {
      const TableName = tableName();
      await transaction()
        .add(
          disputeEntity.write(TableName, next, readRevision),
          ...eventEntity.puts(TableName, events),
          done && idempotencyRecordEntity.done(TableName, done),
        )
        .commit(db);
      return events;
    },

    async putDocuments(disputeId, stagingId, contents, now) {
      const puts = contents.flatMap((content, n) => {
        const parts = Math.max(1, Math.ceil(content.length / DOCUMENT_CHUNK_CHARS));
        return Array.from({ length: parts }, (_, c) => ({
          PutRequest: {
            Item: disputeEntity.chunk(
              disputeId,
              stagingId,
              n,
              c,
              content.slice(c * DOCUMENT_CHUNK_CHARS, (c + 1) * DOCUMENT_CHUNK_CHARS),
              now,
            ),
          },
        }));
      });
      await batchWrite(db, tableName(), puts);
    },

    async readDocument(disputeId, stagingId, n) {
      const prefix = `${disputeEntity.chunkPrefix(stagingId)}${String(n).padStart(2, '0')}#`;
      const parts: string[] = [];
      let start: Record<string, unknown> | undefined;
      do {
        const r = await db.send(
          new QueryCommand({
            TableName: tableName(),
            KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
            ExpressionAttributeValues: { ':pk': disputeEntity.key(disputeId).PK, ':prefix': prefix },
            ConsistentRead: true,
            ExclusiveStartKey: start,
          }),
        );
        for (const i of r.Items ?? []) parts.push(String(i.content));
        start = r.LastEvaluatedKey;
      } while (start);
      return parts.length > 0 ? parts.join('') : null;
    },

    async deleteDocuments(disputeId, stagingId) {
      const keys = await chunkKeys(disputeId, disputeEntity.chunkPrefix(stagingId));
      await batchWrite(
        db,
        tableName(),
        keys.map((Key) => ({ DeleteRequest: { Key } })),
      );
    },

    dueForWarning: (now, limit) => dueInWorkIndex(db, tableName(), disputeDuePartition, now, limit, 'dispute_id'),
  };
}
