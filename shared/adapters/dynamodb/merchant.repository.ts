/** Merchants, their webhook secrets and first key on the one table. */
import { GetCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { MerchantRepository, WebhookSecrets } from '../../application/ports';
import { AppError } from '../../domain/errors';
import type { ApiKey, Merchant, MerchantStatus } from '../../domain/merchant';
import { apiKeyEntity } from './entities/api-key.entity';
import { merchantEntity, webhookSecretEntity } from './entities/merchant.entity';
import { stripKeys } from './keys';

export function merchantRepository(db: DynamoDBDocumentClient, tableName: () => string): MerchantRepository {
  return {
    async create(merchant: Merchant, secret: string, firstKey: ApiKey, firstKeyHash: string) {
      const TableName = tableName();
      const notExists = 'attribute_not_exists(PK)';
      const secrets: WebhookSecrets = { current: secret, previous: null, previous_expires_at: null, rotated_at: null };
      await db.send(
        new TransactWriteCommand({
          TransactItems: [
            {
              Put: {
                TableName,
                Item: merchantEntity.item(merchant),
                ConditionExpression: notExists,
              },
            },
            {
              Put: {
                TableName,
                Item: webhookSecretEntity.item(merchant.merchant_id, secrets),
                ConditionExpression: notExists,
              },
            },
            { Put: { TableName, Item: apiKeyEntity.item(firstKey, firstKeyHash), ConditionExpression: notExists } },
          ],
        }),
      );
    },

    async get(merchantId: string) {
      const res = await db.send(new GetCommand({ TableName: tableName(), Key: merchantEntity.key(merchantId) }));
      return res.Item ? stripKeys<Merchant>(res.Item) : null;
    },

    async setStatus(merchantId: string, status: MerchantStatus, at: Date) {
      try {
        const res = await db.send(
          new UpdateCommand({
            TableName: tableName(),
            Key: merchantEntity.key(merchantId),
            UpdateExpression: 'SET #status = :status, updated_at = :at',
            ConditionExpression: 'attribute_exists(PK)',
            ExpressionAttributeNames: { '#status': 'status' },
            ExpressionAttributeValues: { ':status': status, ':at': at.toISOString() },
            ReturnValues: 'ALL_NEW',
          }),
        );
        return stripKeys<Merchant>(res.Attributes ?? {});
      } catch (e) {
        if (e instanceof ConditionalCheckFailedException) throw new AppError('MERCHANT_NOT_FOUND');
        throw e;
      }
    },

    async setRateLimits(merchantId: string, limits: Record<string, number>, at: Date) {
      try {
        const res = await db.send(
          new UpdateCommand({
            TableName: tableName(),
            Key: merchantEntity.key(merchantId),
            UpdateExpression: 'SET rate_limits = :limits, updated_at = :at',
            ConditionExpression: 'attribute_exists(PK)',
            ExpressionAttributeValues: { ':limits': limits, ':at': at.toISOString() },
            ReturnValues: 'ALL_NEW',
          }),
        );
        return stripKeys<Merchant>(res.Attributes ?? {});
      } catch (e) {
        if (e instanceof ConditionalCheckFailedException) throw new AppError('MERCHANT_NOT_FOUND');
        throw e;
      }
    },

    async getWebhookSecrets(merchantId: string) {
      const res = await db.send(new GetCommand({ TableName: tableName(), Key: webhookSecretEntity.key(merchantId), ConsistentRead: true }));
      return res.Item ? stripKeys<WebhookSecrets>(res.Item) : null;
    },

    async rotateWebhookSecret(merchantId: string, expectedCurrent: string, next: WebhookSecrets) {
      await db.send(
        new UpdateCommand({
          TableName: tableName(),
          Key: webhookSecretEntity.key(merchantId),
          UpdateExpression: 'SET #current = :current, #previous = :previous, previous_expires_at = :exp, rotated_at = :rotated',
          ConditionExpression: '#current = :expected',
          ExpressionAttributeNames: { '#current': 'current', '#previous': 'previous' },
          ExpressionAttributeValues: {
            ':current': next.current,
            ':previous': next.previous,
            ':exp': next.previous_expires_at,
            ':rotated': next.rotated_at,
            ':expected': expectedCurrent,
          },
        }),
      );
    },
  };
}
