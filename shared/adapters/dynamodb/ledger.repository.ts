/**
 * Ledger entries of one merchant, mode and currency, newest first. A merchant's ledger is spread over
 * LEDGER_SHARDS partitions (entities/balance.entity.ts); a page reads every shard's newest entries in the range
 * and merges them by position (created_at#entry_id), which orders entries the same way in every shard.
 */
import { QueryCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { LedgerReader } from '../../application/balance';
import type { LedgerEntry } from '../../domain/ledger';
import { LEDGER_SHARDS, ledgerEntryEntity } from './entities/balance.entity';
import { queryAll } from './query-all';

const SHARDS = Array.from({ length: LEDGER_SHARDS }, (_, s) => s);

export function ledgerRepository(db: DynamoDBDocumentClient, tableName: () => string): LedgerReader {
  /** Sort-key bounds of one currency's ledger, narrowed by dates and by a position to read below. */
  const range = (mode: string, currency: string, q: { before?: string; from?: string; to?: string }) => {
    const prefix = ledgerEntryEntity.prefix(mode, currency);
    const upper = [q.before ? `${prefix}${q.before}` : null, q.to ? `${prefix}${q.to}~` : null].filter((v): v is string => !!v).sort()[0];
    return {
      lo: q.from ? `${prefix}${q.from}` : prefix,
      hi: upper ?? `${prefix}~`,
      exclusiveHi: !!q.before && upper === `${prefix}${q.before}`,
    };
  };

  return {
    async entries(merchantId, mode, currency, q) {
      const { lo, hi, exclusiveHi } = range(mode, currency, q);
      if (hi < lo) return { items: [], more: false };
      const prefix = ledgerEntryEntity.prefix(mode, currency);
      const pages = await Promise.all(
        SHARDS.map((shard) =>
          db.send(
            new QueryCommand({
              TableName: tableName(),
              KeyConditionExpression: 'PK = :pk AND SK BETWEEN :lo AND :hi',
              ExpressionAttributeValues: { ':pk': ledgerEntryEntity.partition(merchantId, shard), ':lo': lo, ':hi': hi },
              ScanIndexForward: false,
              ConsistentRead: true,
              Limit: q.limit + 2,
            }),
          ),
        ),
      );
      const items: LedgerEntry[] = pages
        .flatMap((r) => r.Items ?? [])
        .filter((i) => !(exclusiveHi && i.SK === hi))
        .sort((a, b) => (String(a.SK) < String(b.SK) ? 1 : -1))
        .map((i) => ({
          entry_id: String(i.entry_id),
          currency: String(i.currency),
          amount_minor: Number(i.amount_minor),
          reason: String(i.reason),
          object_id: String(i.object_id),
          created_at: String(i.created_at),
          position: String(i.SK).slice(prefix.length),
        }));
      // A shard that stopped at its Limit may hold entries older than the last one shown: more pages follow.
      return { items: items.slice(0, q.limit), more: items.length > q.limit || pages.some((r) => !!r.LastEvaluatedKey) };
    },

    async sumAfter(merchantId, mode, currency, after) {
      const prefix = ledgerEntryEntity.prefix(mode, currency);
      const pages = await Promise.all(
        SHARDS.map((shard) =>
          queryAll(db, {
            TableName: tableName(),
            KeyConditionExpression: 'PK = :pk AND SK BETWEEN :after AND :end',
            ExpressionAttributeValues: {
              ':pk': ledgerEntryEntity.partition(merchantId, shard),
              ':after': `${prefix}${after}~`,
              ':end': `${prefix}~`,
            },
            ProjectionExpression: 'amount_minor',
            ConsistentRead: true,
          }),
        ),
      );
      return pages.flat().reduce((sum, i) => sum + Number(i.amount_minor), 0);
    },
  };
}
