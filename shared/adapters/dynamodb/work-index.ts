/** Reads a GSI2 work queue (due expiries, the outbox) across its shards: items whose sort key is at or before a time. */
import { QueryCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { INDEX, WORK_SHARDS } from './keys';

export async function dueInWorkIndex(
  db: DynamoDBDocumentClient,
  tableName: string,
  partitionOf: (shard: number) => string,
  atOrBefore: string,
  limit: number,
  attribute: string,
): Promise<string[]> {
  const found: string[] = [];
  for (let shard = 0; shard < WORK_SHARDS && found.length < limit; shard++) {
    const r = await db.send(
      new QueryCommand({
        TableName: tableName,
        IndexName: INDEX.work,
        KeyConditionExpression: 'GSI2PK = :pk AND GSI2SK <= :until',
        ExpressionAttributeValues: { ':pk': partitionOf(shard), ':until': `${atOrBefore}#~` },
        ProjectionExpression: attribute,
        Limit: limit - found.length,
      }),
    );
    for (const item of r.Items ?? []) found.push(String(item[attribute]));
  }
  return found;
}

/** The time (the sort key's ISO prefix) of the oldest item of a GSI2 work queue across its shards, or null when it is empty. */
export async function oldestInWorkIndex(
  db: DynamoDBDocumentClient,
  tableName: string,
  partitionOf: (shard: number) => string,
): Promise<string | null> {
  let oldest: string | null = null;
  for (let shard = 0; shard < WORK_SHARDS; shard++) {
    const r = await db.send(
      new QueryCommand({
        TableName: tableName,
        IndexName: INDEX.work,
        KeyConditionExpression: 'GSI2PK = :pk',
        ExpressionAttributeValues: { ':pk': partitionOf(shard) },
        ProjectionExpression: 'GSI2SK',
        Limit: 1,
      }),
    );
    const at = String(r.Items?.[0]?.GSI2SK ?? '').split('#')[0];
    if (at && (oldest === null || at < oldest)) oldest = at;
  }
  return oldest;
}
