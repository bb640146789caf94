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
  /**
   * What the index copies of each item: ALL (a query returns whole items; every change of the item rewrites
   * its index copy) or KEYS_ONLY (the table's and the index's keys; a query returns keys, the items are read
   * from the table, and a change that keeps the keys writes nothing to the index).
   */
  readonly projection: 'ALL' | 'KEYS_ONLY';
  readonly purpose: string;
}

/**
 * The listing index (issue 31, lever 3 of issue 22): KEYS_ONLY under a new name, on the same key attributes as
 * GSI1 had, so DynamoDB builds it from the items as they are (no item is rewritten). A GSI's projection cannot
 * change in place: see `RETIRED_INDEXES` and the runbook's "Listing index KEYS_ONLY" for a deployed stage.
 */
const LISTING: IndexDefinition = {
  role: 'listing',
  name: 'GSI1K',
  partitionKey: 'GSI1PK',
  sortKey: 'GSI1SK',
  projection: 'KEYS_ONLY',
  purpose:
    'Listings: merchant + mode + entity -> created_at#id; API keys by merchant; refunds by payment. Keys only: ' +
    'reads fetch the items with BatchGetItem (shared/adapters/dynamodb/listing.ts).',
};

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
    LISTING,
    {
      role: 'work',
      name: 'GSI2',
      partitionKey: 'GSI2PK',
      sortKey: 'GSI2SK',
      projection: 'ALL',
      purpose: 'Sparse work index: items waiting for a worker (undispatched events, due expiries).',
    },
  ] satisfies IndexDefinition[],
} as const;

/**
 * Indexes a deployed stage may still have and the service no longer reads: GSI1, the listing index with
 * projection ALL, until issue 31. `cdk deploy -c keepRetiredIndexes=true` keeps them in the table (the first of
 * the two deploys of the migration); the CLI's `migrate listing-index` checks and, on a table CloudFormation
 * does not manage (DynamoDB Local), makes the change itself.
 */
export const RETIRED_INDEXES: readonly IndexDefinition[] = [
  { ...LISTING, name: 'GSI1', projection: 'ALL', purpose: 'Retired listing index (projection ALL), replaced by GSI1K.' },
];

export type IndexName = (typeof TABLE.indexes)[number]['name'];

/** The index that plays a role (listing: GSI1K, work: GSI2). */
export function indexFor(role: IndexDefinition['role']): IndexDefinition {
  const found = TABLE.indexes.find((i) => i.role === role);
  if (!found) throw new Error(`no ${role} index in the table manifest`);
  return found;
}

/** One index as CreateTable and UpdateTable (GlobalSecondaryIndexUpdates.Create) declare it. */
export function indexInput(i: IndexDefinition) {
  return {
    IndexName: i.name,
    KeySchema: [
      { AttributeName: i.partitionKey, KeyType: 'HASH' as const },
      { AttributeName: i.sortKey, KeyType: 'RANGE' as const },
    ],
    Projection: { ProjectionType: i.projection },
  };
}

/** CreateTable input for DynamoDB Local, equivalent to the CDK definition. */
export function createTableInput(tableName: string, indexes: readonly IndexDefinition[] = TABLE.indexes) {
  const keyAttrs = [...new Set([TABLE.partitionKey, TABLE.sortKey, ...indexes.flatMap((i) => [i.partitionKey, i.sortKey])])];
  return {
    TableName: tableName,
    BillingMode: 'PAY_PER_REQUEST' as const,
    StreamSpecification: { StreamEnabled: true, StreamViewType: TABLE.streamViewType },
    AttributeDefinitions: keyAttrs.map((name) => ({ AttributeName: name, AttributeType: 'S' as const })),
    KeySchema: [
      { AttributeName: TABLE.partitionKey, KeyType: 'HASH' as const },
      { AttributeName: TABLE.sortKey, KeyType: 'RANGE' as const },
    ],
    GlobalSecondaryIndexes: indexes.map(indexInput),
  };
}
