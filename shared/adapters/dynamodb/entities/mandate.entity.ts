/**
 * Mandate: its own item, listed per merchant and mode on the listing index (GSI1). A live mandate whose outcome a
 * provider holds (approval pending) sits on the mandate work partitions (GSI2 `MANDATE#`) by its next read-back.
 * Each billing cycle charged is a claim item under the mandate (`CYCLE#<n>`), naming the charge that holds it.
 */
import { modeOf } from '../../../domain/access';
import { MANDATE_TRANSITIONS, type Mandate, type MandateStatus } from '../../../domain/mandates/mandate';
import { envelope, indexKeys, setClause, shardOf, type EntityModel } from '../keys';
import type { TaggedWrite } from '../transact';
import { putNew, statusMove } from './writes';

const model = { entity: 'mandate', version: 1 } as const;
const key = (mandateId: string) => ({ PK: `MANDATE#${mandateId}`, SK: 'MANDATE' });
const cycleKey = (mandateId: string, cycle: number) => ({ PK: `MANDATE#${mandateId}`, SK: `CYCLE#${String(cycle).padStart(5, '0')}` });

/** GSI2: a live mandate awaiting its provider (approval pending), by when the reconciliation job reads it back next. */
export const mandateWatchKeys = (id: string, checkAt: string) => ({ GSI2PK: `MANDATE#${shardOf(id)}`, GSI2SK: `${checkAt}#${id}` });
export const mandateWatchPartition = (shard: number) => `MANDATE#${shard}`;

const workKeys = (m: Pick<Mandate, 'mandate_id' | 'next_check_at'>) =>
  m.next_check_at ? mandateWatchKeys(m.mandate_id, m.next_check_at) : null;

export const mandateEntity = {
  ...model,
  key,
  cycleKey,
  item: (m: Mandate) => ({
    ...key(m.mandate_id),
    ...indexKeys.listing(m.merchant_id, modeOf(m.livemode), 'MANDATE', m.created_at, m.mandate_id),
    ...(workKeys(m) ?? {}),
    ...envelope(model),
    ...m,
  }),
  create: (tableName: string, m: Mandate): TaggedWrite => putNew('mandate', tableName, mandateEntity.item(m)),
  /** status -> to with a patch, conditional on the status read; on the work partitions while `next_check_at` is set. */
  transition(tableName: string, m: Mandate, to: MandateStatus, patch: Partial<Mandate>, now: string): TaggedWrite {
    // An ended mandate (rejected, cancelled, expired) is never read back again: it leaves the work partitions.
    const ended = MANDATE_TRANSITIONS[to].length === 0;
    const next = ended ? null : patch.next_check_at === undefined ? m.next_check_at : patch.next_check_at;
    const keys = workKeys({ mandate_id: m.mandate_id, next_check_at: next });
    return statusMove(
      'mandate',
      tableName,
      key(m.mandate_id),
      m.status,
      { ...patch, next_check_at: next ?? null, status: to, updated_at: now, ...(keys ?? {}) },
      !keys && Boolean(m.next_check_at),
    );
  },
  /** A patch that keeps the status (conditional on it): what the provider answered, the next read-back. */
  touch(tableName: string, m: Mandate, patch: Partial<Mandate>, now: string): TaggedWrite {
    return mandateEntity.transition(tableName, m, m.status, patch, now);
  },
  /** The provider's own id of a mandate (its idRec), kept once it answered: a callback naming it finds the mandate. */
  providerKey: (provider: string, id: string) => ({ PK: `MANDATEREF#${provider}#${id}`, SK: 'LINK' }),
  link(tableName: string, provider: string, id: string, mandateId: string): TaggedWrite {
    return {
      entity: 'mandate',
      write: {
        Put: {
          TableName: tableName,
          Item: { ...mandateEntity.providerKey(provider, id), entity: 'mandate_ref', version: 1, mandate_id: mandateId },
        },
      },
    };
  },
  /** One more charge made under an active mandate (conditional on it still being active). */
  charged(tableName: string, mandateId: string, now: string): TaggedWrite {
    const { set, names, values } = setClause({ updated_at: now });
    return {
      entity: 'mandate',
      write: {
        Update: {
          TableName: tableName,
          Key: key(mandateId),
          UpdateExpression: `SET ${set} ADD charges_count :one`,
          ConditionExpression: '#status = :active',
          ExpressionAttributeNames: { ...names, '#status': 'status' },
          ExpressionAttributeValues: { ...values, ':one': 1, ':active': 'active' },
        },
      },
    };
  },
  /**
   * The cycle's claim for a charge: new (its first charge), or taken over from `replaces` (a charge of the cycle that
   * failed: a retry under the mandate's retry policy) while the cycle has had fewer than `maxCharges` charges; never
   * from another charge than the one read (WriteConflict('mandate_cycle')).
   */
  claimCycle(
    tableName: string,
    mandateId: string,
    cycle: number,
    paymentId: string,
    replaces: string | null,
    now: string,
    maxCharges = 1,
  ): TaggedWrite {
    if (!replaces)
      return {
        entity: 'mandate_cycle',
        write: {
          Put: {
            TableName: tableName,
            Item: {
              ...cycleKey(mandateId, cycle),
              entity: 'mandate_cycle',
              version: 1,
              payment_id: paymentId,
              charges: 1,
              claimed_at: now,
            },
            ConditionExpression: 'attribute_not_exists(PK)',
          },
        },
      };
    return {
      entity: 'mandate_cycle',
      write: {
        Update: {
          TableName: tableName,
          Key: cycleKey(mandateId, cycle),
          UpdateExpression: 'SET payment_id = :p, claimed_at = :now ADD charges :one',
          ConditionExpression: 'payment_id = :replaced AND charges < :max',
          ExpressionAttributeValues: { ':p': paymentId, ':now': now, ':one': 1, ':replaced': replaces, ':max': maxCharges },
        },
      },
    };
  },
} as const satisfies EntityModel;
