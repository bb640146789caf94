/**
 * Powertools idempotency persistence on our one table. Records live under their
 * own partition (IDEMPOTENCY#<hash>) instead of Powertools' single static
 * partition, so they spread across the table; `ttl` is the table's TTL attribute.
 * Powertools writes these items itself, so they carry its attributes (status,
 * data, validation) rather than our entity/version envelope.
 */
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { DynamoDBPersistenceLayer } from '@aws-lambda-powertools/idempotency/dynamodb';
import { config } from '../../config';
import { TABLE } from '../../manifest/table';
import { dynamoClient } from '../aws-clients';
import { idempotencyRecordKey } from './entities/idempotency-record.entity';

class SingleTablePersistenceLayer extends DynamoDBPersistenceLayer {
  protected override getKey(idempotencyKey: string): Record<string, AttributeValue> {
    const { PK, SK } = idempotencyRecordKey(idempotencyKey);
    return { [TABLE.partitionKey]: { S: PK }, [TABLE.sortKey]: { S: SK } };
  }
}

let store: SingleTablePersistenceLayer | undefined;

export function idempotencyStore(): DynamoDBPersistenceLayer {
  store ??= new SingleTablePersistenceLayer({
    tableName: config.tableName,
    awsSdkV3Client: dynamoClient(),
    keyAttr: TABLE.partitionKey,
    sortKeyAttr: TABLE.sortKey,
    expiryAttr: TABLE.ttlAttribute,
    inProgressExpiryAttr: 'in_progress_expiry',
    statusAttr: 'status',
    dataAttr: 'data',
    validationKeyAttr: 'validation',
  });
  return store;
}
