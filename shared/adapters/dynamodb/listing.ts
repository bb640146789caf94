/**
 * Reads through the listing index, which projects keys only (shared/manifest/table.ts): a Query gives the
 * items' keys in the index's order, then BatchGetItem reads the items from the table, 100 keys a request,
 * sending again what DynamoDB leaves unprocessed. Filters on attributes other than the keys apply to the items
 * read (the index holds nothing else to filter on).
 */
import { BatchGetCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
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
