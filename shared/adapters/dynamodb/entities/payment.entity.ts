/** Payment: on the listing index, and on the work index while it is open and can expire. */
import {
  awaitsProvider,
  isOpenPaymentStatus,
  sourcesOf,
  type EndedAttempt,
  type Payment,
  type PaymentStatus,
  type ProviderLink,
} from '../../../domain/payments/payment';
import type { Dispute } from '../../../domain/payments/dispute';
import { firstReadBackAt } from '../../../domain/payments/read-back';
import { envelope, indexKeys, REMOVE_FROM_WORK_INDEX, type EntityModel } from '../keys';
import { putNew, statusMove, switchAttempt } from './writes';
import { config } from '../../../config';
import type { TaggedWrite } from '../transact';

const model = { entity: 'payment', version: 1 } as const;
const key = (paymentId: string) => ({ PK: `PAYMENT#${paymentId}`, SK: 'PAYMENT' });

/** Open payments wait on the work index: for the reconciliation job when a provider holds them, else for their expiry. */
function workIndex(p: Payment) {
  if (awaitsProvider(p)) {
    // The first read-back soon (the shopper is on the page): its early schedule, never later than the configured first.
    const configured = Date.parse(p.created_at) + config.providerFirstCheckSeconds * 1000;
    const first = new Date(Math.min(configured, Date.parse(firstReadBackAt(p.created_at)))).toISOString();
    return indexKeys.provider(p.payment_id, first);
  }
  return p.expires_at && isOpenPaymentStatus(p.status) ? indexKeys.expiry(p.payment_id, p.expires_at) : {};
}

export const paymentEntity = {
  ...model,
  key,
  item: (p: Payment) => ({
    ...key(p.payment_id),
    // No listing key: nothing lists a merchant's payments, and a listing index row is a write on one
    // partition per merchant for every payment write (issue 22). A list endpoint would add a sharded one.
    ...workIndex(p),
    ...envelope(model),
    ...p,
  }),

  /** A new payment; the id must be free (a keyed retry after a crash finds it taken). */
  create: (tableName: string, p: Payment): TaggedWrite => putNew('payment', tableName, paymentEntity.item(p)),

  /** status -> to with a patch, conditional on the status read; a payment that is no longer open leaves the work index. */
  transition: (tableName: string, p: Payment, to: PaymentStatus, patch: Partial<Payment>, now: string): TaggedWrite =>
    statusMove('payment', tableName, key(p.payment_id), p.status, { ...patch, status: to, updated_at: now }, !isOpenPaymentStatus(to)),

  /**
   * A patch to a payment that keeps its status (what a provider answered, a recorded mismatch) and, while a
   * provider holds it, when the reconciliation job reads it next; conditional on the status read.
   */
  touch(tableName: string, p: Payment, patch: Partial<Payment>, nextCheckAt: string | null, now: string): TaggedWrite {
    const next = nextCheckAt ? indexKeys.provider(p.payment_id, nextCheckAt) : {};
    return statusMove('payment', tableName, key(p.payment_id), p.status, { ...patch, updated_at: now, ...next });
  },

  /**
   * A failover: the current attempt (as read) ends and the next takes its place, only while the payment is still
   * processing with the attempt read (a racing retry or read-back that moved it wins).
   */
  switchAttempt(tableName: string, p: Payment, ended: readonly EndedAttempt[], next: ProviderLink, now: string): TaggedWrite {
    return switchAttempt('payment', tableName, key(p.payment_id), p.provider?.reference ?? '', ended, next, now);
  },

  /** An open payment closes with its session (cancelled or expired), only from a status the transition table allows. */
  close(tableName: string, paymentId: string, to: PaymentStatus, now: string): TaggedWrite {
    const sources = Object.fromEntries(sourcesOf(to).map((st, i) => [`:src${i}`, st]));
    return {
      entity: 'payment',
      write: {
        Update: {
          TableName: tableName,
          Key: key(paymentId),
          UpdateExpression: `SET #status = :to, updated_at = :now ${REMOVE_FROM_WORK_INDEX}`,
          ConditionExpression: `#status IN (${Object.keys(sources).join(', ')})`,
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: { ':to': to, ':now': now, ...sources },
        },
      },
    };
  },

  /**
   * The payment's dispute moves to its next stage, conditional on the stage and amount read (absent: never
   * disputed; the amount grows only with a further fraud return of a lost PIX dispute).
   */
  dispute(tableName: string, p: Payment, next: Dispute, now: string): TaggedWrite {
    const read = p.dispute;
    return {
      entity: 'payment',
      write: {
        Update: {
          TableName: tableName,
          Key: key(p.payment_id),
          UpdateExpression: 'SET dispute = :next, updated_at = :now',
          ConditionExpression: read
            ? 'dispute.stage = :stage AND dispute.#ds = :ds AND dispute.amount_minor = :amt'
            : 'attribute_exists(PK) AND attribute_not_exists(dispute)',
          ...(read ? { ExpressionAttributeNames: { '#ds': 'status' } } : {}),
          ExpressionAttributeValues: {
            ':next': next,
            ':now': now,
            ...(read ? { ':stage': read.stage, ':ds': read.status, ':amt': read.amount_minor } : {}),
          },
        },
      },
    };
  },

  /**
   * A refund reserves part of a successful payment: never more than what is left, under any concurrency, and never
   * while a dispute holds the amount (the chargeback already paid the shopper).
   */
  reserveRefund: (tableName: string, paymentId: string, amountMinor: number, paymentAmountMinor: number, now: string): TaggedWrite => ({
    entity: 'payment',
    write: {
      Update: {
        TableName: tableName,
        Key: key(paymentId),
        UpdateExpression: 'ADD refunded_minor :amt SET updated_at = :now',
        ConditionExpression:
          '#status = :success AND (attribute_not_exists(refunded_minor) OR refunded_minor <= :room) AND ' +
          '(attribute_not_exists(dispute) OR dispute = :none OR dispute.#ds = :won)',
        ExpressionAttributeNames: { '#status': 'status', '#ds': 'status' },
        ExpressionAttributeValues: {
          ':amt': amountMinor,
          ':now': now,
          ':success': 'success',
          ':room': paymentAmountMinor - amountMinor,
          ':none': null,
          ':won': 'won',
        },
      },
    },
  }),

  /** A failed refund gives its reservation back. */
  releaseRefund: (tableName: string, paymentId: string, amountMinor: number, now: string): TaggedWrite => ({
    entity: 'payment',
    write: {
      Update: {
        TableName: tableName,
        Key: key(paymentId),
        UpdateExpression: 'ADD refunded_minor :amt SET updated_at = :now',
        ConditionExpression: 'refunded_minor >= :need',
        ExpressionAttributeValues: { ':amt': -amountMinor, ':need': amountMinor, ':now': now },
      },
    },
  }),

  /**
   * A succeeded refund counts as settled, conditional on the settled total it read (so refunds settling at
   * once are serialised and exactly the one that reaches the amount moves the payment to refunded).
   */
  settleRefund(tableName: string, p: Payment, amountMinor: number, fullyRefunded: boolean, now: string): TaggedWrite {
    const settled = p.refund_settled_minor ?? 0;
    return {
      entity: 'payment',
      write: {
        Update: {
          TableName: tableName,
          Key: key(p.payment_id),
          UpdateExpression: `ADD refund_settled_minor :amt SET updated_at = :now${fullyRefunded ? ', #status = :refunded' : ''}`,
          ConditionExpression:
            '#status = :success AND ' + (settled ? 'refund_settled_minor = :settled' : 'attribute_not_exists(refund_settled_minor)'),
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: {
            ':amt': amountMinor,
            ':now': now,
            ':success': 'success',
            ...(fullyRefunded ? { ':refunded': 'refunded' } : {}),
            ...(settled ? { ':settled': settled } : {}),
          },
        },
      },
    };
  },
} as const satisfies EntityModel;
