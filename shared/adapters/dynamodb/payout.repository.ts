/** Payouts with their balance, ledger, event and counters: every change one conditional transaction. */
import { GetCommand, QueryCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { BalanceView, PayoutStore } from '../../application/payout-ports';
import { RETURNS_FUNDS, type Payout } from '../../domain/payouts/payout';
import { balanceWrites, eventItem } from './payment.items';
import { envelope, keys, stripKeys } from './keys';
import { transact as transactItems, type TxItem, type TxPart } from './transact';
import { modeOf } from '../../domain/access';

export function payoutItem(p: Payout) {
  return {
    ...keys.payout(p.payout_id),
    ...keys.listing(p.merchant_id, modeOf(p.livemode), 'PAYOUT', p.created_at, p.payout_id),
    ...envelope('payout'),
    ...p,
  };
}

export function payoutRepository(db: DynamoDBDocumentClient, tableName: () => string): PayoutStore {
  const transact = (items: TxItem[], parts: TxPart[]) => transactItems(db, items, parts);

  const counters = (p: Payout, changes: Record<string, number>, now: string): TxItem => {
    const names: Record<string, string> = {};
    const values: Record<string, unknown> = {
      ':now': now,
      ':entity': envelope('payoutCounters').entity,
      ':version': envelope('payoutCounters').version,
    };
    const adds = Object.entries(changes).map(([field, n], i) => {
      names[`#c${i}`] = field;
      values[`:c${i}`] = n;
      return `#c${i} :c${i}`;
    });
    return {
      Update: {
        TableName: tableName(),
        Key: keys.payoutCounters(p.merchant_id, modeOf(p.livemode)),
        UpdateExpression: `ADD ${adds.join(', ')} SET updated_at = :now, entity = :entity, version = :version`,
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: values,
      },
    };
  };

  const eventPuts = (events: Parameters<PayoutStore['create']>[0]['events']): TxItem[] =>
    events.map((e) => ({ Put: { TableName: tableName(), Item: eventItem(e), ConditionExpression: 'attribute_not_exists(PK)' } }));

  return {
    async create({ payout, events, ledgerEntryId, now }) {
      const TableName = tableName();
      const items: TxItem[] = [
        { Put: { TableName, Item: payoutItem(payout), ConditionExpression: 'attribute_not_exists(PK)' } },
        ...(balanceWrites(TableName, {
          merchantId: payout.merchant_id,
          livemode: payout.livemode,
          currency: payout.currency,
          amountMinor: -payout.amount_minor,
          entryId: ledgerEntryId,
          reason: 'payout',
          objectId: payout.payout_id,
          at: now,
        }) as TxItem[]),
        ...eventPuts(events),
        counters(payout, { total: 1, [payout.status]: 1 }, now),
      ];
      await transact(items, ['payment', 'balance', 'balance', ...events.map(() => 'other' as const), 'other']);
      return events;
    },

    async get(payoutId) {
      const r = await db.send(new GetCommand({ TableName: tableName(), Key: keys.payout(payoutId), ConsistentRead: true }));
      return r.Item ? stripKeys<Payout>(r.Item) : null;
    },

    async transition({ payout, to, patch, events, creditEntryId, now }) {
      const TableName = tableName();
      const set: Record<string, unknown> = { ...patch, status: to, updated_at: now };
      const names: Record<string, string> = { '#status': 'status' };
      const values: Record<string, unknown> = { ':from': payout.status };
      const assignments = Object.entries(set).map(([k, v], i) => {
        names[`#f${i}`] = k;
        values[`:v${i}`] = v;
        return `#f${i} = :v${i}`;
      });
      const items: TxItem[] = [
        {
          Update: {
            TableName,
            Key: keys.payout(payout.payout_id),
            UpdateExpression: `SET ${assignments.join(', ')}`,
            ConditionExpression: '#status = :from',
            ExpressionAttributeNames: names,
            ExpressionAttributeValues: values,
          },
        },
        ...eventPuts(events),
        counters(payout, { [payout.status]: -1, [to]: 1 }, now),
      ];
      const parts: TxPart[] = ['payment', ...events.map(() => 'other' as const), 'other'];
      if (RETURNS_FUNDS.has(to) && creditEntryId) {
        items.push(
          ...(balanceWrites(TableName, {
            merchantId: payout.merchant_id,
            livemode: payout.livemode,
            currency: payout.currency,
            amountMinor: payout.amount_minor,
            entryId: creditEntryId,
            reason: `payout_${to}`,
            objectId: payout.payout_id,
            at: now,
          }) as TxItem[]),
        );
        parts.push('balance', 'balance');
      }
      await transact(items, parts);
      return events;
    },

    async list(merchantId, md, q) {
      const pk = keys.listing(merchantId, md, 'PAYOUT').GSI1PK;
      const range = q.from || q.to;
      const key = range ? 'GSI1PK = :pk AND GSI1SK BETWEEN :from AND :to' : 'GSI1PK = :pk';
      const values: Record<string, unknown> = { ':pk': pk, ...(range ? { ':from': q.from ?? '0000', ':to': `${q.to ?? '9999'}#~` } : {}) };
      const filter = q.status ? { FilterExpression: '#status = :status', ExpressionAttributeNames: { '#status': 'status' } } : {};
      if (q.status) values[':status'] = q.status;
      const base = {
        TableName: tableName(),
        IndexName: 'GSI1',
        KeyConditionExpression: key,
        ExpressionAttributeValues: values,
        ScanIndexForward: false,
        ...filter,
      };

      // Total: the counters item when no date range applies; a COUNT query over the key range otherwise.
      let total: number;
      if (!range) {
        const c = await db.send(new GetCommand({ TableName: tableName(), Key: keys.payoutCounters(merchantId, md) }));
        total = Number(c.Item?.[q.status ?? 'total'] ?? 0);
      } else {
        total = 0;
        let start: Record<string, unknown> | undefined;
        do {
          const r = await db.send(new QueryCommand({ ...base, Select: 'COUNT', ExclusiveStartKey: start }));
          total += r.Count ?? 0;
          start = r.LastEvaluatedKey;
        } while (start);
      }

      // Page: skip `offset` matching items reading keys only, then read `limit` items.
      const items: Payout[] = [];
      let skipped = 0;
      let start: Record<string, unknown> | undefined;
      do {
        const skipping = skipped < q.offset;
        const r = await db.send(
          new QueryCommand({
            ...base,
            ExclusiveStartKey: start,
            Limit: skipping ? Math.min(1000, q.offset - skipped + q.limit) : q.limit - items.length,
          }),
        );
        for (const item of r.Items ?? []) {
          if (skipped < q.offset) skipped++;
          else if (items.length < q.limit) items.push(stripKeys<Payout>(item));
        }
        start = r.LastEvaluatedKey;
      } while (start && items.length < q.limit);
      return { items, total };
    },

    async balances(merchantId, md) {
      const r = await db.send(
        new QueryCommand({
          TableName: tableName(),
          KeyConditionExpression: 'PK = :pk AND begins_with(SK, :sk)',
          ExpressionAttributeValues: { ':pk': keys.merchant(merchantId).PK, ':sk': keys.balancePrefix(md) },
          ConsistentRead: true,
        }),
      );
      return (r.Items ?? []).map((i): BalanceView => ({
        currency: String(i.currency),
        available_minor: Number(i.available_minor ?? 0),
        updated_at: (i.updated_at as string) ?? null,
      }));
    },

    async topUp({ merchantId, livemode, currency, amountMinor, entryId, reason, now }) {
      await transact(
        balanceWrites(tableName(), {
          merchantId,
          livemode,
          currency,
          amountMinor,
          entryId,
          reason,
          objectId: merchantId,
          at: now,
        }) as TxItem[],
        ['balance', 'balance'],
      );
    },
  };
}
