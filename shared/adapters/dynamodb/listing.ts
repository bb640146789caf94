/**
 * Reads through the listing index, which projects keys only (shared/manifest/table.ts): a Query gives the
 * items' keys in the index's order, then BatchGetItem reads the items from the table, 100 keys a request,
 * sending again what DynamoDB leaves unprocessed. Filters on attributes other than the keys apply to the items
 * read (the index holds nothing else to filter on).
 */
import { BatchGetCommand, QueryCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { INDEX } from './keys';
import { TABLE } from '../../manifest/table';

/** BatchGetItem's limit of keys per request. */
export const BATCH_GET_MAX_KEYS = 100;
/** Rounds of UnprocessedKeys sent again, backing off, before the read fails (throttled for ~6 s). */
const MAX_ROUNDS = 8;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

type Key = Record<string, unknown>;
const keyOf = (item: Key): Key => ({ [TABLE.partitionKey]: item[TABLE.partitionKey], [TABLE.sortKey]: item[TABLE.sortKey] });
const idOf = (key: Key) => `${String(key[TABLE.partitionKey])}\u0000${String(key[TABLE.sortKey])}`;

/**
 * The table's items for index entries (or any objects carrying the table's keys), in the entries' order. An
 * entry whose item is gone (deleted after the index was read: the index is eventually consistent) is left out.
 */
export async function fetchItems(
  db: DynamoDBDocumentClient,
  tableName: string,
  entries: readonly Key[],
  opts: { projection?: readonly string[] } = {},
): Promise<Record<string, unknown>[]> {
  const keys = [...new Map(entries.map((e) => [idOf(e), keyOf(e)])).values()];
  const found = new Map<string, Record<string, unknown>>();
  const projection = opts.projection
    ? {
        ProjectionExpression: [TABLE.partitionKey, TABLE.sortKey, ...opts.projection].map((_, i) => `#p${i}`).join(', '),
        ExpressionAttributeNames: Object.fromEntries(
          [TABLE.partitionKey, TABLE.sortKey, ...opts.projection].map((name, i) => [`#p${i}`, name]),
        ),
      }
    : {};
  for (let i = 0; i < keys.length; i += BATCH_GET_MAX_KEYS) {
    let pending: Key[] = keys.slice(i, i + BATCH_GET_MAX_KEYS);
    for (let round = 0; pending.length > 0; round++) {
      if (round >= MAX_ROUNDS) throw new Error(`BatchGetItem left ${pending.length} keys unprocessed after ${MAX_ROUNDS} rounds`);
      if (round > 0) await sleep(Math.min(2000, 25 * 2 ** round) * (0.5 + Math.random() / 2));
      const r = await db.send(new BatchGetCommand({ RequestItems: { [tableName]: { Keys: pending, ...projection } } }));
      for (const item of r.Responses?.[tableName] ?? []) found.set(idOf(item), item);
      pending = (r.UnprocessedKeys?.[tableName]?.Keys ?? []) as Key[];
    }
  }
  return entries.flatMap((e) => {
    const item = found.get(idOf(e));
    return item ? [item] : [];
  });
}

/** An in-memory filter: every `attribute: value` pair must match the item (an undefined value matches anything). */
export function matches(item: Record<string, unknown>, where: Record<string, unknown>): boolean {
  return Object.entries(where).every(([k, v]) => v === undefined || item[k] === v);
}

/** A filtered listing of one kind, newest first (the payouts' and mandates' list routes). */
export interface ListingFilter {
  /** The listing index partition (indexKeys.listing(...).GSI1PK). */
  readonly pk: string;
  readonly from?: string;
  readonly to?: string;
  readonly status?: string;
}

function listingQuery(tableName: string, f: ListingFilter) {
  const range = Boolean(f.from || f.to);
  const values: Record<string, unknown> = { ':pk': f.pk, ...(range ? { ':from': f.from ?? '0000', ':to': `${f.to ?? '9999'}#~` } : {}) };
  return {
    range,
    values,
    base: {
      TableName: tableName,
      IndexName: INDEX.listing,
      KeyConditionExpression: range ? 'GSI1PK = :pk AND GSI1SK BETWEEN :from AND :to' : 'GSI1PK = :pk',
      ExpressionAttributeValues: values,
      ScanIndexForward: false,
    },
  };
}

const ofStatus = (f: ListingFilter, items: Record<string, unknown>[]) => (f.status ? items.filter((i) => i.status === f.status) : items);

/** How many items the filter matches: a COUNT query over the key range or, with a status filter, the statuses read. */
export async function countListing(db: DynamoDBDocumentClient, tableName: string, f: ListingFilter): Promise<number> {
  const { base } = listingQuery(tableName, f);
  let total = 0;
  let start: Record<string, unknown> | undefined;
  do {
    const r = await db.send(new QueryCommand({ ...base, ...(f.status ? {} : { Select: 'COUNT' }), ExclusiveStartKey: start }));
    total += f.status ? ofStatus(f, await fetchItems(db, tableName, r.Items ?? [], { projection: ['status'] })).length : (r.Count ?? 0);
    start = r.LastEvaluatedKey;
  } while (start);
  return total;
}

/** A page that starts right after this item: its table key and its listing sort key (created_at#id). */
export const listedAfter = (key: Record<string, unknown>, createdAt: string, id: string) => ({
  after: { key, sortKey: `${createdAt}#${id}` },
});

/**
 * One page: skip `offset` matching items, or start right after `after` (the table key and listing sort key of the
 * item the page follows); then read limit + 1 items (the extra one, not returned, tells whether older items
 * remain). Without a status filter, skipped entries are only counted, never read from the table.
 */
export async function pageOfListing(
  db: DynamoDBDocumentClient,
  tableName: string,
  f: ListingFilter & { limit: number; offset: number; after?: { key: Record<string, unknown>; sortKey: string } },
): Promise<{ items: Record<string, unknown>[]; more: boolean }> {
  const { base, range, values } = listingQuery(tableName, f);
  const want = f.limit + 1;
  const items: Record<string, unknown>[] = [];
  let skipped = 0;
  let start: Record<string, unknown> | undefined;
  if (f.after) {
    // A start key outside the date range is refused by DynamoDB: above it, the page starts at the top of the
    // range; below it, nothing in the range comes after it.
    if (range && f.after.sortKey < String(values[':from'])) return { items: [], more: false };
    if (!range || f.after.sortKey <= String(values[':to'])) start = { ...f.after.key, GSI1PK: f.pk, GSI1SK: f.after.sortKey };
  }
  do {
    const skipping = skipped < f.offset;
    const r = await db.send(
      new QueryCommand({
        ...base,
        ExclusiveStartKey: start,
        Limit: skipping ? Math.min(1000, f.offset - skipped + want) : want - items.length,
      }),
    );
    let entries = r.Items ?? [];
    if (!f.status) {
      const skip = Math.min(entries.length, f.offset - skipped);
      skipped += skip;
      entries = entries.slice(skip, skip + want - items.length);
    }
    for (const item of ofStatus(f, await fetchItems(db, tableName, entries))) {
      if (skipped < f.offset) skipped++;
      else if (items.length < want) items.push(item);
    }
    start = r.LastEvaluatedKey;
  } while (start && items.length < want);
  return { items: items.slice(0, f.limit), more: items.length > f.limit };
}

/**
 * A merchant's objects of one kind, newest first, with the filter's total: the list routes of mandates and disputes.
 * `after`: the object a cursor page follows (its table key, creation time and id).
 */
export async function listOfKind<T>(
  db: DynamoDBDocumentClient,
  tableName: string,
  f: ListingFilter & { limit: number; offset: number },
  after: { key: Record<string, unknown>; createdAt: string; id: string } | undefined,
  strip: (item: Record<string, unknown>) => T,
): Promise<{ items: T[]; total: number; more: boolean }> {
  const [total, page] = await Promise.all([
    countListing(db, tableName, f),
    pageOfListing(db, tableName, { ...f, ...(after ? listedAfter(after.key, after.createdAt, after.id) : {}) }),
  ]);
  return { items: page.items.map(strip), total, more: page.more };
}
