/**
 * Dispute (DESIGN.md 9.4): the merchant's case of a disputed payment, its own item, listed per merchant and mode on
 * the listing index (GSI1). Every write is the whole case, conditional on the revision read (new: on its id being
 * free), so a provider's notice and a merchant's action never overwrite each other. An open case not yet answered
 * sits on the dispute work partitions (GSI2 `DISPUTE#`) by when its 48-hour warning is due. A staged document's
 * bytes are chunk items under the case (`DOC#<staging>#<n>#<chunk>`), kept until the staging is replaced.
 */
import { modeOf } from '../../../domain/access';
import { EVIDENCE_DUE_SOON_HOURS, type DisputeCase } from '../../../domain/disputes/dispute-case';
import { TABLE } from '../../../manifest/table';
import { envelope, indexKeys, shardOf, type EntityModel } from '../keys';
import type { TaggedWrite } from '../transact';

const model = { entity: 'dispute', version: 1 } as const;
const key = (disputeId: string) => ({ PK: `DISPUTE#${disputeId}`, SK: 'DISPUTE' });

export const disputeDuePartition = (shard: number) => `DISPUTE#${shard}`;

/** When the case's warning is due: 48 hours before its deadline, while it needs a response and was not warned. */
function dueKeys(d: DisputeCase) {
  if (d.status !== 'needs_response' || d.evidence_due_soon_sent || !d.evidence_due_by) return null;
  const at = new Date(Date.parse(d.evidence_due_by) - EVIDENCE_DUE_SOON_HOURS * 3600 * 1000).toISOString();
  return { GSI2PK: disputeDuePartition(shardOf(d.dispute_id)), GSI2SK: `${at}#${d.dispute_id}` };
}

/** Bytes per chunk item: well under DynamoDB's 400 KB item limit with the keys and envelope. */
export const DOCUMENT_CHUNK_CHARS = 300_000;
/** A replaced staging's chunks are deleted; any a crash left behind expire after this. */
const ORPHAN_CHUNK_TTL_DAYS = 120;

export const disputeEntity = {
  ...model,
  key,
  item: (d: DisputeCase) => ({
    ...key(d.dispute_id),
    ...indexKeys.listing(d.merchant_id, modeOf(d.livemode), 'DISPUTE', d.created_at, d.dispute_id),
    ...(dueKeys(d) ?? {}),
    ...envelope(model),
    ...d,
  }),
  /** The whole case, conditional on the revision read (`readRevision` null: the case must not exist yet). */
  write(tableName: string, next: DisputeCase, readRevision: number | null): TaggedWrite {
    return {
      entity: 'dispute',
      write: {
        Put: {
          TableName: tableName,
          Item: disputeEntity.item(next),
          ...(readRevision === null
            ? { ConditionExpression: 'attribute_not_exists(PK)' }
            : {
                ConditionExpression: 'revision = :read',
                ExpressionAttributeValues: { ':read': readRevision },
              }),
        },
      },
    };
  },
  chunkPrefix: (stagingId: string) => `DOC#${stagingId}#`,
  /** One chunk of a staged document's base64, `n` its place among the staging's documents. */
  chunk(disputeId: string, stagingId: string, n: number, chunk: number, content: string, now: string) {
    return {
      PK: key(disputeId).PK,
      SK: `${disputeEntity.chunkPrefix(stagingId)}${String(n).padStart(2, '0')}#${String(chunk).padStart(4, '0')}`,
      entity: 'dispute_document_chunk',
      version: 1,
      content,
      [TABLE.ttlAttribute]: Math.floor(Date.parse(now) / 1000) + ORPHAN_CHUNK_TTL_DAYS * 86_400,
    };
  },
} as const satisfies EntityModel;
