/**
 * The one DynamoDB table, declared once. CDK (lib/stateful-stack.ts) and the
 * local stack (bin/local/services.ts) both build the table from this.
 */
export interface IndexDefinition {
  readonly name: string;
  readonly partitionKey: string;
  readonly sortKey: string;
  readonly purpose: string;
}

export const TABLE = {
  /** Logical id; the physical name is `${prefix}-${stage}` on AWS. */
  id: 'Main',
  partitionKey: 'PK',
  sortKey: 'SK',
  /** Epoch seconds; DynamoDB deletes expired items (rate-limit windows, idempotency records). */
  ttlAttribute: 'ttl',
  indexes: [
    {
      name: 'GSI1',
      partitionKey: 'GSI1PK',
      sortKey: 'GSI1SK',
      purpose: 'Listings: merchant + mode + entity -> created_at#id; API keys by merchant.',
    },
    {
      name: 'GSI2',
      partitionKey: 'GSI2PK',
      sortKey: 'GSI2SK',
      purpose: 'Sparse work index: items waiting for a worker (undispatched events, due expiries).',
    },
  ] satisfies IndexDefinition[],
} as const;

export type IndexName = (typeof TABLE.indexes)[number]['name'];

/** CreateTable input for DynamoDB Local, equivalent to the CDK definition. */
export function createTableInput(tableName: string) {
  const keyAttrs = [TABLE.partitionKey, TABLE.sortKey, ...TABLE.indexes.flatMap((i) => [i.partitionKey, i.sortKey])];
  return {
    TableName: tableName,
    BillingMode: 'PAY_PER_REQUEST' as const,
    AttributeDefinitions: keyAttrs.map((name) => ({ AttributeName: name, AttributeType: 'S' as const })),
    KeySchema: [
      { AttributeName: TABLE.partitionKey, KeyType: 'HASH' as const },
      { AttributeName: TABLE.sortKey, KeyType: 'RANGE' as const },
    ],
    GlobalSecondaryIndexes: TABLE.indexes.map((i) => ({
      IndexName: i.name,
      KeySchema: [
        { AttributeName: i.partitionKey, KeyType: 'HASH' as const },
        { AttributeName: i.sortKey, KeyType: 'RANGE' as const },
      ],
      Projection: { ProjectionType: 'ALL' as const },
    })),
  };
}
