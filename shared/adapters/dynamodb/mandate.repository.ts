/** Mandates and their charges: every change one conditional transaction (DESIGN.md 9.3). */
import { GetCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { MandateStore } from '../../application/ports';
import type { Mandate } from '../../domain/mandates/mandate';
import { balanceMovement } from './entities/balance.entity';
import { eventEntity } from './entities/event.entity';
import { idempotencyRecordEntity } from './entities/idempotency-record.entity';
import { mandateEntity, mandateWatchPartition } from './entities/mandate.entity';
import { paymentEntity } from './entities/payment.entity';
import { indexKeys, stripKeys } from './keys';
import { listOfKind } from './listing';
import { transaction } from './transact';
import { dueInWorkIndex } from './work-index';

export function mandateRepository(db: DynamoDBDocumentClient, tableName: () => string): MandateStore {
  return {
    async create({ mandate, events, done }) {
      const TableName = tableName();
      await transaction()
        .add(
          mandateEntity.create(TableName, mandate),
          ...eventEntity.puts(TableName, events),
          done && idempotencyRecordEntity.done(TableName, done),
        )
        .commit(db);
      return events;
    },

    async get(mandateId) {
      const r = await db.send(new GetCommand({ TableName: tableName(), Key: mandateEntity.key(mandateId), ConsistentRead: true }));
      return r.Item ? stripKeys<Mandate>(r.Item) : null;
    },

    async transition({ mandate, to, patch, events, now, done }) {
      const TableName = tableName();
      const learned = patch.provider?.provider_mandate_id;
      await transaction()
        .add(
          mandateEntity.transition(TableName, mandate, to, patch, now),
          // The provider's id learned now: kept beside the mandate, so its callbacks find it.
          Boolean(learned) &&
            learned !== mandate.provider?.provider_mandate_id &&
            mandateEntity.link(TableName, patch.provider!.name, learned!, mandate.mandate_id),
          ...eventEntity.puts(TableName, events),
          done && idempotencyRecordEntity.done(TableName, done),
        )
        .commit(db);
      return events;
    },

    async createCharge({ payment, cycle, replaces, maxCharges, events, credit, now, done }) {
      const TableName = tableName();
      const mandateId = payment.mandate_id ?? '';
      await transaction()
        .add(
          mandateEntity.charged(TableName, mandateId, now),
          mandateEntity.claimCycle(TableName, mandateId, cycle, payment.payment_id, replaces, now, maxCharges),
          paymentEntity.create(TableName, payment),
          ...eventEntity.puts(TableName, events),
          ...(credit
            ? balanceMovement(TableName, {
                merchantId: payment.merchant_id,
                livemode: payment.livemode,
                ...credit,
                reason: 'payment',
                objectId: payment.payment_id,
                at: now,
              })
            : []),
          done && idempotencyRecordEntity.done(TableName, done),
        )
        .commit(db);
      return events;
    },

    async cycleCharge(mandateId, cycle) {
      const r = await db.send(
        new GetCommand({ TableName: tableName(), Key: mandateEntity.cycleKey(mandateId, cycle), ConsistentRead: true }),
      );
      return typeof r.Item?.payment_id === 'string' ? r.Item.payment_id : null;
    },

    async mandateOfProvider(provider, id) {
      const r = await db.send(
        new GetCommand({ TableName: tableName(), Key: mandateEntity.providerKey(provider, id), ConsistentRead: true }),
      );
      return typeof r.Item?.mandate_id === 'string' ? r.Item.mandate_id : null;
    },

    dueForCheck: (now, limit) => dueInWorkIndex(db, tableName(), mandateWatchPartition, now, limit, 'mandate_id'),

    async list(merchantId, md, q) {
      const after = q.startingAfter;
      return listOfKind(
        db,
        tableName(),
        {
          pk: indexKeys.listing(merchantId, md, 'MANDATE').GSI1PK,
          from: q.from,
          to: q.to,
          status: q.status,
          limit: q.limit,
          offset: q.offset,
        },
        after && { key: mandateEntity.key(after.mandate_id), createdAt: after.created_at, id: after.mandate_id },
        (i) => stripKeys<Mandate>(i),
      );
    },
  };
}
