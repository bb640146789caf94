/**
 * The one DynamoDB table, declared once. CDK (lib/stateful-stack.ts) and the
 * local stack (bin/local/services.ts) both build the table from this.
 */
export interface IndexDefinition {
  /** What repositories use it for; they look an index up by role, never by name. */
  readonly role: 'listing' | 'work';
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
  /** The table's stream: what its consumers (shared/manifest/streams.ts) read of each change. */
  streamViewType: 'NEW_IMAGE',
  indexes: [
    {
      role: 'listing',
      name: 'GSI1',
      partitionKey: 'GSI1PK',
      sortKey: 'GSI1SK',
      purpose: 'Listings: merchant + mode + entity -> created_at#id; API keys by merchant.',
    },
    {
      role: 'work',
      name: 'GSI2',
      partitionKey: 'GSI2PK',
      sortKey: 'GSI2SK',
      purpose: 'Sparse work index: items waiting for a worker (undispatched events, due expiries).',
    },
  ] satisfies IndexDefinition[],
} as const;

export type IndexName = (typeof TABLE.indexes)[number]['name'];

/** The index that plays a role (listing: GSI1, work: GSI2). */
export function indexFor(role: IndexDefinition['role']): IndexDefinition {
  const found = TABLE.indexes.find((i) => i.role === role);
  if (!found) throw new Error(`no ${role} index in the table manifest`);
  return found;
}

/** CreateTable input for DynamoDB Local, equivalent to the CDK definition. */
export function createTableInput(tableName: string) {
  const keyAttrs = [TABLE.partitionKey, TABLE.sortKey, ...TABLE.indexes.flatMap((i) => [i.partitionKey, i.sortKey])];
  return {
    TableName: tableName,
    BillingMode: 'PAY_PER_REQUEST' as const,
    StreamSpecification: { StreamEnabled: true, StreamViewType: TABLE.streamViewType },
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
