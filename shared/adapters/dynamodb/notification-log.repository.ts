/** The provider notification log: a conditional put per notification, then its outcome. */
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { PutCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { NotificationLog } from '../../application/providers';
import { providerNotificationEntity } from './entities/provider-notification.entity';

export function notificationLogRepository(db: DynamoDBDocumentClient, tableName: () => string): NotificationLog {
  return {
    async begin(provider, key, record, now) {
      try {
        await db.send(
          new PutCommand({
            TableName: tableName(),
            Item: providerNotificationEntity.item(provider, key, record, now),
            ConditionExpression: 'attribute_not_exists(PK)',
          }),
        );
        return 'new';
      } catch (e) {
        if (!(e instanceof ConditionalCheckFailedException)) throw e;
      }
      // Seen before: count the delivery, and read whether its effect was finished (one round trip).
      const r = await db.send(
        new UpdateCommand({
          TableName: tableName(),
          Key: providerNotificationEntity.key(provider, key),
          UpdateExpression: 'ADD deliveries :one SET last_delivery_at = :now',
          ExpressionAttributeValues: { ':one': 1, ':now': now },
          ReturnValues: 'ALL_NEW',
        }),
      );
      return r.Attributes?.outcome ? 'done' : 'new';
    },

    async finish(provider, key, outcome, now) {
      await db.send(
        new UpdateCommand({
          TableName: tableName(),
          Key: providerNotificationEntity.key(provider, key),
          UpdateExpression: 'SET outcome = :outcome, applied_at = :now',
          ConditionExpression: 'attribute_exists(PK)',
          ExpressionAttributeValues: { ':outcome': outcome, ':now': now },
        }),
      );
    },
  };
}
