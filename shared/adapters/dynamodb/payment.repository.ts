/** Sessions and payments: every change a conditional write, every invariant one transaction. */
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { GetCommand, PutCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { WriteConflict, type Credit, type PaymentStore } from '../../application/ports';
import type { Payment } from '../../domain/payments/payment';
import type { CheckoutSession } from '../../domain/payments/session';
import { balanceMovement } from './entities/balance.entity';
import { eventEntity } from './entities/event.entity';
import { idempotencyRecordEntity } from './entities/idempotency-record.entity';
import { paymentEntity } from './entities/payment.entity';
import { sessionEntity } from './entities/session.entity';
import { indexKeys, REMOVE_FROM_WORK_INDEX, stripKeys } from './keys';
import { attemptWatchEntity } from './entities/attempt-watch.entity';
import type { AttemptWatch } from '../../domain/payments/attempt-watch';
import { TABLE } from '../../manifest/table';
import { transaction } from './transact';
import { disputeEntity } from './entities/dispute.entity';
import { getDisputeCase } from './dispute.repository';
import { dueInWorkIndex, oldestInWorkIndex } from './work-index';

export function paymentRepository(db: DynamoDBDocumentClient, tableName: () => string): PaymentStore {
  /** A successful payment credits the merchant's balance with a ledger entry, in the same transaction. */
  const credit = (TableName: string, payment: Payment, c: Credit | undefined, now: string) =>
    c
      ? balanceMovement(TableName, {
          merchantId: payment.merchant_id,
          livemode: payment.livemode,
          ...c,
          reason: 'payment',
          objectId: payment.payment_id,
          at: now,
        })
      : [];

  return {
    async createSession(session) {
      try {
        await db.send(
          new PutCommand({ TableName: tableName(), Item: sessionEntity.item(session), ConditionExpression: 'attribute_not_exists(PK)' }),
        );
        return 'created';
      } catch (e) {
        if (e instanceof ConditionalCheckFailedException) return 'exists';
        throw e;
      }
    },

    async getSession(id) {
      const r = await db.send(new GetCommand({ TableName: tableName(), Key: sessionEntity.key(id), ConsistentRead: true }));
      return r.Item ? stripKeys<CheckoutSession>(r.Item) : null;
    },

    async getPayment(id) {
      const r = await db.send(new GetCommand({ TableName: tableName(), Key: paymentEntity.key(id), ConsistentRead: true }));
      return r.Item ? stripKeys<Payment>(r.Item) : null;
    },

    async recordNewPayment({ payment, session, events, credit: c, now, done }) {
      const TableName = tableName();
      await transaction()
        .add(
          paymentEntity.create(TableName, payment),
          session && sessionEntity.link(TableName, session, payment.payment_id, payment.status, now),
          ...eventEntity.puts(TableName, events),
          ...credit(TableName, payment, c, now),
          // Last, so a payment or session condition that fails with it is the one named.
          done && idempotencyRecordEntity.done(TableName, done),
        )
        .commit(db);
      return events;
    },

    async transitionPayment({ payment, to, patch, session, events, credit: c, now }) {
      const TableName = tableName();
      await transaction()
        .add(
          paymentEntity.transition(TableName, payment, to, patch, now),
          session && sessionEntity.link(TableName, session, payment.payment_id, to, now),
          ...eventEntity.puts(TableName, events),
          ...credit(TableName, payment, c, now),
        )
        .commit(db);
      return events;
    },

    async disputePayment({ payment, dispute, disputeCase, movements, events, now }) {
      const TableName = tableName();
      await transaction()
        .add(
          paymentEntity.dispute(TableName, payment, dispute, now),
          disputeEntity.write(TableName, disputeCase.next, disputeCase.readRevision),
          ...movements.flatMap((m) =>
            balanceMovement(
              TableName,
              {
                merchantId: payment.merchant_id,
                livemode: payment.livemode,
                currency: payment.currency,
                objectId: payment.payment_id,
                at: now,
                ...m,
              },
              { forced: true },
            ),
          ),
          ...eventEntity.puts(TableName, events),
        )
        .commit(db);
      return events;
    },

    getDisputeCase: (disputeId) => getDisputeCase(db, tableName(), disputeId),

    async touchPayment({ payment, patch, nextCheckAt, now }) {
      const { Update } = paymentEntity.touch(tableName(), payment, patch, nextCheckAt, now).write;
      try {
        await db.send(new UpdateCommand(Update as ConstructorParameters<typeof UpdateCommand>[0]));
      } catch (e) {
        if (e instanceof ConditionalCheckFailedException) throw new WriteConflict('payment');
        throw e;
      }
    },

    async claimReadBack({ payment, now, gapSeconds }) {
      const cutoff = new Date(Date.parse(now) - gapSeconds * 1000).toISOString();
      try {
        await db.send(
          new UpdateCommand({
            TableName: tableName(),
            Key: paymentEntity.key(payment.payment_id),
            UpdateExpression: 'SET read_back_at = :now',
            ConditionExpression: '#status = :status AND (attribute_not_exists(read_back_at) OR read_back_at <= :cutoff)',
            ExpressionAttributeNames: { '#status': 'status' },
            ExpressionAttributeValues: { ':now': now, ':status': payment.status, ':cutoff': cutoff },
          }),
        );
        return true;
      } catch (e) {
        if (e instanceof ConditionalCheckFailedException) return false;
        throw e;
      }
    },

    async dueForProviderCheck(now, limit) {
      const pks = await dueInWorkIndex(db, tableName(), indexKeys.providerPartition, now, limit, 'PK');
      return pks.map((pk) => pk.slice('PAYMENT#'.length));
    },

    oldestProviderCheck: () => oldestInWorkIndex(db, tableName(), indexKeys.providerPartition),

    async switchAttempt({ payment, ended, next, watch, now }) {
      const TableName = tableName();
      await transaction()
        .add(paymentEntity.switchAttempt(TableName, payment, ended, next, now), watch && attemptWatchEntity.create(TableName, watch))
        .commit(db);
    },

    async dueAttemptWatches(now, limit) {
      const keys = await dueInWorkIndex(db, tableName(), indexKeys.attemptWatchPartition, now, limit, 'PK');
      const items = await Promise.all(
        keys.map((PK) => db.send(new GetCommand({ TableName: tableName(), Key: { PK, SK: 'ATTEMPT' }, ConsistentRead: true }))),
      );
      return items.flatMap((r) => (r.Item ? [stripKeys<AttemptWatch>(r.Item)] : []));
    },

    async moveAttemptWatch({ watch, nextCheckAt, outcome, now }) {
      const Key = attemptWatchEntity.key(watch.provider, watch.reference);
      const cond = { ConditionExpression: 'next_check_at = :read', ExpressionAttributeValues: { ':read': watch.next_check_at } };
      try {
        if (nextCheckAt === null) {
          // Ended: kept a while (the TTL removes it) without its work-index keys, with what was found.
          await db.send(
            new UpdateCommand({
              TableName: tableName(),
              Key,
              UpdateExpression: `SET next_check_at = :none, outcome = :outcome, updated_at = :now, #ttl = :ttl ${REMOVE_FROM_WORK_INDEX}`,
              ConditionExpression: cond.ConditionExpression,
              ExpressionAttributeNames: { '#ttl': TABLE.ttlAttribute },
              ExpressionAttributeValues: {
                ...cond.ExpressionAttributeValues,
                ':none': '',
                ':outcome': outcome ?? 'nothing',
                ':now': now,
                ':ttl': Math.floor(Date.parse(now) / 1000) + 90 * 86_400,
              },
            }),
          );
          return;
        }
        const idx = indexKeys.attemptWatch(watch.reference, nextCheckAt);
        await db.send(
          new UpdateCommand({
            TableName: tableName(),
            Key,
            UpdateExpression: 'SET next_check_at = :next, checks = checks + :one, GSI2PK = :pk, GSI2SK = :sk, updated_at = :now',
            ConditionExpression: cond.ConditionExpression,
            ExpressionAttributeValues: {
              ...cond.ExpressionAttributeValues,
              ':next': nextCheckAt,
              ':one': 1,
              ':pk': idx.GSI2PK,
              ':sk': idx.GSI2SK,
              ':now': now,
            },
          }),
        );
      } catch (e) {
        if (e instanceof ConditionalCheckFailedException) throw new WriteConflict('attempt_watch');
        throw e;
      }
    },

    async transitionSession({ session, to, payment, events, now, done }) {
      const TableName = tableName();
      await transaction()
        .add(
          sessionEntity.close(TableName, session, to, payment?.to, now),
          payment && paymentEntity.close(TableName, payment.payment.payment_id, payment.to, now),
          ...eventEntity.puts(TableName, events),
          done && idempotencyRecordEntity.done(TableName, done),
        )
        .commit(db);
      return events;
    },

    async dueForExpiry(now, limit) {
      const pks = await dueInWorkIndex(db, tableName(), indexKeys.expiryPartition, now, limit, 'PK');
      return pks.map((pk) => {
        const [kind, id] = pk.split('#') as [string, string];
        return { kind: kind === 'SESSION' ? ('session' as const) : ('payment' as const), id };
      });
    },
  };
}
