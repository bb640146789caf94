/**
 * The idempotency records on our one table (entities/idempotency-record.entity.ts): the claim, the answer written
 * after the work, and the release of a failed attempt. The answer of an effect is written by the effect's own
 * transaction (the entity's `done` write, added by the stores).
 */
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, GetCommand, PutCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { ClaimOutcome, IdempotencyRecords } from '../../application/ports';
import { idempotencyRecordEntity, RECORD_STATUS } from './entities/idempotency-record.entity';

const failedCondition = (e: unknown) => e instanceof ConditionalCheckFailedException;

export function idempotencyRecords(db: DynamoDBDocumentClient, tableName: () => string): IdempotencyRecords {
  return {
    async claim(op): Promise<ClaimOutcome> {
      try {
        await db.send(new PutCommand(idempotencyRecordEntity.claim(tableName(), op)));
        return { kind: 'claimed', claim: { recordId: op.recordId, token: op.token } };
      } catch (e) {
        if (!failedCondition(e)) throw e;
      }
      const r = await db.send(
        new GetCommand({ TableName: tableName(), Key: idempotencyRecordEntity.key(op.recordId), ConsistentRead: true }),
      );
      const item = r.Item;
      // Gone or expired between the put and the read: another attempt's turn just ended; this one is told to retry.
      if (!item) return { kind: 'in_progress' };
      if (item.validation !== op.payloadHash) return { kind: 'reused' };
      if (item.status === RECORD_STATUS.completed && item.data && typeof item.data === 'object') {
        return { kind: 'completed', answer: item.data as Record<string, unknown> };
      }
      return { kind: 'in_progress' };
    },

    async finish(done) {
      try {
        await db.send(new UpdateCommand(idempotencyRecordEntity.finish(tableName(), done)));
        return true;
      } catch (e) {
        if (failedCondition(e)) return false;
        throw e;
      }
    },

    async release(claim) {
      try {
        await db.send(new DeleteCommand(idempotencyRecordEntity.drop(tableName(), claim)));
        return;
      } catch (e) {
        if (!failedCondition(e)) throw e;
      }
      try {
        await db.send(new UpdateCommand(idempotencyRecordEntity.reopen(tableName(), claim)));
      } catch (e) {
        if (!failedCondition(e)) throw e; // no longer ours: another attempt holds or answered it
      }
    },
  };
}
