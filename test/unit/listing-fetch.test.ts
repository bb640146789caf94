/** Reads through the KEYS_ONLY listing index: BatchGetItem in pages of 100, unprocessed keys sent again, the index's order kept. */
import type { BatchGetCommand, DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { BATCH_GET_MAX_KEYS, fetchItems } from '../../shared/adapters/dynamodb/listing';

type Key = { PK: string; SK: string };
const entry = (i: number) => ({ PK: `PAYOUT#${i}`, SK: 'PAYOUT', GSI1PK: 'MERCHANT#m#test#PAYOUT', GSI1SK: `2026-11-25T00:00:${i}#${i}` });

/** A table that answers in reverse order, leaves every other key unprocessed on its first pass, and lacks `missing`. */
function fakeTable(missing: Set<string> = new Set()) {
  const requests: Key[][] = [];
  const seen = new Set<string>();
  const db = {
    send: async (command: BatchGetCommand) => {
      const [table, { Keys }] = Object.entries(command.input.RequestItems!)[0]! as [string, { Keys: Key[] }];
      requests.push(Keys);
      const processed: Key[] = [];
      const unprocessed: Key[] = [];
      Keys.forEach((k, i) => (i % 2 === 1 && !seen.has(k.PK) ? unprocessed : processed).push(k));
      Keys.forEach((k) => seen.add(k.PK));
      const found = processed.filter((k) => !missing.has(k.PK)).map((k) => ({ ...k, amount: Number(k.PK.split('#')[1]) }));
      return {
        Responses: { [table]: found.reverse() },
        ...(unprocessed.length ? { UnprocessedKeys: { [table]: { Keys: unprocessed } } } : {}),
      };
    },
  } as unknown as DynamoDBDocumentClient;
  return { db, requests };
}

describe('fetchItems', () => {
  it('reads 250 entries in pages of at most 100 keys, sends the unprocessed ones again, and keeps the index order', async () => {
    const { db, requests } = fakeTable();
    const entries = Array.from({ length: 250 }, (_, i) => entry(i));
    const items = await fetchItems(db, 'table', entries);
    expect(items.map((i) => i.amount)).toEqual(entries.map((_, i) => i));
    expect(requests.every((keys) => keys.length <= BATCH_GET_MAX_KEYS)).toBe(true);
    expect(requests.map((keys) => keys.length)).toEqual([100, 50, 100, 50, 50, 25]);
    expect(requests[0]![0]).toEqual({ PK: 'PAYOUT#0', SK: 'PAYOUT' }); // the table's keys only
  });

  it('leaves out an entry whose item is gone, and asks for a key listed twice once', async () => {
    const { db, requests } = fakeTable(new Set(['PAYOUT#1']));
    const items = await fetchItems(db, 'table', [entry(0), entry(1), entry(2), entry(0)]);
    expect(items.map((i) => i.amount)).toEqual([0, 2, 0]);
    expect(requests[0]).toHaveLength(3);
  });

  it('fails after 8 rounds that leave keys unprocessed (a table throttled for seconds)', async () => {
    const db = {
      send: async (c: BatchGetCommand) => ({ Responses: {}, UnprocessedKeys: c.input.RequestItems }),
    } as unknown as DynamoDBDocumentClient;
    await expect(fetchItems(db, 'table', [entry(0)])).rejects.toThrow(/unprocessed after 8 rounds/);
  }, 20_000);
});
