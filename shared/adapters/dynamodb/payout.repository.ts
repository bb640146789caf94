/** Payouts with their balance, ledger, event and counters: every change one conditional transaction. */
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { GetCommand, PutCommand, QueryCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { WriteConflict, type BalanceView, type PayoutStore } from '../../application/ports';
import { modeOf } from '../../domain/access';
import { RETURNS_FUNDS, type Payout } from '../../domain/payouts/payout';
import { balanceEntity, balanceMovement, balanceUpdate, objectMovement } from './entities/balance.entity';
import { eventEntity } from './entities/event.entity';
import { idempotencyRecordEntity } from './entities/idempotency-record.entity';
import { merchantEntity } from './entities/merchant.entity';
import { payoutCountersEntity, payoutEntity } from './entities/payout.entity';
import { providerOrderEntity } from './entities/provider-order.entity';
import { indexKeys, stripKeys } from './keys';
import { commitDebit, ledgerFolder } from './ledger-fold';
import { countListing, listedAfter, pageOfListing } from './listing';
import { queryAll } from './query-all';
import { claimSend, releaseSend } from './send-claim';
import { transaction } from './transact';

export function payoutRepository(db: DynamoDBDocumentClient, tableName: () => string): PayoutStore {
  /** The payout's amount moving out of (debit) or back into (credit) the balance, with its ledger entry. */
  const movement = (TableName: string, p: Payout, sign: 1 | -1, entryId: string, reason: string, at: string) =>
    objectMovement(TableName, p, p.payout_id, sign, entryId, reason, at);

  const folder = ledgerFolder(db, tableName);

  return {
    async create({ payout, events, ledgerEntryId, now, done }) {
      const TableName = tableName();
      const tx = transaction().add(
        payoutEntity.create(TableName, payout),
        ...movement(TableName, payout, -1, ledgerEntryId, 'payout', now),
        ...eventEntity.puts(TableName, events),
        payoutCountersEntity.change(TableName, payout, { total: 1, [payout.status]: 1 }, now),
        // Last, so a payout or balance condition that fails with it is the one named.
        done && idempotencyRecordEntity.done(TableName, done),
      );
      await commitDebit(tx, db, folder, payout);
      return events;
    },

    async createMany({ payouts, now, done }) {
      const TableName = tableName();
      const [first] = payouts;
      if (!first) return [];
      const total = payouts.reduce((sum, { payout }) => sum + payout.amount_minor, 0);
      const counts: Record<string, number> = { total: payouts.length };
      for (const { payout } of payouts) counts[payout.status] = (counts[payout.status] ?? 0) + 1;
      const tx = transaction().add(
        // The balance item once, for the chunk's sum: the hot item a merchant's payouts contend for.
        {
          entity: 'balance',
          write: balanceUpdate(TableName, {
            merchantId: first.payout.merchant_id,
            mode: modeOf(first.payout.livemode),
            currency: first.payout.currency,
            amountMinor: -total,
            at: now,
          }),
        },
        ...payouts.flatMap(({ payout, events, ledgerEntryId }) => [
          payoutEntity.create(TableName, payout),
          ...movement(TableName, payout, -1, ledgerEntryId, 'payout', now).filter((w) => w.entity !== 'balance'),
          ...eventEntity.puts(TableName, events),
        ]),
        payoutCountersEntity.change(TableName, first.payout, counts, now),
        done && idempotencyRecordEntity.done(TableName, done),
      );
      await commitDebit(tx, db, folder, first.payout);
      return payouts.flatMap((p) => p.events);
    },

    async get(payoutId) {
      const r = await db.send(new GetCommand({ TableName: tableName(), Key: payoutEntity.key(payoutId), ConsistentRead: true }));
      return r.Item ? stripKeys<Payout>(r.Item) : null;
    },

    async transition({ payout, to, patch, events, creditEntryId, now, done }) {
      const TableName = tableName();
      await transaction()
        .add(
          payoutEntity.transition(TableName, payout, to, patch, now),
          ...eventEntity.puts(TableName, events),
          payoutCountersEntity.change(TableName, payout, { [payout.status]: -1, [to]: 1 }, now),
          ...(RETURNS_FUNDS.has(to) && creditEntryId ? movement(TableName, payout, 1, creditEntryId, `payout_${to}`, now) : []),
          done && idempotencyRecordEntity.done(TableName, done),
        )
        .commit(db);
      return events;
    },

    async rewatch({ payout, next, now }) {
      await transaction()
        .add(payoutEntity.rewatch(tableName(), payout, next, now))
        .commit(db);
    },

    async claimSend({ payoutId, now, leaseSeconds }) {
      return claimSend(db, { TableName: tableName(), Key: payoutEntity.key(payoutId), status: 'processing', now, leaseSeconds });
    },

    async releaseSend({ payoutId, claimedAt }) {
      await releaseSend(db, { TableName: tableName(), Key: payoutEntity.key(payoutId), claimedAt });
    },

    async switchAttempt({ payout, ended, next, now }) {
      await transaction()
        .add(payoutEntity.switchAttempt(tableName(), payout, ended, next, now))
        .commit(db);
    },

    async annotate({ payout, provider, now }) {
      await transaction()
        .add(payoutEntity.annotate(tableName(), payout, provider, now))
        .commit(db);
    },

    async linkOrder({ provider, orderId, payoutId, now }) {
      try {
        await db.send(
          new PutCommand({
            TableName: tableName(),
            Item: providerOrderEntity.item(provider, orderId, payoutId, now),
            ConditionExpression: 'attribute_not_exists(PK) OR payout_id = :id',
            ExpressionAttributeValues: { ':id': payoutId },
          }),
        );
      } catch (e) {
        if (e instanceof ConditionalCheckFailedException) throw new WriteConflict('payout');
        throw e;
      }
    },

    async payoutOfOrder(provider, orderId) {
      const Key = providerOrderEntity.key(provider, orderId);
      const r = await db.send(new GetCommand({ TableName: tableName(), Key, ConsistentRead: true }));
      return typeof r.Item?.payout_id === 'string' ? r.Item.payout_id : null;
    },

    async list(merchantId, md, q) {
      const filter = { pk: indexKeys.listing(merchantId, md, 'PAYOUT').GSI1PK, from: q.from, to: q.to, status: q.status };
      // Total: the counters item when no date range applies; over the key range otherwise.
      let total: number;
      if (!q.from && !q.to) {
        const shards = await queryAll(db, {
          TableName: tableName(),
          KeyConditionExpression: 'PK = :pk AND begins_with(SK, :sk)',
          ExpressionAttributeValues: { ':pk': merchantEntity.key(merchantId).PK, ':sk': payoutCountersEntity.prefix(md) },
        });
        total = shards.reduce((sum, c) => sum + Number(c[q.status ?? 'total'] ?? 0), 0);
      } else total = await countListing(db, tableName(), filter);
      const after = q.startingAfter;
      const page = await pageOfListing(db, tableName(), {
        ...filter,
        limit: q.limit,
        offset: q.offset,
        ...(after ? listedAfter(payoutEntity.key(after.payout_id), after.created_at, after.payout_id) : {}),
      });
      return { items: page.items.map((i) => stripKeys<Payout>(i)), total, more: page.more };
    },

    async balances(merchantId, md) {
      await folder.foldMerchant(merchantId, md); // credits still pending count as available: fold them first
      const r = await db.send(
        new QueryCommand({
          TableName: tableName(),
          KeyConditionExpression: 'PK = :pk AND begins_with(SK, :sk)',
          ExpressionAttributeValues: { ':pk': merchantEntity.key(merchantId).PK, ':sk': balanceEntity.prefix(md) },
          ConsistentRead: true,
        }),
      );
      return (r.Items ?? []).map((i): BalanceView => ({
        currency: String(i.currency),
        available_minor: Number(i.available_minor ?? 0),
        updated_at: (i.updated_at as string) ?? null,
      }));
    },

    async topUp({ merchantId, livemode, currency, amountMinor, entryId, reason, now, done }) {
      await transaction()
        .add(
          ...balanceMovement(
            tableName(),
            { merchantId, livemode, currency, amountMinor, entryId, reason, objectId: merchantId, at: now },
            { immediate: true },
          ),
          done && idempotencyRecordEntity.done(tableName(), done),
        )
        .commit(db);
    },
  };
}
