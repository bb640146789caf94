/** Balance (per merchant, mode and currency) and its ledger entries: every movement is both, in one transaction. */
import { modeOf } from '../../../domain/access';
import { envelope, type EntityModel } from '../keys';
import type { TaggedWrite } from '../transact';

export const balanceEntity = {
  entity: 'balance',
  version: 1,
  key: (merchantId: string, mode: string, currency: string) => ({ PK: `MERCHANT#${merchantId}`, SK: `BALANCE#${mode}#${currency}` }),
  prefix: (mode: string) => `BALANCE#${mode}#`,
} as const satisfies EntityModel;

export const ledgerEntryEntity = {
  entity: 'ledger_entry',
  version: 1,
  key: (merchantId: string, mode: string, currency: string, at: string, entryId: string) => ({
    PK: `MERCHANT#${merchantId}`,
    SK: `LEDGER#${mode}#${currency}#${at}#${entryId}`,
  }),
  prefix: (mode: string, currency: string) => `LEDGER#${mode}#${currency}#`,
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

/** The balance update (a debit conditional on covering it: never negative) and the ledger entry that explains it. */
export function balanceMovement(tableName: string, m: BalanceMovement): TaggedWrite[] {
  const mode = modeOf(m.livemode);
  const debit = m.amountMinor < 0;
  return [
    {
      entity: 'balance',
      write: {
        Update: {
          TableName: tableName,
          Key: balanceEntity.key(m.merchantId, mode, m.currency),
          UpdateExpression:
            'ADD available_minor :amt ' +
            'SET currency = :cur, #mode = :mode, merchant_id = :mch, updated_at = :at, entity = :entity, version = :version',
          ...(debit ? { ConditionExpression: 'available_minor >= :need' } : {}),
          ExpressionAttributeNames: { '#mode': 'mode' },
          ExpressionAttributeValues: {
            ':amt': m.amountMinor,
            ':cur': m.currency,
            ':mode': mode,
            ':mch': m.merchantId,
            ':at': m.at,
            ':entity': balanceEntity.entity,
            ':version': balanceEntity.version,
            ...(debit ? { ':need': -m.amountMinor } : {}),
          },
        },
      },
    },
    {
      entity: 'ledger_entry',
      write: {
        Put: {
          TableName: tableName,
          Item: {
            ...ledgerEntryEntity.key(m.merchantId, mode, m.currency, m.at, m.entryId),
            ...envelope(ledgerEntryEntity),
            entry_id: m.entryId,
            merchant_id: m.merchantId,
            mode,
            currency: m.currency,
            amount_minor: m.amountMinor,
            reason: m.reason,
            object_id: m.objectId,
            created_at: m.at,
          },
          ConditionExpression: 'attribute_not_exists(PK)',
        },
      },
    },
  ];
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
