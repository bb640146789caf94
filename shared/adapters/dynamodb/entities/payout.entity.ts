/** Payout and the per-merchant payout counters kept in each payout transaction (totals without a Scan). */
import { modeOf } from '../../../domain/access';
import type { EndedAttempt } from '../../../domain/payments/payment';
import { owedSettlementStep, type Payout, type PayoutStatus, type ReturnWatch } from '../../../domain/payouts/payout';
import { envelope, hashShard, indexKeys, REMOVE_FROM_WORK_INDEX, setClause, type EntityModel } from '../keys';
import { putNew, statusMove, switchAttempt } from './writes';
import type { TaggedWrite } from '../transact';

const model = { entity: 'payout', version: 1 } as const;
const key = (payoutId: string) => ({ PK: `PAYOUT#${payoutId}`, SK: 'PAYOUT' });

/** Money still in flight: a payout that owes a settlement step sits on the settlement work index. */
const inFlight = (status: PayoutStatus, outcome: Payout['sandbox_outcome']) =>
  owedSettlementStep({ status, sandbox_outcome: outcome }) !== null;

/** A completed live payout watched for a return sits on the return-watch partitions until its next check. */
const watched = (status: PayoutStatus, watch: ReturnWatch | null | undefined): watch is ReturnWatch =>
  status === 'completed' && Boolean(watch);

/** The work-index keys of a payout in this state: money in flight, a return watch, or none. */
function workKeys(id: string, status: PayoutStatus, outcome: Payout['sandbox_outcome'], watch: ReturnWatch | null | undefined, at: string) {
  if (inFlight(status, outcome)) return indexKeys.settlement(id, at);
  if (watched(status, watch)) return indexKeys.returnWatch(id, watch.next_check_at);
  return null;
}

export const payoutEntity = {
  ...model,
  key,
  item: (p: Payout) => ({
    ...key(p.payout_id),
    ...indexKeys.listing(p.merchant_id, modeOf(p.livemode), 'PAYOUT', p.created_at, p.payout_id),
    ...(workKeys(p.payout_id, p.status, p.sandbox_outcome, p.return_watch, p.updated_at) ?? {}),
    ...envelope(model),
    ...p,
  }),
  create: (tableName: string, p: Payout): TaggedWrite => putNew('payout', tableName, payoutEntity.item(p)),
  /**
   * status -> to with a patch, conditional on the status read; on the settlement work index while in flight,
   * on the return-watch partitions while a completed payout is watched, off the index otherwise.
   */
  transition(tableName: string, p: Payout, to: PayoutStatus, patch: Partial<Payout>, now: string): TaggedWrite {
    const watch = patch.return_watch === undefined ? p.return_watch : patch.return_watch;
    const keys = workKeys(p.payout_id, to, p.sandbox_outcome, watch, now);
    const wasOn = workKeys(p.payout_id, p.status, p.sandbox_outcome, p.return_watch, p.updated_at) !== null;
    return statusMove(
      'payout',
      tableName,
      key(p.payout_id),
      p.status,
      { ...patch, status: to, updated_at: now, ...(keys ?? {}) },
      wasOn && !keys,
    );
  },
  /**
   * A return check that found none: the watch moves to its next check (still on the return-watch partitions)
   * or, `next` null, ends (off the index). Conditional on the payout still completed with the watch read, so a
   * duplicate check or a racing return changes nothing.
   */
  rewatch(tableName: string, p: Payout, next: ReturnWatch | null, now: string): TaggedWrite {
    const fields = { return_watch: next, updated_at: now, ...(next ? indexKeys.returnWatch(p.payout_id, next.next_check_at) : {}) };
    const { set, names, values } = setClause(fields);
    return {
      entity: 'payout',
      write: {
        Update: {
          TableName: tableName,
          Key: key(p.payout_id),
          UpdateExpression: `SET ${set}${next ? '' : ` ${REMOVE_FROM_WORK_INDEX}`}`,
          ConditionExpression: '#status = :completed AND #rw.#next = :prev',
          ExpressionAttributeNames: { ...names, '#status': 'status', '#rw': 'return_watch', '#next': 'next_check_at' },
          ExpressionAttributeValues: { ...values, ':completed': 'completed', ':prev': p.return_watch?.next_check_at ?? '' },
        },
      },
    };
  },
  /** A failover: the next attempt's link, only while the payout is processing with the attempt read. */
  switchAttempt(
    tableName: string,
    p: Payout,
    ended: readonly EndedAttempt[],
    next: NonNullable<Payout['provider']>,
    now: string,
  ): TaggedWrite {
    return switchAttempt('payout', tableName, key(p.payout_id), p.provider?.reference ?? '', ended, next, now);
  },

  /** Provider details learned after the commit (e.g. its order id), conditional on the status read. */
  annotate(tableName: string, p: Payout, provider: NonNullable<Payout['provider']>, now: string): TaggedWrite {
    const { set, names, values } = setClause({ provider, updated_at: now });
    return {
      entity: 'payout',
      write: {
        Update: {
          TableName: tableName,
          Key: key(p.payout_id),
          UpdateExpression: `SET ${set}`,
          ConditionExpression: '#status = :from',
          ExpressionAttributeNames: { ...names, '#status': 'status' },
          ExpressionAttributeValues: { ...values, ':from': p.status },
        },
      },
    };
  },
} as const satisfies EntityModel;

/** Per merchant and mode: total payouts and one count per status. */
/**
 * A merchant's payout counts per status (the list's `total`), spread over PAYOUT_COUNTER_SHARDS items so that
 * concurrent payouts and their settlement steps do not all write one item: a payout always counts in the
 * shard of its id, and a read sums the shards (one Query).
 */
export const PAYOUT_COUNTER_SHARDS = 8;

export const payoutCountersEntity = {
  entity: 'payout_counters',
  version: 2,
  key: (merchantId: string, mode: string, shard: number) => ({ PK: `MERCHANT#${merchantId}`, SK: `PAYOUTCOUNT#${mode}#${shard}` }),
  prefix: (mode: string) => `PAYOUTCOUNT#${mode}#`,
  /** Adds each change (+1 to the new status, -1 to the old) to the payout's merchant counters. */
  change(tableName: string, p: Payout, changes: Record<string, number>, now: string): TaggedWrite {
    const names: Record<string, string> = {};
    const values: Record<string, unknown> = {
      ':now': now,
      ':entity': payoutCountersEntity.entity,
      ':version': payoutCountersEntity.version,
    };
    const adds = Object.entries(changes).map(([field, n], i) => {
      names[`#c${i}`] = field;
      values[`:c${i}`] = n;
      return `#c${i} :c${i}`;
    });
    return {
      entity: 'payout_counters',
      write: {
        Update: {
          TableName: tableName,
          Key: payoutCountersEntity.key(p.merchant_id, modeOf(p.livemode), hashShard(p.payout_id, PAYOUT_COUNTER_SHARDS)),
          UpdateExpression: `ADD ${adds.join(', ')} SET updated_at = :now, entity = :entity, version = :version`,
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: values,
        },
      },
    };
  },
} as const satisfies EntityModel;
