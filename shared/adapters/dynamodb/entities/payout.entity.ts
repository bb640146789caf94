/** Payout and the per-merchant payout counters kept in each payout transaction (totals without a Scan). */
import { modeOf } from '../../../domain/access';
import { owedSettlementStep, type Payout, type PayoutStatus } from '../../../domain/payouts/payout';
import { envelope, hashShard, indexKeys, type EntityModel } from '../keys';
import { putNew, statusMove } from './writes';
import type { TaggedWrite } from '../transact';

const model = { entity: 'payout', version: 1 } as const;
const key = (payoutId: string) => ({ PK: `PAYOUT#${payoutId}`, SK: 'PAYOUT' });

/** Money still in flight: a payout that owes a settlement step sits on the settlement work index. */
const inFlight = (status: PayoutStatus, outcome: Payout['sandbox_outcome']) =>
  owedSettlementStep({ status, sandbox_outcome: outcome }) !== null;

export const payoutEntity = {
  ...model,
  key,
  item: (p: Payout) => ({
    ...key(p.payout_id),
    ...indexKeys.listing(p.merchant_id, modeOf(p.livemode), 'PAYOUT', p.created_at, p.payout_id),
    ...(inFlight(p.status, p.sandbox_outcome) ? indexKeys.settlement(p.payout_id, p.updated_at) : {}),
    ...envelope(model),
    ...p,
  }),
  create: (tableName: string, p: Payout): TaggedWrite => putNew('payout', tableName, payoutEntity.item(p)),
  /** status -> to with a patch, conditional on the status read; on the settlement work index while in flight. */
  transition: (tableName: string, p: Payout, to: PayoutStatus, patch: Partial<Payout>, now: string): TaggedWrite =>
    statusMove(
      'payout',
      tableName,
      key(p.payout_id),
      p.status,
      { ...patch, status: to, updated_at: now, ...(inFlight(to, p.sandbox_outcome) ? indexKeys.settlement(p.payout_id, now) : {}) },
      inFlight(p.status, p.sandbox_outcome) && !inFlight(to, p.sandbox_outcome),
    ),
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
