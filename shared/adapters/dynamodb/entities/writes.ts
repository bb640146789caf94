/** The two conditional writes most entities share: a new item whose id must be free, and a status move from the status read. */
import { REMOVE_FROM_WORK_INDEX, setClause } from '../keys';
import type { EntityTag } from '../../../application/ports';
import type { TaggedWrite } from '../transact';

/** Puts a new item; fails (naming the entity) when the key is taken: a keyed retry after a crash finds its own item. */
export const putNew = (entity: EntityTag, tableName: string, item: Record<string, unknown>): TaggedWrite => ({
  entity,
  write: { Put: { TableName: tableName, Item: item, ConditionExpression: 'attribute_not_exists(PK)' } },
});

/**
 * Sets `status` (with a patch and updated_at) only while the stored status is still `from`, so two racing
 * moves cannot both win; `leaveWorkIndex` also takes the item off the work index.
 */
export function statusMove(
  entity: EntityTag,
  tableName: string,
  key: { PK: string; SK: string },
  from: string,
  fields: Record<string, unknown>,
  leaveWorkIndex = false,
): TaggedWrite {
  const { set, names, values } = setClause(fields);
  return {
    entity,
    write: {
      Update: {
        TableName: tableName,
        Key: key,
        UpdateExpression: `SET ${set}${leaveWorkIndex ? ` ${REMOVE_FROM_WORK_INDEX}` : ''}`,
        ConditionExpression: '#status = :from',
        ExpressionAttributeNames: { ...names, '#status': 'status' },
        ExpressionAttributeValues: { ...values, ':from': from },
      },
    },
  };
}

/**
 * A failover's write (routing, DESIGN.md 9.2): the item's current attempt (`provider`, as read) is appended to
 * `ended_attempts` with any skipped after it and `next` takes its place, only while the item is still processing with
 * the attempt's reference read (a racing writer that moved it wins).
 */
export function switchAttempt(
  entity: EntityTag,
  tableName: string,
  key: { PK: string; SK: string },
  readReference: string,
  ended: readonly unknown[],
  next: unknown,
  now: string,
): TaggedWrite {
  return {
    entity,
    write: {
      Update: {
        TableName: tableName,
        Key: key,
        UpdateExpression:
          'SET #provider = :next, ended_attempts = list_append(if_not_exists(ended_attempts, :none), :ended), updated_at = :now',
        ConditionExpression: '#status = :processing AND #provider.#reference = :ref',
        ExpressionAttributeNames: { '#status': 'status', '#provider': 'provider', '#reference': 'reference' },
        ExpressionAttributeValues: {
          ':next': next,
          ':ended': ended,
          ':none': [],
          ':now': now,
          ':processing': 'processing',
          ':ref': readReference,
        },
      },
    },
  };
}
