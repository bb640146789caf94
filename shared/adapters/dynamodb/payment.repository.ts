/** Sessions and payments: every change a conditional write, every invariant one transaction. */
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { GetCommand, PutCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { PaymentStore, SessionLink } from '../../application/payment-ports';
import { isOpenPaymentStatus, OPEN_PAYMENT_STATUSES, type Payment } from '../../domain/payments/payment';
import type { CheckoutSession } from '../../domain/payments/session';
import { balanceWrites, eventItem, paymentItem, sessionItem } from './payment.items';
import { transact as transactItems, type TxItem, type TxPart } from './transact';
import { keys, stripKeys } from './keys';
import { dueInWorkIndex } from './work-index';

/** `#status IN (:open0, ...)` over the domain's open payment statuses. */
const OPEN_VALUES = Object.fromEntries(OPEN_PAYMENT_STATUSES.map((s, i) => [`:open${i}`, s]));
const OPEN = Object.keys(OPEN_VALUES);

export function paymentRepository(db: DynamoDBDocumentClient, tableName: () => string): PaymentStore {
  const transact = (items: TxItem[], parts: TxPart[]) => transactItems(db, items, parts);

  function sessionUpdate(link: SessionLink, paymentId: string, status: string, now: string): TxItem {
    const TableName = tableName();
    if (link.complete) {
      return {
        Update: {
          TableName,
          Key: keys.session(link.sessionId),
          UpdateExpression: 'SET #status = :completed, payment_id = :pid, payment_status = :ps, updated_at = :now REMOVE GSI2PK, GSI2SK',
          ConditionExpression: '#status IN (:pending, :processing) AND expires_at > :now',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: {
            ':completed': 'completed',
            ':pid': paymentId,
            ':ps': status,
            ':now': now,
            ':pending': 'pending',
            ':processing': 'processing',
          },
        },
      };
    }
    if (link.latestOnly) {
      return {
        Update: {
          TableName,
          Key: keys.session(link.sessionId),
          UpdateExpression: 'SET payment_status = :ps, updated_at = :now',
          ConditionExpression: 'payment_id = :pid',
          ExpressionAttributeValues: { ':pid': paymentId, ':ps': status, ':now': now },
        },
      };
    }
    // A new attempt becomes the session's latest payment, while the session is open.
    return {
      Update: {
        TableName,
        Key: keys.session(link.sessionId),
        UpdateExpression: 'SET payment_id = :pid, payment_status = :ps, updated_at = :now',
        ConditionExpression: '#status IN (:pending, :processing) AND expires_at > :now',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':pid': paymentId, ':ps': status, ':now': now, ':pending': 'pending', ':processing': 'processing' },
      },
    };
  }

  return {
    async createSession(session) {
      try {
        await db.send(
          new PutCommand({ TableName: tableName(), Item: sessionItem(session), ConditionExpression: 'attribute_not_exists(PK)' }),
        );
        return 'created';
      } catch (e) {
        if (e instanceof ConditionalCheckFailedException) return 'exists';
        throw e;
      }
    },

    async getSession(id) {
      const r = await db.send(new GetCommand({ TableName: tableName(), Key: keys.session(id), ConsistentRead: true }));
      return r.Item ? stripKeys<CheckoutSession>(r.Item) : null;
    },

    async getPayment(id) {
      const r = await db.send(new GetCommand({ TableName: tableName(), Key: keys.payment(id), ConsistentRead: true }));
      return r.Item ? stripKeys<Payment>(r.Item) : null;
    },

    async recordNewPayment({ payment, session, events, credit, now }) {
      const TableName = tableName();
      const items: TxItem[] = [{ Put: { TableName, Item: paymentItem(payment), ConditionExpression: 'attribute_not_exists(PK)' } }];
      const parts: TxPart[] = ['payment'];
      if (session) {
        items.push(sessionUpdate(session, payment.payment_id, payment.status, now));
        parts.push('session');
      }
      for (const e of events) {
        items.push({ Put: { TableName, Item: eventItem(e), ConditionExpression: 'attribute_not_exists(PK)' } });
        parts.push('other');
      }
      if (credit) {
        const writes = balanceWrites(TableName, {
          merchantId: payment.merchant_id,
          livemode: payment.livemode,
          ...credit,
          reason: 'payment',
          objectId: payment.payment_id,
          at: now,
        });
        items.push(...(writes as TxItem[]));
        parts.push('balance', 'balance');
      }
      await transact(items, parts);
      return events;
    },

    async transitionPayment({ payment, to, patch, session, events, credit, now }) {
      const TableName = tableName();
      const set: Record<string, unknown> = { ...patch, status: to, updated_at: now };
      const names: Record<string, string> = {};
      const values: Record<string, unknown> = { ':from': payment.status };
      const assignments = Object.entries(set).map(([k, v], i) => {
        names[`#f${i}`] = k;
        values[`:v${i}`] = v;
        return `#f${i} = :v${i}`;
      });
      const stillOpen = isOpenPaymentStatus(to);
      const items: TxItem[] = [
        {
          Update: {
            TableName,
            Key: keys.payment(payment.payment_id),
            UpdateExpression: `SET ${assignments.join(', ')}${stillOpen ? '' : ' REMOVE GSI2PK, GSI2SK'}`,
            ConditionExpression: '#f0s = :from',
            ExpressionAttributeNames: { ...names, '#f0s': 'status' },
            ExpressionAttributeValues: values,
          },
        },
      ];
      const parts: TxPart[] = ['payment'];
      if (session) {
        items.push(sessionUpdate(session, payment.payment_id, to, now));
        parts.push('session');
      }
      for (const e of events) {
        items.push({ Put: { TableName, Item: eventItem(e), ConditionExpression: 'attribute_not_exists(PK)' } });
        parts.push('other');
      }
      if (credit) {
        items.push(
          ...(balanceWrites(TableName, {
            merchantId: payment.merchant_id,
            livemode: payment.livemode,
            ...credit,
            reason: 'payment',
            objectId: payment.payment_id,
            at: now,
          }) as TxItem[]),
        );
        parts.push('balance', 'balance');
      }
      await transact(items, parts);
      return events;
    },

    async transitionSession({ session, to, payment, events, now }) {
      const TableName = tableName();
      const condition =
        to === 'expired' ? '#status IN (:pending, :processing) AND expires_at <= :now' : '#status IN (:pending, :processing)';
      const items: TxItem[] = [
        {
          Update: {
            TableName,
            Key: keys.session(session.session_id),
            UpdateExpression: `SET #status = :to, updated_at = :now${payment ? ', payment_status = :pto' : ''} REMOVE GSI2PK, GSI2SK`,
            ConditionExpression: condition,
            ExpressionAttributeNames: { '#status': 'status' },
            ExpressionAttributeValues: {
              ':to': to,
              ':now': now,
              ':pending': 'pending',
              ':processing': 'processing',
              ...(payment ? { ':pto': payment.to } : {}),
            },
          },
        },
      ];
      const parts: TxPart[] = ['session'];
      if (payment) {
        items.push({
          Update: {
            TableName,
            Key: keys.payment(payment.payment.payment_id),
            UpdateExpression: 'SET #status = :to, updated_at = :now REMOVE GSI2PK, GSI2SK',
            ConditionExpression: `#status IN (${OPEN.join(', ')})`,
            ExpressionAttributeNames: { '#status': 'status' },
            ExpressionAttributeValues: { ':to': payment.to, ':now': now, ...OPEN_VALUES },
          },
        });
        parts.push('payment');
      }
      for (const e of events) {
        items.push({ Put: { TableName, Item: eventItem(e), ConditionExpression: 'attribute_not_exists(PK)' } });
        parts.push('other');
      }
      await transact(items, parts);
      return events;
    },

    async dueForExpiry(now, limit) {
      const pks = await dueInWorkIndex(db, tableName(), keys.expiryPartition, now, limit, 'PK');
      return pks.map((pk) => {
        const [kind, id] = pk.split('#') as [string, string];
        return { kind: kind === 'SESSION' ? ('session' as const) : ('payment' as const), id };
      });
    },
  };
}
