/**
 * Live SPEI pay-ins: the claim of a pay-in CLABE by one payment (so a deposit to it names exactly one payment),
 * and each incoming deposit as received, keyed by the provider's deposit id (its record is written before the
 * provider is answered, so a deposit is never lost and a redelivery is recognised).
 */
import type { TaggedWrite } from '../transact';
import { envelope, type EntityModel } from '../keys';

export const clabeClaimEntity = {
  entity: 'clabe_claim',
  version: 1,
  key: (clabe: string) => ({ PK: `CLABE#${clabe}`, SK: 'CLABE' }),
  item: (clabe: string, paymentId: string, now: string) => ({
    ...clabeClaimEntity.key(clabe),
    ...envelope(clabeClaimEntity),
    clabe,
    payment_id: paymentId,
    created_at: now,
  }),
  /**
   * The one deposit that settles the CLABE's payment: set once, in the transaction that records that deposit as
   * `settled`; a second deposit (even one racing the first on a stale read of the payment) finds it taken.
   */
  settledBy: (tableName: string, clabe: string, depositKey: string): TaggedWrite => ({
    entity: 'clabe_claim',
    write: {
      Update: {
        TableName: tableName,
        Key: clabeClaimEntity.key(clabe),
        UpdateExpression: 'SET settled_by = :deposit',
        ConditionExpression: 'attribute_exists(PK) AND (attribute_not_exists(settled_by) OR settled_by = :deposit)',
        ExpressionAttributeValues: { ':deposit': depositKey },
      },
    },
  }),
} as const satisfies EntityModel;

export const speiDepositEntity = {
  entity: 'spei_deposit',
  version: 1,
  key: (provider: string, depositId: string) => ({ PK: `DEPOSIT#${provider}#${depositId}`, SK: 'DEPOSIT' }),
} as const satisfies EntityModel;
