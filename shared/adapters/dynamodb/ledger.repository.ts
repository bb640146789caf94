/** Ledger entries of one merchant, mode and currency, read by sort key (created_at#entry_id) newest first. */
import { QueryCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { LedgerReader } from '../../application/ledger-ports';
import type { LedgerEntry } from '../../domain/ledger';
import { ledgerEntryEntity } from './entities/balance.entity';
import { merchantEntity } from './entities/merchant.entity';

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
      const r = await db.send(
        new QueryCommand({
          TableName: tableName(),
          KeyConditionExpression: 'PK = :pk AND SK BETWEEN :lo AND :hi',
          ExpressionAttributeValues: { ':pk': merchantEntity.key(merchantId).PK, ':lo': lo, ':hi': hi },
          ScanIndexForward: false,
          ConsistentRead: true,
          Limit: q.limit + 2,
        }),
      );
      const prefix = ledgerEntryEntity.prefix(mode, currency);
      const items: LedgerEntry[] = (r.Items ?? [])
        .filter((i) => !(exclusiveHi && i.SK === hi))
        .map((i) => ({
          entry_id: String(i.entry_id),
          currency: String(i.currency),
          amount_minor: Number(i.amount_minor),
          reason: String(i.reason),
          object_id: String(i.object_id),
          created_at: String(i.created_at),
          position: String(i.SK).slice(prefix.length),
        }));
      return { items: items.slice(0, q.limit), more: items.length > q.limit || !!r.LastEvaluatedKey };
    },

    async sumAfter(merchantId, mode, currency, after) {
      const prefix = ledgerEntryEntity.prefix(mode, currency);
      let sum = 0;
      let ExclusiveStartKey: Record<string, unknown> | undefined;
      do {
        const r = await db.send(
          new QueryCommand({
            TableName: tableName(),
            KeyConditionExpression: 'PK = :pk AND SK BETWEEN :after AND :end',
            ExpressionAttributeValues: { ':pk': merchantEntity.key(merchantId).PK, ':after': `${prefix}${after}~`, ':end': `${prefix}~` },
            ProjectionExpression: 'amount_minor',
            ConsistentRead: true,
            ExclusiveStartKey,
          }),
        );
        for (const i of r.Items ?? []) sum += Number(i.amount_minor);
        ExclusiveStartKey = r.LastEvaluatedKey;
      } while (ExclusiveStartKey);
      return sum;
    },
  };
}
