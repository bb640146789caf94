/**
 * The idempotency record of a keyed request (X-Idempotency-Key), ours since issue 31 (Powertools' cannot join our
 * transactions). One item per merchant + mode + route + key (the record id is their hash):
 *   status     INPROGRESS (claimed by the attempt holding `token` until `in_progress_expiry`, epoch ms),
 *              COMPLETED (`data` is the answer a replay gives), or REOPENED (the effect committed, then the attempt
 *              failed: the same request may run again and answer; it finds its effect by its derived ids);
 *   validation the hash of the request, so the same key with another body is refused;
 *   ttl        the table's TTL attribute (24 h), past which the key is free again.
 * The answer of a create is written by the effect's own transaction (`done`), conditional on the claim.
 */
import type { IdempotencyClaim, IdempotencyDone } from '../../../application/ports';
import { TABLE } from '../../../manifest/table';
import type { TaggedWrite, TxItem } from '../transact';

export const RECORD_STATUS = { inProgress: 'INPROGRESS', completed: 'COMPLETED', reopened: 'REOPENED' } as const;

const model = { entity: 'idempotency_record', version: 2 } as const;
const key = (recordId: string) => ({ PK: `IDEMPOTENCY#${recordId}`, SK: 'IDEMPOTENCY' });

const NAMES = {
  '#status': 'status',
  '#token': 'token',
  '#data': 'data',
  '#ipe': 'in_progress_expiry',
  '#validation': 'validation',
  '#ttl': TABLE.ttlAttribute,
};

/** The update that records the answer: status COMPLETED with `data`, while the claim's token is still on it. */
function answerUpdate(tableName: string, done: IdempotencyDone): NonNullable<TxItem['Update']> {
  return {
    TableName: tableName,
    Key: key(done.claim.recordId),
    UpdateExpression: 'SET #status = :completed, #data = :data, #ttl = :ttl REMOVE #ipe',
    ConditionExpression: '#token = :token',
    ExpressionAttributeNames: {
      '#status': NAMES['#status'],
      '#data': NAMES['#data'],
      '#ttl': NAMES['#ttl'],
      '#ipe': NAMES['#ipe'],
      '#token': NAMES['#token'],
    },
    ExpressionAttributeValues: {
      ':completed': RECORD_STATUS.completed,
      ':data': done.answer,
      ':ttl': done.expiresAt,
      ':token': done.claim.token,
    },
  };
}

export const idempotencyRecordEntity = {
  ...model,
  key,
  /**
   * The claim: a new in-progress record, put when there is none, when it expired (TTL not yet run), or, for the
   * same request (same validation hash), when a crashed attempt's claim expired or a failed one reopened it.
   */
  claim(
    tableName: string,
    op: { recordId: string; payloadHash: string; token: string; inProgressUntil: number; expiresAt: number; now: number },
  ) {
    return {
      TableName: tableName,
      Item: {
        ...key(op.recordId),
        ...model,
        status: RECORD_STATUS.inProgress,
        token: op.token,
        validation: op.payloadHash,
        in_progress_expiry: op.inProgressUntil,
        [TABLE.ttlAttribute]: op.expiresAt,
      },
      ConditionExpression: [
        'attribute_not_exists(PK) OR #ttl < :nowS',
        '(#validation = :hash AND (#status = :reopened OR (#status = :inProgress AND #ipe < :nowMs)))',
      ].join(' OR '),
      ExpressionAttributeNames: {
        '#ttl': NAMES['#ttl'],
        '#validation': NAMES['#validation'],
        '#status': NAMES['#status'],
        '#ipe': NAMES['#ipe'],
      },
      ExpressionAttributeValues: {
        ':nowS': Math.floor(op.now / 1000),
        ':nowMs': op.now,
        ':hash': op.payloadHash,
        ':reopened': RECORD_STATUS.reopened,
        ':inProgress': RECORD_STATUS.inProgress,
      },
    };
  },
  /** The answer in the effect's transaction; the transaction tells `done` when it committed. */
  done: (tableName: string, done: IdempotencyDone): TaggedWrite => ({
    entity: 'idempotency',
    write: { Update: answerUpdate(tableName, done) },
    committed: done.committed,
  }),
  /** The answer recorded on its own after the work (or over the one its transaction wrote). */
  finish: answerUpdate,
  /** A failed attempt whose effect did not commit: the record goes, the key is free. */
  drop: (tableName: string, claim: IdempotencyClaim) => ({
    TableName: tableName,
    Key: key(claim.recordId),
    ConditionExpression: '#token = :token AND #status = :inProgress',
    ExpressionAttributeNames: { '#token': NAMES['#token'], '#status': NAMES['#status'] },
    ExpressionAttributeValues: { ':token': claim.token, ':inProgress': RECORD_STATUS.inProgress },
  }),
  /** A failed attempt whose effect committed: open to the same request again (its hash still refuses another body). */
  reopen: (tableName: string, claim: IdempotencyClaim) => ({
    TableName: tableName,
    Key: key(claim.recordId),
    UpdateExpression: 'SET #status = :reopened REMOVE #data, #ipe',
    ConditionExpression: '#token = :token AND #status = :completed',
    ExpressionAttributeNames: { '#token': NAMES['#token'], '#status': NAMES['#status'], '#data': NAMES['#data'], '#ipe': NAMES['#ipe'] },
    ExpressionAttributeValues: { ':token': claim.token, ':completed': RECORD_STATUS.completed, ':reopened': RECORD_STATUS.reopened },
  }),
};
