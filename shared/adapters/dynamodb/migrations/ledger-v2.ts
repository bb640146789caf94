/**
 * Issue 22's data change, for a stage deployed before it: ledger entries move from the merchant's partition
 * (`MERCHANT#<id>` / `LEDGER#<mode>#<currency>#<at>#<entry>`, version 1) to the sharded ledger
 * (`LEDGER#<merchant>#<shard>`, version 2), and each merchant's one payout counters item (version 1) is added
 * into shard 0 of the sharded counters. Each item moves in one transaction (the new item put, the old one
 * deleted, both conditional), so a run can stop anywhere and run again: what moved is not found again, and an
 * entry whose new item exists already (a run cut between the two) only loses its old one.
 *
 * Ops only (`npm run cli -- migrate ledger-v2`): it Scans the table, which the service never does.
 */
import { ScanCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { WriteConflict } from '../../../application/ports';
import { envelope } from '../keys';
import { ledgerEntryEntity } from '../entities/balance.entity';
import { payoutCountersEntity } from '../entities/payout.entity';
import { transaction } from '../transact';

export interface MigrationReport {
  readonly ledgerEntries: number;
  readonly counters: number;
  readonly alreadyMoved: number;
}

/** Counter fields of a version 1 counters item (everything numeric but the envelope). */
const counts = (item: Record<string, unknown>) =>
  Object.entries(item).filter(([k, v]) => typeof v === 'number' && !['version', 'ttl'].includes(k)) as Array<[string, number]>;

export async function migrateLedgerV2(
  db: DynamoDBDocumentClient,
  tableName: string,
  opts: { dryRun?: boolean } = {},
): Promise<MigrationReport> {
  let ledgerEntries = 0;
  let counters = 0;
  let alreadyMoved = 0;
  let start: Record<string, unknown> | undefined;
  do {
    const page = await db.send(
      new ScanCommand({
        TableName: tableName,
        FilterExpression: '#v = :one AND (#e = :ledger OR #e = :counters)',
        ExpressionAttributeNames: { '#v': 'version', '#e': 'entity' },
        ExpressionAttributeValues: { ':one': 1, ':ledger': ledgerEntryEntity.entity, ':counters': payoutCountersEntity.entity },
        ConsistentRead: true,
        ExclusiveStartKey: start,
      }),
    );
    for (const item of page.Items ?? []) {
      const oldKey = { PK: item.PK, SK: item.SK };
      const deleteOld = {
        entity: 'unknown' as const,
        write: { Delete: { TableName: tableName, Key: oldKey, ConditionExpression: 'attribute_exists(PK)' } },
      };
      if (item.entity === ledgerEntryEntity.entity) {
        ledgerEntries++;
        if (opts.dryRun) continue;
        const { PK: _pk, SK: _sk, entity: _e, version: _v, ...fields } = item;
        const key = ledgerEntryEntity.key(
          String(item.merchant_id),
          String(item.mode),
          String(item.currency),
          String(item.created_at),
          String(item.entry_id),
        );
        const put = {
          entity: 'ledger_entry' as const,
          write: {
            Put: {
              TableName: tableName,
              Item: { ...key, ...envelope(ledgerEntryEntity), ...fields },
              ConditionExpression: 'attribute_not_exists(PK)',
            },
          },
        };
        try {
          await transaction().add(put, deleteOld).commit(db);
        } catch (e) {
          if (!(e instanceof WriteConflict) || e.entity !== 'ledger_entry') throw e;
          alreadyMoved++; // its new item is there: a run cut between the two; only the old one goes
          await transaction()
            .add(deleteOld)
            .commit(db)
            .catch((d: unknown) => {
              if (!(d instanceof WriteConflict)) throw d;
            });
        }
      } else {
        counters++;
        if (opts.dryRun) continue;
        const adds = counts(item);
        const mode = String(item.SK).split('#')[1] ?? 'test';
        const merchantId = String(item.PK).slice('MERCHANT#'.length);
        await transaction()
          .add(
            {
              entity: 'payout_counters',
              write: {
                Update: {
                  TableName: tableName,
                  Key: payoutCountersEntity.key(merchantId, mode, 0),
                  UpdateExpression: `ADD ${adds.map((_, i) => `#c${i} :c${i}`).join(', ')} SET entity = :entity, version = :version`,
                  ExpressionAttributeNames: Object.fromEntries(adds.map(([k], i) => [`#c${i}`, k])),
                  ExpressionAttributeValues: {
                    ...Object.fromEntries(adds.map(([, n], i) => [`:c${i}`, n])),
                    ':entity': payoutCountersEntity.entity,
                    ':version': payoutCountersEntity.version,
                  },
                },
              },
            },
            deleteOld,
          )
          .commit(db);
      }
    }
    start = page.LastEvaluatedKey;
  } while (start);
  return { ledgerEntries, counters, alreadyMoved };
}
