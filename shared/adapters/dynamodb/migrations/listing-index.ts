/**
 * Issue 31's table change, for a stage deployed before it: the listing index GSI1 (projection ALL) gives way to
 * GSI1K (KEYS_ONLY) on the same key attributes. DynamoDB cannot change a GSI's projection in place, so the new
 * index is created beside the old one, DynamoDB fills it from the items as they are (no item is rewritten),
 * the service reads it once it is ACTIVE, and only then is the old one deleted.
 *
 * On AWS, CloudFormation owns the table's indexes: the two `cdk deploy`s of the runbook create and delete
 * them, and this step only waits for the new index and checks it (`npm run cli -- migrate listing-index`).
 * On a table nothing else manages (DynamoDB Local, a kept local state) `--apply` makes the changes itself:
 * create, wait until ACTIVE, check, and with `--drop-retired` delete the old index.
 *
 * Ops only: the check Scans both indexes for their counts (keys only), which the service never does.
 */
import {
  DescribeTableCommand,
  ScanCommand,
  UpdateTableCommand,
  type DynamoDBClient,
  type GlobalSecondaryIndexDescription,
} from '@aws-sdk/client-dynamodb';
import { indexFor, indexInput, RETIRED_INDEXES } from '../../../manifest/table';

export interface ListingIndexOptions {
  /** Create the new index and (with dropRetired) delete the old one: only on a table CloudFormation does not manage. */
  readonly apply?: boolean;
  readonly dropRetired?: boolean;
  /** How long to wait for the new index to be ACTIVE (and the old one gone). Default 6 hours. */
  readonly timeoutMs?: number;
  readonly pollMs?: number;
  readonly log?: (line: string) => void;
}

export interface ListingIndexReport {
  readonly index: string;
  readonly projection: string | null;
  readonly status: string | null;
  readonly created: boolean;
  /** Entries in each index when both were there (the same items: the same key attributes). */
  readonly counts: { readonly listing: number; readonly retired: number } | null;
  readonly retired: string;
  readonly retiredDropped: boolean;
  /** True once the service can read the new index and nothing is left to do but (on AWS) the second deploy. */
  readonly ready: boolean;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function migrateListingIndex(
  client: DynamoDBClient,
  tableName: string,
  opts: ListingIndexOptions = {},
): Promise<ListingIndexReport> {
  const listing = indexFor('listing');
  const retired = RETIRED_INDEXES.find((i) => i.role === 'listing');
  if (!retired) throw new Error('no retired listing index in the table manifest');
  const timeoutMs = opts.timeoutMs ?? 6 * 3600_000;
  const pollMs = opts.pollMs ?? 10_000;
  const log = opts.log ?? (() => {});
  const describe = async () => (await client.send(new DescribeTableCommand({ TableName: tableName }))).Table;
  const find = (indexes: GlobalSecondaryIndexDescription[] | undefined, name: string) => indexes?.find((i) => i.IndexName === name);
  const waitFor = async (what: string, done: (indexes: GlobalSecondaryIndexDescription[] | undefined) => boolean) => {
    const until = Date.now() + timeoutMs;
    for (;;) {
      const t = await describe();
      if (t?.TableStatus === 'ACTIVE' && done(t.GlobalSecondaryIndexes)) return t;
      if (Date.now() > until) throw new Error(`${tableName}: timed out waiting for ${what}`);
      await sleep(pollMs);
    }
  };

  let table = await describe();
  let created = false;
  if (!find(table?.GlobalSecondaryIndexes, listing.name)) {
    if (!opts.apply) {
      return {
        index: listing.name,
        projection: null,
        status: null,
        created,
        counts: null,
        retired: retired.name,
        retiredDropped: false,
        ready: false,
      };
    }
    log(`creating ${listing.name} (${listing.projection})`);
    await client.send(
      new UpdateTableCommand({
        TableName: tableName,
        AttributeDefinitions: [listing.partitionKey, listing.sortKey].map((AttributeName) => ({ AttributeName, AttributeType: 'S' })),
        GlobalSecondaryIndexUpdates: [{ Create: indexInput(listing) }],
      }),
    );
    created = true;
  }
  log(`waiting for ${listing.name} to be ACTIVE`);
  table = await waitFor(`${listing.name} ACTIVE`, (ix) => {
    const i = find(ix, listing.name);
    return i?.IndexStatus === 'ACTIVE' && !i.Backfilling;
  });
  const now = find(table?.GlobalSecondaryIndexes, listing.name);
  const projection = now?.Projection?.ProjectionType ?? null;
  if (projection !== listing.projection) throw new Error(`${listing.name} projects ${projection}, the manifest says ${listing.projection}`);

  let counts: ListingIndexReport['counts'] = null;
  let retiredDropped = false;
  if (find(table?.GlobalSecondaryIndexes, retired.name)) {
    counts = { listing: await countEntries(client, tableName, listing.name), retired: await countEntries(client, tableName, retired.name) };
    log(`${listing.name}: ${counts.listing} entries, ${retired.name}: ${counts.retired}`);
    if (opts.apply && opts.dropRetired) {
      // Writes in flight can make the two differ for a moment; a real gap means the new index is not complete.
      if (counts.listing < counts.retired) throw new Error(`${listing.name} holds fewer entries than ${retired.name}: not dropping it`);
      log(`deleting ${retired.name}`);
      await client.send(
        new UpdateTableCommand({ TableName: tableName, GlobalSecondaryIndexUpdates: [{ Delete: { IndexName: retired.name } }] }),
      );
      await waitFor(`${retired.name} deleted`, (ix) => !find(ix, retired.name));
      retiredDropped = true;
    }
  }
  return {
    index: listing.name,
    projection,
    status: now?.IndexStatus ?? null,
    created,
    counts,
    retired: retired.name,
    retiredDropped,
    ready: true,
  };
}

async function countEntries(client: DynamoDBClient, tableName: string, indexName: string): Promise<number> {
  let n = 0;
  let start: Record<string, never> | undefined;
  do {
    const r = await client.send(new ScanCommand({ TableName: tableName, IndexName: indexName, Select: 'COUNT', ExclusiveStartKey: start }));
    n += r.Count ?? 0;
    start = r.LastEvaluatedKey as Record<string, never> | undefined;
  } while (start);
  return n;
}
