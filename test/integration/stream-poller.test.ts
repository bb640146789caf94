/**
 * The local stream poller (bin/local/stream-poller.ts) with the write notice (bin/local/table-writes.ts): at rest it
 * stops asking DynamoDB Local for records, a write this process makes through a watched client is read at once,
 * and a write it was not told of is read when the rest ends or a notice comes. The rest is made a minute long
 * here, so a record that arrives within the waits below arrived because of the notice.
 */
import { randomBytes } from 'node:crypto';
import { createServer, request, type Server } from 'node:http';
import { PutItemCommand } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, PutCommand } from '@aws-sdk/lib-dynamodb';
import { dynamoClientFor, ensureTable } from '../../bin/local/services';
import { startStreamPoller } from '../../bin/local/stream-poller';
import { onTableWrite, tableWritten, watchTableWrites } from '../../bin/local/table-writes';
import type { StreamConsumer } from '../../shared/manifest/streams';
import { engines } from '../support/engines';
import { recorded } from '../support/stream-recorder.handler';

const RECORDER: StreamConsumer = {
  id: 'recorder',
  description: 'records what it is given',
  handler: 'test/support/stream-recorder.handler.ts',
  batchSize: 10,
  maxBatchingWindowSeconds: 0,
  retryAttempts: 0,
  timeoutSeconds: 30,
  access: { table: 'none' },
  filter: { eventName: ['INSERT'] },
};

/** DynamoDB Local behind a proxy that counts the stream reads (GetRecords) the poller makes. */
function countingProxy(target: string): Promise<{ url: string; reads: () => number; server: Server }> {
  const to = new URL(target);
  let reads = 0;
  const server = createServer((req, res) => {
    if (String(req.headers['x-amz-target']).endsWith('.GetRecords')) reads++;
    const out = request({ host: to.hostname, port: to.port, method: req.method, path: req.url, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    out.on('error', () => res.destroy());
    req.pipe(out);
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      resolve({ url: `http://127.0.0.1:${port}`, reads: () => reads, server });
    }),
  );
}

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));
async function until(what: string, check: () => boolean, timeoutMs = 15_000) {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await pause(50);
  }
}

describe('the local stream poller with the write notice', () => {
  /** Past a second of reads at the busy pace (one each 100 ms) after a write, it rests: no read in a whole second. */
  async function untilResting(): Promise<number> {
    let before = proxy.reads();
    const deadline = Date.now() + 15_000;
    for (;;) {
      await pause(1_000);
      if (proxy.reads() === before) return before;
      if (Date.now() > deadline) throw new Error(`still reading: ${proxy.reads()} reads`);
      before = proxy.reads();
    }
  }

  const engine = engines().dynamodb;
  const tableName = `stream-${randomBytes(5).toString('hex')}`;
  const watched = dynamoClientFor(engine);
  const unwatched = dynamoClientFor(engine);
  let proxy: Awaited<ReturnType<typeof countingProxy>>;
  let poller: ReturnType<typeof startStreamPoller>;
  const put = (client: typeof watched, pk: string) =>
    client.send(new PutItemCommand({ TableName: tableName, Item: { PK: { S: pk }, SK: { S: 'item' } } }));

  beforeAll(async () => {
    await ensureTable(engine, tableName);
    proxy = await countingProxy(engine);
    watchTableWrites(watched);
    poller = startStreamPoller({
      dynamodb: dynamoClientFor(engine),
      endpoint: proxy.url,
      tableName,
      consumer: RECORDER,
      batchingWindowSeconds: 0,
      wakeOn: onTableWrite,
      restMs: 60_000,
    });
    await poller.ready;
  });

  afterAll(async () => {
    await poller.stop();
    await new Promise<void>((r) => proxy.server.close(() => r()));
    watched.destroy();
    unwatched.destroy();
  });

  test('at rest it stops reading the stream (it read every 100 ms before the notice)', async () => {
    const before = await untilResting();
    await pause(2_000);
    expect(proxy.reads() - before).toBe(0);
  });

  test('a write through a watched client (its document client too) is read at once, not at the end of the rest', async () => {
    const reads = proxy.reads();
    // Through a document client built on it, as the service's repositories write.
    await DynamoDBDocumentClient.from(watched).send(new PutCommand({ TableName: tableName, Item: { PK: 'written-here', SK: 'item' } }));
    await until('the record of the watched write', () => recorded.includes('written-here'));
    expect(proxy.reads()).toBeGreaterThan(reads);
  });

  test('a write it was not told of waits for the rest to end or for a notice', async () => {
    await untilResting(); // after the last test's write
    await put(unwatched, 'written-elsewhere');
    await pause(1_500);
    expect(recorded).not.toContain('written-elsewhere');
    tableWritten();
    await until('the record after the notice', () => recorded.includes('written-elsewhere'));
    expect(recorded.filter((pk) => pk === 'written-here' || pk === 'written-elsewhere')).toEqual(['written-here', 'written-elsewhere']);
  });
});
