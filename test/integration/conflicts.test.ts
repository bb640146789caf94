/**
 * DynamoDB's transaction conflicts, which DynamoDB Local never shows (issue 22, parts 1 and 3): the conflict
 * proxy answers as DynamoDB does, and the service retries what a conflict cancelled instead of answering 500.
 */
import { randomBytes } from 'node:crypto';
import { DynamoDBClient, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, PutCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { startConflictProxy } from '../../bin/local/conflict-proxy';
import { transaction } from '../../shared/adapters/dynamodb/transact';
import { ensureTable } from '../../bin/local/services';
import { engines } from '../support/engines';
import { balanceMinor, card, ledger, payments } from '../support/payments';
import { pixBeneficiary } from '../support/sample-data';
import { startTestStack, type TestStack } from '../support/test-stack';

const client = (endpoint: string) =>
  DynamoDBDocumentClient.from(
    new DynamoDBClient({ endpoint, region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } }),
  );

describe('the conflict proxy answers as DynamoDB does', () => {
  const table = `conflicts-${randomBytes(4).toString('hex')}`;
  beforeAll(() => ensureTable(engines().dynamodb, table));

  /** The update every writer of these tests makes to the one hot item. */
  const addToHot = () => ({
    TableName: table,
    Key: { PK: 'HOT', SK: 'ITEM' },
    UpdateExpression: 'ADD n :one',
    ExpressionAttributeValues: { ':one': 1 },
  });

  /** 32 transactions at once, each adding 1 to one hot item and writing an item of its own. */
  const burst = (db: DynamoDBDocumentClient) =>
    Promise.allSettled(
      Array.from({ length: 32 }, (_, i) =>
        db.send(
          new TransactWriteCommand({
            TransactItems: [
              { Update: addToHot() },
              { Put: { TableName: table, Item: { PK: `OWN#${i}#${randomBytes(4).toString('hex')}`, SK: 'ITEM' } } },
            ],
          }),
        ),
      ),
    );

  it('DynamoDB Local alone serializes them: every one commits', async () => {
    const results = await burst(client(engines().dynamodb));
    expect(results.filter((r) => r.status === 'rejected')).toEqual([]);
  });

  it('through the proxy, transactions on an item another is touching are cancelled with TransactionConflict, that item named', async () => {
    const proxy = await startConflictProxy({ target: engines().dynamodb, latencyMs: 20 });
    try {
      const results = await burst(client(proxy.endpoint));
      const cancelled = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
      expect(cancelled.length).toBeGreaterThan(0);
      expect(results.length - cancelled.length).toBeGreaterThan(0);
      for (const c of cancelled) {
        expect(c.reason).toBeInstanceOf(TransactionCanceledException);
        expect((c.reason as TransactionCanceledException).CancellationReasons?.map((r) => r.Code)).toEqual(['TransactionConflict', 'None']);
      }
      expect(proxy.stats.transactionConflicts).toBe(cancelled.length);
    } finally {
      await proxy.stop();
    }
  });

  it('a single write to an item of an in-flight transaction fails with TransactionConflictException; writes elsewhere pass', async () => {
    // The transaction holds its item for this long: the write below only has to reach the proxy within it.
    const proxy = await startConflictProxy({ target: engines().dynamodb, latencyMs: 2000 });
    try {
      const db = client(proxy.endpoint);
      const tx = db.send(
        new TransactWriteCommand({
          TransactItems: [{ Update: addToHot() }],
        }),
      );
      // In flight once the proxy has admitted it (not after a guess at how long that takes on a loaded machine).
      while (proxy.stats.transactions === 0) await new Promise((r) => setTimeout(r, 5));
      const hot = db.send(new UpdateCommand(addToHot()));
      await expect(hot).rejects.toMatchObject({ name: 'TransactionConflictException' });
      await expect(db.send(new PutCommand({ TableName: table, Item: { PK: 'COLD', SK: 'ITEM' } }))).resolves.toBeDefined();
      await tx;
    } finally {
      await proxy.stop();
    }
  });
});

/**
 * The proxy's budget is per wall-clock second: `burst` starts at the top of one, and runs again on fresh items
 * (its attempt number) when a loaded machine let it run into the next second, which would split its budget.
 */
async function inOneSecond<T>(burst: (attempt: number) => Promise<T>): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    await new Promise((r) => setTimeout(r, 1000 - (Date.now() % 1000) + 5));
    const second = Math.floor(Date.now() / 1000);
    const result = await burst(attempt);
    if (Math.floor(Date.now() / 1000) === second || attempt === 9) return result;
  }
}

describe('the conflict proxy throttles a partition beyond its write limit, as DynamoDB does', () => {
  const table = `throttle-${randomBytes(4).toString('hex')}`;
  beforeAll(() => ensureTable(engines().dynamodb, table));
  const raw = (endpoint: string) =>
    DynamoDBDocumentClient.from(
      new DynamoDBClient({
        endpoint,
        region: 'us-east-1',
        credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
        maxAttempts: 1,
      }),
    );

  it('single writes past 5 WCU in a second on one partition: ProvisionedThroughputExceededException; other partitions pass', async () => {
    const proxy = await startConflictProxy({ target: engines().dynamodb, partitionWriteUnitsPerSecond: 5 });
    try {
      const db = raw(proxy.endpoint);
      const put = (pk: string, i: number) => db.send(new PutCommand({ TableName: table, Item: { PK: pk, SK: `S#${i}` } }));
      const { pk, hot, throttled } = await inOneSecond(async (attempt) => {
        const [pk, before] = [`HOTP#${attempt}`, proxy.stats.throttled];
        const hot = await Promise.allSettled(Array.from({ length: 8 }, (_, i) => put(pk, i)));
        return { pk, hot, throttled: proxy.stats.throttled - before };
      });
      const refused = hot.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
      expect(refused.length).toBe(3);
      for (const r of refused) expect(r.reason).toMatchObject({ name: 'ProvisionedThroughputExceededException' });
      expect(throttled).toBe(3);
      const before = proxy.stats.throttled;
      await expect(put('COLDP', 1)).resolves.toBeDefined();
      expect(proxy.stats.throttled).toBe(before);
      // The SDK retries a throttle itself (with its default attempts), so the service's writes pass once the second turns.
      const patient = DynamoDBDocumentClient.from(
        new DynamoDBClient({
          endpoint: proxy.endpoint,
          region: 'us-east-1',
          credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
        }),
      );
      await expect(patient.send(new PutCommand({ TableName: table, Item: { PK: pk, SK: 'late' } }))).resolves.toBeDefined();
    } finally {
      await proxy.stop();
    }
  });

  it('a transaction over the budget is cancelled with ThrottlingError for its throttled item, None for the others', async () => {
    const proxy = await startConflictProxy({ target: engines().dynamodb, partitionWriteUnitsPerSecond: 3 });
    try {
      const db = raw(proxy.endpoint);
      const tx = (hot: string) =>
        db.send(
          new TransactWriteCommand({
            TransactItems: [
              { Put: { TableName: table, Item: { PK: hot, SK: randomBytes(4).toString('hex') } } },
              { Put: { TableName: table, Item: { PK: `OWN#${randomBytes(4).toString('hex')}`, SK: 'I' } } },
            ],
          }),
        );
      const [hot, first, second] = await inOneSecond(async (attempt) => {
        const settle = (p: Promise<unknown>) =>
          p.then(
            () => null,
            (e: unknown) => e,
          );
        const hot = `TXHOT#${attempt}`;
        const first = await settle(tx(hot)); // 2 of the item's 3 units this second
        return [hot, first, await settle(tx(hot))] as const;
      });
      expect(first).toBeNull();
      expect(second).toBeInstanceOf(TransactionCanceledException);
      expect((second as TransactionCanceledException).CancellationReasons?.map((r) => r.Code)).toEqual(['ThrottlingError', 'None']);
      // The service's transactions send a throttled transaction again (transact.ts), so it commits in a later second.
      const committed = transaction()
        .add({ entity: 'payment', write: { Put: { TableName: table, Item: { PK: hot, SK: 'service' } } } })
        .commit(db);
      await expect(committed).resolves.toBeUndefined();
    } finally {
      await proxy.stop();
    }
  });
});

describe('the service under conflicts (the stream fold running)', () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startTestStack({ conflicts: { latencyMs: 12 }, streams: true });
  });
  afterAll(() => stack.stop());

  it('32 concurrent card payments of one merchant meet no conflict: their credits share no item (issue 22 part 2)', async () => {
    {
      const m = await stack.createMerchant();
      const api = payments(stack, m);
      const results = await Promise.all(
        Array.from({ length: 32 }, () => api.direct({ payment_method: 'card', amount: 10, card: card('4242424242424242') })),
      );
      expect(results.map((r) => r.status)).toEqual(results.map(() => 200));
      expect(results.every((r) => r.body.status === 'success')).toBe(true);
      expect(stack.conflictStats!.transactionConflicts).toBe(0);
      expect(await balanceMinor(m)).toBe(32 * 1000);
      const entries = await ledger(m);
      expect(entries.reduce((s, e) => s + Number(e.amount_minor), 0)).toBe(32 * 1000);
    }
  });

  it('payments, refunds and payouts mixed: no 5xx (a busy 503 retried with its key), conflicts retried, ledger = balance', async () => {
    {
      const m = await stack.createMerchant();
      const api = payments(stack, m);
      const paid = await Promise.all(
        Array.from({ length: 24 }, () => api.direct({ payment_method: 'card', amount: 20, card: card('4242424242424242') })),
      );
      expect(paid.map((r) => r.status)).toEqual(paid.map(() => 200));
      // A debit that does not get its turn on the balance within its request's budget is answered 503
      // BUSY_RETRY_SAME_KEY (issue 34): sent again with its key, as the SDK does, it is done once.
      const json = async (path: string, body: unknown) => {
        const key = randomBytes(8).toString('hex');
        for (let attempt = 1; ; attempt++) {
          const r = await stack.request(path, {
            method: 'POST',
            apiKey: m.apiKey,
            headers: { 'content-type': 'application/json', 'x-idempotency-key': key },
            body: JSON.stringify(body),
          });
          if (r.status !== 503 || r.body?.error?.code !== 'BUSY_RETRY_SAME_KEY' || attempt >= 20) return r;
        }
      };
      const mixed = await Promise.all([
        ...Array.from({ length: 16 }, () => api.direct({ payment_method: 'card', amount: 20, card: card('4242424242424242') })),
        ...paid.slice(0, 8).map((p) => json(`/api/v1/payments/${p.body.payment_id}/refunds`, { amount: 5 })),
        ...Array.from({ length: 8 }, () =>
          json('/api/v1/payout', { method_code: 'svc-mt-5', amount: 15, currency: 'BRL', beneficiary: pixBeneficiary }),
        ),
      ]);
      expect(mixed.filter((r) => r.status >= 500).map((r) => r.text)).toEqual([]);
      expect(mixed.every((r) => r.status === 200)).toBe(true); // 40 x 20 = 800 in, 8 x 5 + 8 x 15 = 160 out: all fit
      const sum = (await ledger(m)).reduce((s, e) => s + Number(e.amount_minor), 0);
      expect(sum).toBe((40 * 20 - 8 * 5 - 8 * 15) * 100);
      expect(await balanceMinor(m)).toBe(sum);
      expect(stack.conflictStats!.transactionConflicts + stack.conflictStats!.writeConflicts).toBeGreaterThan(0); // met, and retried
    }
  });
});
