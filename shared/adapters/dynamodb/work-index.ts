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
