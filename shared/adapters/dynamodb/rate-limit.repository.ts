/** Fixed-window counters: one conditional ADD per reservation (a container's slice of the window), exact under any concurrency. */
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { RateLimitCounter } from '../../application/ports';
import { TABLE } from '../../manifest/table';
import { rateLimitWindowEntity } from './entities/rate-limit-window.entity';

export function rateLimitCounter(db: DynamoDBDocumentClient, tableName: () => string): RateLimitCounter {
  return {
    async reserve(subject, routeId, windowStart, units, limit, expiresAt) {
      try {
        const res = await db.send(
          new UpdateCommand({
            TableName: tableName(),
            Key: rateLimitWindowEntity.key(subject, routeId, windowStart),
            UpdateExpression: 'ADD #count :units SET #ttl = :ttl, entity = :entity, version = :version',
            ConditionExpression: 'attribute_not_exists(#count) OR #count <= :most',
            ExpressionAttributeNames: { '#count': 'count', '#ttl': TABLE.ttlAttribute },
            ExpressionAttributeValues: {
              ':units': units,
              ':most': limit - units,
              ':ttl': expiresAt,
              ':entity': rateLimitWindowEntity.entity,
              ':version': rateLimitWindowEntity.version,
            },
            ReturnValues: 'UPDATED_NEW',
          }),
        );
        return Number(res.Attributes?.count ?? limit);
      } catch (e) {
        if (e instanceof ConditionalCheckFailedException) return null;
        throw e;
      }
    },
  };
}
