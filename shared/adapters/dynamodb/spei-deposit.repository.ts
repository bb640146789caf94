/** Pay-in CLABE claims and incoming deposit records: each one conditional put, read back consistently. */
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { GetCommand, PutCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { WriteConflict, type SpeiDepositStore, type DepositRecord } from '../../application/ports';
import { transaction } from './transact';
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
      const item = { ...key, ...envelope(speiDepositEntity), ...d };
      const existing = async () => {
        const r = await db.send(new GetCommand({ TableName: tableName(), Key: key, ConsistentRead: true }));
        return { record: stripKeys<DepositRecord>(r.Item ?? {}), duplicate: true };
      };
      if (d.outcome !== 'settled') return (await putNew(item)) ? { record: d, duplicate: false } : existing();
      // Settling: this deposit becomes the CLABE's one settling deposit in the same transaction, or, when another
      // deposit already is (two deposits racing on one read of the open payment), it is recorded late (returned).
      try {
        await transaction()
          .add(
            { entity: 'deposit', write: { Put: { TableName: tableName(), Item: item, ConditionExpression: 'attribute_not_exists(PK)' } } },
            clabeClaimEntity.settledBy(tableName(), d.clabe, key.PK),
          )
          .commit(db);
        return { record: d, duplicate: false };
      } catch (e) {
        if (!(e instanceof WriteConflict)) throw e;
        if (e.entity !== 'clabe_claim') return existing();
        const late: DepositRecord = { ...d, outcome: 'late' };
        return (await putNew({ ...item, ...late })) ? { record: late, duplicate: false } : existing();
      }
    },
  };
}
