/** Checkout session: on the work index while it can expire. */
import type { SessionLink } from '../../../application/ports';
import type { PaymentStatus } from '../../../domain/payments/payment';
import { OPEN_SESSION_STATUSES, type CheckoutSession, type SessionStatus } from '../../../domain/payments/session';
import { envelope, indexKeys, REMOVE_FROM_WORK_INDEX, type EntityModel } from '../keys';
import type { TaggedWrite } from '../transact';

/** `#status IN (:sopen0, ...)` over the domain's open session statuses. */
const OPEN_VALUES = Object.fromEntries(OPEN_SESSION_STATUSES.map((s, i) => [`:sopen${i}`, s]));
const IS_OPEN = `#status IN (${Object.keys(OPEN_VALUES).join(', ')})`;

const model = { entity: 'checkout_session', version: 1 } as const;
const key = (sessionId: string) => ({ PK: `SESSION#${sessionId}`, SK: 'SESSION' });

export const sessionEntity = {
  ...model,
  key,
  item: (s: CheckoutSession) => ({
    ...key(s.session_id),
    // No listing key, as for payments (payment.entity.ts): nothing lists sessions.
    ...(s.status === 'pending' ? indexKeys.expiry(s.session_id, s.expires_at) : {}),
    ...envelope(model),
    ...s,
  }),

  /**
   * A payment's effect on its session: completes it (success, while open and unexpired), records the
   * latest attempt's status (only while this payment is the latest), or makes a new attempt the latest.
   */
  link(tableName: string, link: SessionLink, paymentId: string, status: PaymentStatus, now: string): TaggedWrite {
    const values = { ':pid': paymentId, ':ps': status, ':now': now };
    const update = (UpdateExpression: string, ConditionExpression: string): TaggedWrite => {
      const open = ConditionExpression.includes(IS_OPEN);
      return {
        entity: 'session',
        write: {
          Update: {
            TableName: tableName,
            Key: key(link.sessionId),
            UpdateExpression,
            ConditionExpression,
            ...(open ? { ExpressionAttributeNames: { '#status': 'status' } } : {}),
            ExpressionAttributeValues: { ...values, ...(open ? OPEN_VALUES : {}), ...(link.complete ? { ':completed': 'completed' } : {}) },
          },
        },
      };
    };
    const openAndUnexpired = `${IS_OPEN} AND expires_at > :now`;
    if (link.complete) {
      return update(
        `SET #status = :completed, payment_id = :pid, payment_status = :ps, updated_at = :now ${REMOVE_FROM_WORK_INDEX}`,
        openAndUnexpired,
      );
    }
    if (link.latestOnly) return update('SET payment_status = :ps, updated_at = :now', 'payment_id = :pid');
    return update('SET payment_id = :pid, payment_status = :ps, updated_at = :now', openAndUnexpired);
  },

  /**
   * An open session closes as cancelled, or as expired once its expiry has passed; only while its latest
   * attempt is still the one read, so an attempt linked meanwhile is never left open on a closed session.
   */
  close(
    tableName: string,
    s: CheckoutSession,
    to: Extract<SessionStatus, 'cancelled' | 'expired'>,
    paymentTo: PaymentStatus | undefined,
    now: string,
  ): TaggedWrite {
    return {
      entity: 'session',
      write: {
        Update: {
          TableName: tableName,
          Key: key(s.session_id),
          UpdateExpression: `SET #status = :to, updated_at = :now${paymentTo ? ', payment_status = :pto' : ''} ${REMOVE_FROM_WORK_INDEX}`,
          ConditionExpression: `${to === 'expired' ? `${IS_OPEN} AND expires_at <= :now` : IS_OPEN} AND ${
            s.payment_id ? 'payment_id = :latest' : '(attribute_not_exists(payment_id) OR attribute_type(payment_id, :null))'
          }`,
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: {
            ':to': to,
            ':now': now,
            ...OPEN_VALUES,
            ...(paymentTo ? { ':pto': paymentTo } : {}),
            ...(s.payment_id ? { ':latest': s.payment_id } : { ':null': 'NULL' }),
          },
        },
      },
    };
  },
} as const satisfies EntityModel;
