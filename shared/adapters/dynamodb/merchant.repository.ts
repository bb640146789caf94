/** Merchants, their webhook secrets and first key on the one table. */
import { GetCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { MerchantRepository, WebhookSecrets } from '../../application/ports';
import { AppError } from '../../domain/errors';
import type { ApiKey, Merchant, MerchantRouteRule, MerchantStatus } from '../../domain/merchant';
import { apiKeyEntity } from './entities/api-key.entity';
import { merchantEntity, webhookSecretEntity } from './entities/merchant.entity';
import { stripKeys } from './keys';

/** The attribute names a routing expression uses (DynamoDB refuses a name the expression does not use). */
const routingNames = (expression: string, kind: string, country: string) => ({
  '#routing': 'routing',
  ...(expression.includes('#kind') ? { '#kind': kind } : {}),
  ...(expression.includes('#country') ? { '#country': country } : {}),
});

export function merchantRepository(db: DynamoDBDocumentClient, tableName: () => string): MerchantRepository {
  const consistentGet = async (merchantId: string) => {
    const res = await db.send(new GetCommand({ TableName: tableName(), Key: merchantEntity.key(merchantId), ConsistentRead: true }));
    return res.Item ? stripKeys<Merchant>(res.Item) : null;
  };
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

    async setRoutingRule(merchantId: string, kind: string, country: string, rule: MerchantRouteRule, at: Date) {
      const stored = { providers: [...rule.providers], ...(rule.split ? { split: [...rule.split] } : {}) };
      // One conditional write in one of three shapes, by which maps exist: the kind's (set the country), the routing
      // map (set the kind), none (set the map). Each applies only where the one before cannot, so a rule is never
      // written over a map another write just created; after a race the shapes are tried again.
      const shapes = [
        { path: '#routing.#kind.#country', cond: 'attribute_exists(#routing.#kind)', value: stored },
        {
          path: '#routing.#kind',
          cond: 'attribute_exists(#routing) AND attribute_not_exists(#routing.#kind)',
          value: { [country]: stored },
        },
        { path: '#routing', cond: 'attribute_exists(PK) AND attribute_not_exists(#routing)', value: { [kind]: { [country]: stored } } },
      ];
      for (let round = 0; round < 3; round++) {
        for (const shape of shapes) {
          const expression = `SET ${shape.path} = :rule, updated_at = :at ${shape.cond}`;
          try {
            const res = await db.send(
              new UpdateCommand({
                TableName: tableName(),
                Key: merchantEntity.key(merchantId),
                UpdateExpression: `SET ${shape.path} = :rule, updated_at = :at`,
                ConditionExpression: shape.cond,
                ExpressionAttributeNames: routingNames(expression, kind, country),
                ExpressionAttributeValues: { ':rule': shape.value, ':at': at.toISOString() },
                ReturnValues: 'ALL_NEW',
              }),
            );
            return stripKeys<Merchant>(res.Attributes ?? {});
          } catch (e) {
            if (!(e instanceof ConditionalCheckFailedException)) throw e;
          }
        }
        if (!(await consistentGet(merchantId))) throw new AppError('MERCHANT_NOT_FOUND');
      }
      throw new Error(`The routing of ${merchantId} kept changing while it was written; try again.`);
    },

    async removeRoutingRule(merchantId: string, kind: string, country: string, at: Date) {
      const names = { '#routing': 'routing', '#kind': kind, '#country': country };
      let item: Record<string, unknown>;
      try {
        const res = await db.send(
          new UpdateCommand({
            TableName: tableName(),
            Key: merchantEntity.key(merchantId),
            UpdateExpression: 'REMOVE #routing.#kind.#country SET updated_at = :at',
            ConditionExpression: 'attribute_exists(#routing.#kind.#country)',
            ExpressionAttributeNames: names,
            ExpressionAttributeValues: { ':at': at.toISOString() },
            ReturnValues: 'ALL_NEW',
          }),
        );
        item = res.Attributes ?? {};
      } catch (e) {
        if (!(e instanceof ConditionalCheckFailedException)) throw e;
        const m = await consistentGet(merchantId);
        if (!m) throw new AppError('MERCHANT_NOT_FOUND');
        return { merchant: m, removed: false };
      }
      // A kind left with no rule goes, then a routing map left with no kind: each only while it is still empty.
      const routing = (item.routing ?? {}) as Record<string, Record<string, unknown>>;
      const emptyKind = Object.keys(routing[kind] ?? {}).length === 0;
      for (const [path, empty] of [
        ['#routing.#kind', emptyKind],
        ['#routing', emptyKind && Object.keys(routing).length === 1],
      ] as const) {
        if (!empty) break;
        try {
          const res = await db.send(
            new UpdateCommand({
              TableName: tableName(),
              Key: merchantEntity.key(merchantId),
              UpdateExpression: `REMOVE ${path}`,
              ConditionExpression: `size(${path}) = :zero`,
              ExpressionAttributeNames: routingNames(path, kind, country),
              ExpressionAttributeValues: { ':zero': 0 },
              ReturnValues: 'ALL_NEW',
            }),
          );
          item = res.Attributes ?? item;
        } catch (e) {
          if (!(e instanceof ConditionalCheckFailedException)) throw e;
          break; // a rule was set meanwhile: the map stays
        }
      }
      return { merchant: stripKeys<Merchant>(item), removed: true };
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
