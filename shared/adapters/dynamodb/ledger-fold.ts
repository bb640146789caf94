/**
 * The fold: pending credits into their balance items, in batches (one transaction per balance and up to 99
 * credits: the balance ADD and the conditional delete of each pending credit), so a credit is counted exactly
 * once whoever folds it (the stream worker, the sweep, a balance read, a debit the balance refused). A pending
 * credit already deleted fails its condition; the batch is re-read and committed without it.
 */
import { BatchGetCommand, QueryCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { WriteConflict } from '../../application/ports';
import type { LedgerFolder, PendingCredit } from '../../application/balance';
import { modeOf, type Mode } from '../../domain/access';
import { balanceUpdate, FOLD_SHARDS, pendingCreditEntity } from './entities/balance.entity';
import { queryAll } from './query-all';
import { transaction, type Transaction } from './transact';

/** TransactWriteItems takes 100 items: the balance update and 99 deletes. */
const PER_TRANSACTION = 99;
const ATTEMPTS = 5;

const keyOf = (c: PendingCredit) => pendingCreditEntity.key(c.merchant_id, c.mode, c.currency, c.created_at, c.entry_id);

export function toPendingCredit(item: Record<string, unknown>): PendingCredit {
  return {
    merchant_id: String(item.merchant_id),
    mode: String(item.mode) as Mode,
    currency: String(item.currency),
    amount_minor: Number(item.amount_minor),
    entry_id: String(item.entry_id),
    created_at: String(item.created_at),
  };
}

export function ledgerFolder(db: DynamoDBDocumentClient, tableName: () => string): LedgerFolder {
  /** The credits of a batch whose pending item still exists (consistent reads). */
  async function stillPending(TableName: string, credits: readonly PendingCredit[]): Promise<PendingCredit[]> {
    const found = new Set<string>();
    let keys: Record<string, unknown>[] = credits.map(keyOf);
    while (keys.length > 0) {
      const r = await db.send(
        new BatchGetCommand({ RequestItems: { [TableName]: { Keys: keys, ConsistentRead: true, ProjectionExpression: 'entry_id' } } }),
      );
      for (const i of r.Responses?.[TableName] ?? []) found.add(String(i.entry_id));
      keys = (r.UnprocessedKeys?.[TableName]?.Keys as Record<string, unknown>[] | undefined) ?? [];
    }
    return credits.filter((c) => found.has(c.entry_id));
  }

  /** One balance's credits (at most PER_TRANSACTION), folded in one transaction; returns how many were added. */
  async function foldBatch(TableName: string, batch: readonly PendingCredit[]): Promise<number> {
    let left = [...batch];
    for (let attempt = 1; left.length > 0; attempt++) {
      const first = left[0]!;
      const amountMinor = left.reduce((s, c) => s + c.amount_minor, 0);
      const at = left.reduce((m, c) => (c.created_at > m ? c.created_at : m), first.created_at);
      try {
        await transaction()
          .add(
            {
              entity: 'balance',
              write: balanceUpdate(TableName, {
                merchantId: first.merchant_id,
                mode: first.mode,
                currency: first.currency,
                amountMinor,
                at,
              }),
            },
            ...left.map((c) => ({
              entity: 'pending_credit' as const,
              write: { Delete: { TableName, Key: keyOf(c), ConditionExpression: 'attribute_exists(PK)' } },
            })),
          )
          .commit(db);
        return left.length;
      } catch (e) {
        if (!(e instanceof WriteConflict) || e.entity !== 'pending_credit' || attempt >= ATTEMPTS) throw e;
        left = await stillPending(TableName, left); // someone else folded some of them: fold the rest
      }
    }
    return 0;
  }

  async function fold(credits: readonly PendingCredit[]): Promise<number> {
    const TableName = tableName();
    const groups = new Map<string, PendingCredit[]>();
    const seen = new Set<string>();
    for (const c of credits) {
      if (seen.has(c.entry_id)) continue; // a stream may deliver a record twice
      seen.add(c.entry_id);
      const g = `${c.merchant_id}#${c.mode}#${c.currency}`;
      const group = groups.get(g);
      if (group) group.push(c);
      else groups.set(g, [c]);
    }
    let folded = 0;
    for (const group of groups.values()) {
      for (let i = 0; i < group.length; i += PER_TRANSACTION) folded += await foldBatch(TableName, group.slice(i, i + PER_TRANSACTION));
    }
    return folded;
  }

  const shards = Array.from({ length: FOLD_SHARDS }, (_, s) => pendingCreditEntity.partition(s));

  return {
    fold,

    async foldMerchant(merchantId, mode, currency) {
      const prefix = pendingCreditEntity.prefix(merchantId, mode, currency);
      const pages = await Promise.all(
        shards.map((pk) =>
          queryAll(db, {
            TableName: tableName(),
            KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
            ExpressionAttributeValues: { ':pk': pk, ':prefix': prefix },
            ConsistentRead: true,
          }),
        ),
      );
      const credits = pages.flat().map(toPendingCredit);
      return credits.length > 0 ? fold(credits) : 0;
    },

    async sweep(before, limit) {
      const due: PendingCredit[] = [];
      let more = false;
      for (const pk of shards) {
        const r = await db.send(
          new QueryCommand({
            TableName: tableName(),
            KeyConditionExpression: 'PK = :pk',
            FilterExpression: 'created_at < :before',
            ExpressionAttributeValues: { ':pk': pk, ':before': before },
            ConsistentRead: true,
            Limit: limit,
          }),
        );
        due.push(...(r.Items ?? []).map(toPendingCredit));
        if (r.LastEvaluatedKey) more = true;
        if (due.length >= limit) {
          more = true;
          break;
        }
      }
      return { folded: due.length > 0 ? await fold(due.slice(0, limit)) : 0, more };
    },
  };
}

/**
 * Commits a transaction that debits a balance. When the balance refuses it (WriteConflict('balance')), the
 * merchant's pending credits in that currency are folded and the same transaction is committed once more: a
 * payout or refund made right after the payments that fund it sees them, as it did when credits were immediate.
 */
export async function commitDebit(
  tx: Transaction,
  db: DynamoDBDocumentClient,
  folder: LedgerFolder,
  o: { merchant_id: string; livemode: boolean; currency: string },
): Promise<void> {
  try {
    await tx.commit(db);
  } catch (e) {
    if (!(e instanceof WriteConflict) || e.entity !== 'balance') throw e;
    // When this returns, every credit pending at its read is in the balance, folded here or by a concurrent
    // fold that committed first (a delete that finds its pending credit gone means the other fold committed).
    await folder.foldMerchant(o.merchant_id, modeOf(o.livemode), o.currency);
    await tx.commit(db);
  }
}
