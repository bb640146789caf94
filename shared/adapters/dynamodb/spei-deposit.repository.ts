/** Pay-in CLABE claims and incoming deposit records: each one conditional put, read back consistently. */
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { GetCommand, PutCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { SpeiDepositStore, DepositRecord } from '../../application/ports';
import { envelope, stripKeys } from './keys';
import { clabeClaimEntity, speiDepositEntity } from './entities/spei-deposit.entity';

export function speiDepositRepository(db: DynamoDBDocumentClient, tableName: () => string): SpeiDepositStore {
  const putNew = async (Item: Record<string, unknown>) => {
    try {
      await db.send(new PutCommand({ TableName: tableName(), Item, ConditionExpression: 'attribute_not_exists(PK)' }));
      return true;
    } catch (e) {
      if (e instanceof ConditionalCheckFailedException) return false;
      throw e;
    }
  };
  return {
    claimClabe: (clabe, paymentId, now) => putNew(clabeClaimEntity.item(clabe, paymentId, now)),
    async paymentOfClabe(clabe) {
      const r = await db.send(new GetCommand({ TableName: tableName(), Key: clabeClaimEntity.key(clabe), ConsistentRead: true }));
      return typeof r.Item?.payment_id === 'string' ? r.Item.payment_id : null;
    },
    async record(d) {
      const key = speiDepositEntity.key(d.provider, d.deposit_id);
      if (await putNew({ ...key, ...envelope(speiDepositEntity), ...d })) return { record: d, duplicate: false };
      const r = await db.send(new GetCommand({ TableName: tableName(), Key: key, ConsistentRead: true }));
      return { record: stripKeys<DepositRecord>(r.Item ?? {}), duplicate: true };
    },
  };
}
