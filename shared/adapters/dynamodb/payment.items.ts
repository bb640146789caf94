/** Item builders for the pay-in entities: keys, envelope and work-index attributes in one place. */
import type { DomainEvent } from '../../domain/events';
import { isOpenPaymentStatus, type Payment } from '../../domain/payments/payment';
import type { CheckoutSession } from '../../domain/payments/session';
import { envelope, keys } from './keys';
import { modeOf } from '../../domain/access';

export function sessionItem(s: CheckoutSession) {
  return {
    ...keys.session(s.session_id),
    ...keys.listing(s.merchant_id, modeOf(s.livemode), 'SESSION', s.created_at, s.session_id),
    ...(s.status === 'pending' ? keys.expiry(s.session_id, s.expires_at) : {}),
    ...envelope('session'),
    ...s,
  };
}

export function paymentItem(p: Payment) {
  const canExpire = p.expires_at && isOpenPaymentStatus(p.status);
  return {
    ...keys.payment(p.payment_id),
    ...keys.listing(p.merchant_id, modeOf(p.livemode), 'PAYMENT', p.created_at, p.payment_id),
    ...(canExpire ? keys.expiry(p.payment_id, p.expires_at as string) : {}),
    ...envelope('payment'),
    ...p,
  };
}

export function eventItem(e: DomainEvent) {
  return {
    ...keys.event(e.event_id),
    ...keys.listing(e.merchant_id, modeOf(e.livemode), 'EVENT', e.created_at, e.event_id),
    ...keys.outbox(e.event_id, e.created_at),
    ...envelope('event'),
    ...e,
    delivery_status: 'pending',
    attempts: [],
  };
}

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

export function balanceWrites(tableName: string, m: BalanceMovement) {
  const md = modeOf(m.livemode);
  return [
    {
      Update: {
        TableName: tableName,
        Key: keys.balance(m.merchantId, md, m.currency),
        UpdateExpression:
          'ADD available_minor :amt SET currency = :cur, #mode = :mode, merchant_id = :mch, updated_at = :at, entity = :entity, version = :version',
        ...(m.amountMinor < 0 ? { ConditionExpression: 'available_minor >= :need' } : {}),
        ExpressionAttributeNames: { '#mode': 'mode' },
        ExpressionAttributeValues: {
          ':amt': m.amountMinor,
          ':cur': m.currency,
          ':mode': md,
          ':mch': m.merchantId,
          ':at': m.at,
          ':entity': envelope('balance').entity,
          ':version': envelope('balance').version,
          ...(m.amountMinor < 0 ? { ':need': -m.amountMinor } : {}),
        },
      },
    },
    {
      Put: {
        TableName: tableName,
        Item: {
          ...keys.ledgerEntry(m.merchantId, md, m.currency, m.at, m.entryId),
          ...envelope('ledgerEntry'),
          entry_id: m.entryId,
          merchant_id: m.merchantId,
          mode: md,
          currency: m.currency,
          amount_minor: m.amountMinor,
          reason: m.reason,
          object_id: m.objectId,
          created_at: m.at,
        },
        ConditionExpression: 'attribute_not_exists(PK)',
      },
    },
  ];
}
