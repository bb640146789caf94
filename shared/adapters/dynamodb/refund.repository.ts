/** Refunds with their payment reservation, balance movement and events: every change one conditional transaction. */
import { GetCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { RefundStore } from '../../application/ports';
import type { Refund } from '../../domain/refunds/refund';
import { objectMovement } from './entities/balance.entity';
import { eventEntity } from './entities/event.entity';
import { idempotencyRecordEntity } from './entities/idempotency-record.entity';
import { paymentEntity } from './entities/payment.entity';
import { refundEntity } from './entities/refund.entity';
import { sessionEntity } from './entities/session.entity';
import { INDEX, stripKeys } from './keys';
import { fetchItems } from './listing';
import { queryAll } from './query-all';
import { claimSend, releaseSend } from './send-claim';
import { commitDebit, ledgerFolder } from './ledger-fold';
import { transaction } from './transact';

export function refundRepository(db: DynamoDBDocumentClient, tableName: () => string): RefundStore {
  /** The refund's amount leaving (debit) or coming back to (credit) the balance, with its ledger entry. */
  const movement = (TableName: string, r: Refund, sign: 1 | -1, entryId: string, reason: string, at: string) =>
    objectMovement(TableName, r, r.refund_id, sign, entryId, reason, at);

  const folder = ledgerFolder(db, tableName);

  return {
    async get(refundId) {
      const r = await db.send(new GetCommand({ TableName: tableName(), Key: refundEntity.key(refundId), ConsistentRead: true }));
      return r.Item ? stripKeys<Refund>(r.Item) : null;
    },

    async claimSend(refundId, now, leaseSeconds) {
      return claimSend(db, { TableName: tableName(), Key: refundEntity.key(refundId), status: 'pending', now, leaseSeconds });
    },

    async releaseSend(refundId, claimedAt) {
      await releaseSend(db, { TableName: tableName(), Key: refundEntity.key(refundId), claimedAt });
    },

    async listByPayment(paymentId) {
      const entries = await queryAll(db, {
        TableName: tableName(),
        IndexName: INDEX.listing,
        KeyConditionExpression: 'GSI1PK = :pk',
        ExpressionAttributeValues: { ':pk': refundEntity.ofPayment(paymentId).GSI1PK },
      });
      return (await fetchItems(db, tableName(), entries)).map((item) => stripKeys<Refund>(item));
    },

    async create({ refund, payment, events, ledgerEntryId, now, done }) {
      const TableName = tableName();
      const tx = transaction().add(
        refundEntity.create(TableName, refund),
        paymentEntity.reserveRefund(TableName, payment.payment_id, refund.amount_minor, payment.amount_minor, now),
        ...movement(TableName, refund, -1, ledgerEntryId, 'refund', now),
        ...eventEntity.puts(TableName, events),
        // Last, so a refund, payment or balance condition that fails with it is the one named.
        done && idempotencyRecordEntity.done(TableName, done),
      );
      await commitDebit(tx, db, folder, refund);
      return events;
    },

    async settle({ refund, to, patch, payment, fullyRefunded, session, events, creditEntryId, now }) {
      const TableName = tableName();
      await transaction()
        .add(
          session && sessionEntity.link(TableName, session, payment.payment_id, 'refunded', now),
          refundEntity.transition(TableName, refund, to, patch, now),
          to === 'succeeded'
            ? paymentEntity.settleRefund(TableName, payment, refund.amount_minor, fullyRefunded, now)
            : paymentEntity.releaseRefund(TableName, payment.payment_id, refund.amount_minor, now),
          ...(to === 'failed' && creditEntryId ? movement(TableName, refund, 1, creditEntryId, 'refund_failed', now) : []),
          ...eventEntity.puts(TableName, events),
        )
        .commit(db);
      return events;
    },
  };
}
