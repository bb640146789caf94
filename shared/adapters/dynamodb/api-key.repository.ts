/** API keys, stored under the SHA-256 of the key; the key itself is never written. */
import { GetCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { ApiKeyRepository } from '../../application/ports';
import type { ApiKey } from '../../domain/merchant';
import { apiKeyEntity } from './entities/api-key.entity';
import { INDEX, stripKeys } from './keys';
import { fetchItems } from './listing';
import { queryAll } from './query-all';

export function apiKeyRepository(db: DynamoDBDocumentClient, tableName: () => string): ApiKeyRepository {
  /** The key item's table keys (all the listing index holds), or undefined. */
  const findItem = async (merchantId: string, keyId: string) => {
    const res = await db.send(
      new QueryCommand({
        TableName: tableName(),
        IndexName: INDEX.listing,
        KeyConditionExpression: 'GSI1PK = :pk AND GSI1SK = :sk',
        ExpressionAttributeValues: {
          ':pk': apiKeyEntity.ofMerchant(merchantId).GSI1PK,
          ':sk': keyId,
        },
      }),
    );
    return res.Items?.[0];
  };

  return {
    async create(key, hash) {
      await db.send(
        new PutCommand({ TableName: tableName(), Item: apiKeyEntity.item(key, hash), ConditionExpression: 'attribute_not_exists(PK)' }),
      );
    },

    async findByHash(hash) {
      const res = await db.send(new GetCommand({ TableName: tableName(), Key: apiKeyEntity.key(hash) }));
      return res.Item ? stripKeys<ApiKey>(res.Item) : null;
    },

    async listByMerchant(merchantId) {
      const entries = await queryAll(db, {
        TableName: tableName(),
        IndexName: INDEX.listing,
        KeyConditionExpression: 'GSI1PK = :pk',
        ExpressionAttributeValues: { ':pk': apiKeyEntity.ofMerchant(merchantId).GSI1PK },
      });
      return (await fetchItems(db, tableName(), entries)).map((item) => stripKeys<ApiKey>(item));
    },

    async revoke(merchantId, keyId, at) {
      const item = await findItem(merchantId, keyId);
      if (!item) return null;
      try {
        const res = await db.send(
          new UpdateCommand({
            TableName: tableName(),
            Key: { PK: item.PK, SK: item.SK },
            UpdateExpression: 'SET #status = :revoked, revoked_at = :at',
            ConditionExpression: '#status = :active AND merchant_id = :mch',
            ExpressionAttributeNames: { '#status': 'status' },
            ExpressionAttributeValues: { ':revoked': 'revoked', ':active': 'active', ':at': at.toISOString(), ':mch': merchantId },
            ReturnValues: 'ALL_NEW',
          }),
        );
        return stripKeys<ApiKey>(res.Attributes ?? {});
      } catch (e) {
        if (e instanceof ConditionalCheckFailedException) return null;
        throw e;
      }
    },
  };
}
