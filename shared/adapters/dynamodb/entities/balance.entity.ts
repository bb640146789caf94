/**
 * Balance (per merchant, mode and currency), its ledger entries, and the credits not yet folded into it.
 *
 * No hot item on the payment path (issue 22): a debit (payout, refund) updates the balance item, conditional on
 * covering it, together with its ledger entry, so the balance can never go negative. A credit (payment, refund
 * reversal, payout reversal) does not touch the balance item: it writes its ledger entry and a pending credit,
 * both on keys no other request writes. The fold (shared/adapters/dynamodb/ledger-fold.ts), driven by the table's
 * stream and by a sweep, moves pending credits into the balance item in batches, deleting each pending credit in
 * the same transaction, so each is counted once. At every moment: ledger sum = balance + pending credits.
 *
 * Ledger entries and pending credits are spread over shards (partition keys) so that one merchant's burst is not
 * one partition's write limit (1,000 WCU/s): see BENCHMARKS.md "A model of one merchant's ceiling".
 */
import { modeOf } from '../../../domain/access';
import { envelope, hashShard, type EntityModel } from '../keys';
import type { TaggedWrite } from '../transact';

/** Shards of a merchant's ledger, and of the pending credits (all merchants share these). */
export const LEDGER_SHARDS = 8;
export const FOLD_SHARDS = 16;

export const balanceEntity = {
  entity: 'balance',
  version: 1,
  key: (merchantId: string, mode: string, currency: string) => ({ PK: `MERCHANT#${merchantId}`, SK: `BALANCE#${mode}#${currency}` }),
  prefix: (mode: string) => `BALANCE#${mode}#`,
} as const satisfies EntityModel;

const ledgerPartition = (merchantId: string, shard: number) => `LEDGER#${merchantId}#${shard}`;
const foldPartition = (shard: number) => `FOLD#${shard}`;

export const ledgerEntryEntity = {
  entity: 'ledger_entry',
  version: 2,
  key: (merchantId: string, mode: string, currency: string, at: string, entryId: string) => ({
    PK: ledgerPartition(merchantId, hashShard(entryId, LEDGER_SHARDS)),
    SK: `${mode}#${currency}#${at}#${entryId}`,
  }),
  /** One shard of a merchant's ledger (all modes and currencies). */
  partition: ledgerPartition,
  /** The sort-key prefix of one currency's entries inside a shard. */
  prefix: (mode: string, currency: string) => `${mode}#${currency}#`,
} as const satisfies EntityModel;

/** A credit written with its ledger entry and not yet added to the balance item. */
export const pendingCreditEntity = {
  entity: 'pending_credit',
  version: 1,
  key: (merchantId: string, mode: string, currency: string, at: string, entryId: string) => ({
    PK: foldPartition(hashShard(entryId, FOLD_SHARDS)),
    SK: `${merchantId}#${mode}#${currency}#${at}#${entryId}`,
  }),
  partition: foldPartition,
  /** The sort-key prefix of one merchant's pending credits in a mode (and one currency, when given). */
  prefix: (merchantId: string, mode: string, currency?: string) => `${merchantId}#${mode}#${currency ? `${currency}#` : ''}`,
} as const satisfies EntityModel;

/** A balance credit (or debit, negative) with its ledger entry. */
export interface BalanceMovement {
  readonly merchantId: string;
  readonly livemode: boolean;
  readonly currency: string;
  readonly amountMinor: number;
  readonly entryId: string;
  readonly reason: string;
  readonly objectId: string;
  readonly at: string;
}

/**
 * ADD to the balance item (creating it), conditional on covering a debit: the balance never goes negative, except
 * by a forced debit (a chargeback: the money has already left).
 */
export function balanceUpdate(
  tableName: string,
  b: { merchantId: string; mode: string; currency: string; amountMinor: number; at: string; forced?: boolean },
) {
  const debit = b.amountMinor < 0 && b.forced !== true;
  return {
    Update: {
      TableName: tableName,
      Key: balanceEntity.key(b.merchantId, b.mode, b.currency),
      UpdateExpression:
        'ADD available_minor :amt ' +
        'SET currency = :cur, #mode = :mode, merchant_id = :mch, updated_at = :at, entity = :entity, version = :version',
      ...(debit ? { ConditionExpression: 'available_minor >= :need' } : {}),
      ExpressionAttributeNames: { '#mode': 'mode' },
      ExpressionAttributeValues: {
        ':amt': b.amountMinor,
        ':cur': b.currency,
        ':mode': b.mode,
        ':mch': b.merchantId,
        ':at': b.at,
        ':entity': balanceEntity.entity,
        ':version': balanceEntity.version,
        ...(debit ? { ':need': -b.amountMinor } : {}),
      },
    },
  };
}

/**
 * A movement's writes: its ledger entry, and either the balance update (a debit, or a credit that must be
 * available at once: a test top-up) or, for a credit, a pending credit the fold adds to the balance later.
 */
export function balanceMovement(
  tableName: string,
  m: BalanceMovement,
  opts: { immediate?: boolean; forced?: boolean } = {},
): TaggedWrite[] {
  const mode = modeOf(m.livemode);
  const direct = m.amountMinor < 0 || opts.immediate === true;
  const fields = {
    merchant_id: m.merchantId,
    mode,
    currency: m.currency,
    amount_minor: m.amountMinor,
    entry_id: m.entryId,
    created_at: m.at,
  };
  const entry: TaggedWrite = {
    entity: 'ledger_entry',
    write: {
      Put: {
        TableName: tableName,
        Item: {
          ...ledgerEntryEntity.key(m.merchantId, mode, m.currency, m.at, m.entryId),
          ...envelope(ledgerEntryEntity),
          ...fields,
          reason: m.reason,
          object_id: m.objectId,
        },
        ConditionExpression: 'attribute_not_exists(PK)',
      },
    },
  };
  if (direct) return [{ entity: 'balance', write: balanceUpdate(tableName, { ...m, mode, forced: opts.forced === true }) }, entry];
  const pending: TaggedWrite = {
    entity: 'pending_credit',
    write: {
      Put: {
        TableName: tableName,
        Item: { ...pendingCreditEntity.key(m.merchantId, mode, m.currency, m.at, m.entryId), ...envelope(pendingCreditEntity), ...fields },
        ConditionExpression: 'attribute_not_exists(PK)',
      },
    },
  };
  return [entry, pending];
}

/** An object that moves money: a payout or a refund, by its whole amount. */
interface MovingObject {
  readonly merchant_id: string;
  readonly livemode: boolean;
  readonly currency: string;
  readonly amount_minor: number;
}

/** The object's whole amount leaving (-1) or coming back to (+1) the balance, with its ledger entry. */
export const objectMovement = (
  tableName: string,
  o: MovingObject,
  objectId: string,
  sign: 1 | -1,
  entryId: string,
  reason: string,
  at: string,
) =>
  balanceMovement(tableName, {
    merchantId: o.merchant_id,
    livemode: o.livemode,
    currency: o.currency,
    amountMinor: sign * o.amount_minor,
    entryId,
    reason,
    objectId,
    at,
  });
