/**
 * Feeds the table's stream to its consumers as Lambda's event source mapping does (shared/manifest/streams.ts):
 * DynamoDB Local serves the stream on its own endpoint; each shard is read in order, a batch of up to batchSize
 * records at a time, filtered by the consumer's filter pattern; a batch whose handler throws is sent again, up
 * to retryAttempts times (or until it goes through, when that is null), then skipped (what a skipped batch
 * wrote is still in the table, for the sweep job); a handler that reports failed records gets the batch again
 * from the first of them.
 * Shards open when the poller starts are read from LATEST (the sweep folds what came before); shards that
 * open later are read from TRIM_HORIZON.
 */
import { DescribeTableCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  DescribeStreamCommand,
  DynamoDBStreamsClient,
  ExpiredIteratorException,
  TrimmedDataAccessException,
  GetRecordsCommand,
  GetShardIteratorCommand,
  type _Record as StreamRecord,
} from '@aws-sdk/client-dynamodb-streams';
import type { DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import type { StreamConsumer } from '../../shared/manifest/streams';
import { lambdaContext } from './lambda-events';
import { loadHandler, type LambdaHandler } from './handler-loader';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from './services';

/** Between two reads that found nothing: never sooner (as before the write notice). */
const IDLE_MS = 100;
/** For this long after a write or a record, reads stay IDLE_MS apart; then they rest up to REST_MS (table-writes.ts). */
const ACTIVE_FOR_MS = 1000;
const REST_MS = 1000;
const DISCOVER_EVERY_MS = 3000;

/** Lambda's filter-criteria pattern, the subset the manifest uses: nested objects down to arrays of allowed values. */
export function matchesFilter(pattern: unknown, value: unknown): boolean {
  if (Array.isArray(pattern)) return pattern.some((allowed) => allowed === value);
  if (pattern && typeof pattern === 'object') {
    if (!value || typeof value !== 'object') return false;
    return Object.entries(pattern).every(([k, p]) => matchesFilter(p, (value as Record<string, unknown>)[k]));
  }
  return pattern === value;
}

function lambdaRecord(r: StreamRecord, streamArn: string): DynamoDBRecord {
  const d = r.dynamodb ?? {};
  return {
    eventID: r.eventID,
    eventName: r.eventName as DynamoDBRecord['eventName'],
    eventVersion: r.eventVersion,
    eventSource: 'aws:dynamodb',
    awsRegion: LOCAL_REGION,
    eventSourceARN: streamArn,
    dynamodb: {
      ApproximateCreationDateTime: d.ApproximateCreationDateTime ? Math.floor(d.ApproximateCreationDateTime.getTime() / 1000) : undefined,
      Keys: d.Keys as never,
      NewImage: d.NewImage as never,
      OldImage: d.OldImage as never,
      SequenceNumber: d.SequenceNumber,
      SizeBytes: d.SizeBytes,
      StreamViewType: d.StreamViewType as never,
    },
  };
}

export function startStreamPoller(opts: {
  dynamodb: DynamoDBClient;
  endpoint: string;
  tableName: string;
  consumer: StreamConsumer;
  /** Overrides the consumer's batching window (tests that wait for the fold use 0). */
  batchingWindowSeconds?: number;
  onError?: (e: unknown, where?: string) => void;
  /**
   * Subscribes to a notice of the table's writes (bin/local/table-writes.ts onTableWrite): with it, a quiet poller
   * rests up to REST_MS between reads and reads at once on a write; without it, it reads every IDLE_MS.
   */
  wakeOn?: (listener: () => void) => () => void;
  /** The longest rest with wakeOn (default REST_MS; a test makes it long to see that a write alone wakes it). */
  restMs?: number;
}): { ready: Promise<void>; stop(): Promise<void> } {
  const streams = new DynamoDBStreamsClient({ endpoint: opts.endpoint, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS });
  const iterators = new Map<string, string | null>(); // shard id -> next iterator (null: closed, fully read)
  const buffers = new Map<string, { records: DynamoDBRecord[]; since: number }>();
  const windowMs = (opts.batchingWindowSeconds ?? opts.consumer.maxBatchingWindowSeconds) * 1000;
  let running = true;
  let streamArn = '';
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
  // A write noticed since the last read began; the rest in progress, to end early.
  let written = false;
  let lastActivity = Date.now();
  let endRest: (() => void) | null = null;
  const unsubscribe = opts.wakeOn?.(() => {
    written = true;
    lastActivity = Date.now();
    endRest?.();
  });
  const rest = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        endRest = null;
        resolve();
      }, ms);
      endRest = () => {
        clearTimeout(timer);
        endRest = null;
        resolve();
      };
    });

  async function discover(initial: boolean) {
    const shards = (await streams.send(new DescribeStreamCommand({ StreamArn: streamArn }))).StreamDescription?.Shards ?? [];
    for (const shard of shards) {
      const id = shard.ShardId ?? '';
      if (iterators.has(id)) continue;
      const closed = !!shard.SequenceNumberRange?.EndingSequenceNumber;
      if (initial && closed) {
        iterators.set(id, null); // closed before we started: the sweep's to catch up
        continue;
      }
      const r = await streams.send(
        new GetShardIteratorCommand({ StreamArn: streamArn, ShardId: id, ShardIteratorType: initial ? 'LATEST' : 'TRIM_HORIZON' }),
      );
      iterators.set(id, r.ShardIterator ?? null);
    }
  }

  async function deliver(handler: LambdaHandler, matching: DynamoDBRecord[]) {
    const { retryAttempts, reportBatchItemFailures } = opts.consumer;
    let batch = matching;
    for (let attempt = 0; batch.length > 0 && running && (retryAttempts === null || attempt <= retryAttempts); attempt++) {
      try {
        const event: DynamoDBStreamEvent = { Records: batch };
        const result = (await handler(event, lambdaContext(`${opts.consumer.id}-stream`, opts.consumer.timeoutSeconds))) as
          { batchItemFailures?: Array<{ itemIdentifier?: string }> } | undefined;
        const failed = new Set((reportBatchItemFailures ? (result?.batchItemFailures ?? []) : []).map((f) => f.itemIdentifier));
        if (failed.size === 0) return;
        // As the mapping does with a partial batch response: the retry starts at the first failed record.
        const first = batch.findIndex((r) => failed.has(r.dynamodb?.SequenceNumber));
        batch = batch.slice(Math.max(first, 0));
      } catch (e) {
        opts.onError?.(e, `${opts.consumer.id}-stream`);
      }
      await sleep(Math.min(200 * (attempt + 1), 5000));
    }
  }

  const ready = (async () => {
    const d = await opts.dynamodb.send(new DescribeTableCommand({ TableName: opts.tableName }));
    streamArn = d.Table?.LatestStreamArn ?? '';
    if (!streamArn) throw new Error(`table ${opts.tableName} has no stream`);
    await discover(true);
  })();

  const loop = (async () => {
    await ready;
    const handler = await loadHandler(opts.consumer.handler);
    let lastDiscovery = Date.now();
    while (running) {
      written = false;
      try {
        if (Date.now() - lastDiscovery > DISCOVER_EVERY_MS) {
          await discover(false);
          lastDiscovery = Date.now();
        }
        let any = false;
        for (const [shard, iterator] of iterators) {
          if (!iterator || !running) continue;
          const r = await streams
            .send(new GetRecordsCommand({ ShardIterator: iterator, Limit: opts.consumer.batchSize }))
            .catch(async (e: unknown) => {
              // An iterator past its 15 minutes, or pointing below what the engine trimmed: read on from the oldest
              // record still there, as the event source mapping does (anything trimmed is the sweep's).
              if (!(e instanceof TrimmedDataAccessException || e instanceof ExpiredIteratorException)) throw e;
              const again = await streams.send(
                new GetShardIteratorCommand({ StreamArn: streamArn, ShardId: shard, ShardIteratorType: 'TRIM_HORIZON' }),
              );
              return { Records: [], NextShardIterator: again.ShardIterator };
            });
          const records = (r.Records ?? []).map((x) => lambdaRecord(x, streamArn));
          if (records.length > 0) any = true;
          // Filtered, then batched: a batch goes when full, when the batching window since its first record has
          // passed, or when its shard closes.
          const buffer = buffers.get(shard) ?? { records: [], since: Date.now() };
          if (buffer.records.length === 0) buffer.since = Date.now();
          buffer.records.push(...records.filter((x) => matchesFilter(opts.consumer.filter, x)));
          buffers.set(shard, buffer);
          const next = r.NextShardIterator ?? null;
          while (
            buffer.records.length >= opts.consumer.batchSize ||
            (buffer.records.length > 0 && (Date.now() - buffer.since >= windowMs || !next))
          ) {
            await deliver(handler, buffer.records.splice(0, opts.consumer.batchSize));
            buffer.since = Date.now();
          }
          iterators.set(shard, next);
          if (!next) lastDiscovery = 0; // a shard closed: its successor is open already
        }
        if (any) lastActivity = Date.now();
        else {
          await sleep(IDLE_MS);
          const quiet = opts.wakeOn && !written && Date.now() - lastActivity > ACTIVE_FOR_MS;
          if (quiet && running) await rest((opts.restMs ?? REST_MS) - IDLE_MS);
        }
      } catch (e) {
        if (!running) break;
        opts.onError?.(e, `${opts.consumer.id} stream poller`);
        await sleep(500);
      }
    }
  })();

  return {
    ready,
    async stop() {
      running = false;
      unsubscribe?.();
      endRest?.();
      await loop.catch(() => undefined);
      streams.destroy();
    },
  };
}
