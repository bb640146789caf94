/**
 * The whole service on one machine: DynamoDB Local, fauxqs, the HTTP API, the
 * queue consumers, the scheduled jobs and a seeded sandbox merchant.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseProvidersConfig } from '../../shared/adapters/providers/providers.config';
import { SQSClient } from '@aws-sdk/client-sqs';
import { JOBS } from '../../shared/manifest/jobs';
import { queueDefinitions, queueUrlEnv } from '../../shared/manifest/queues';
import { createHttpServer, listen } from './http-server';
import { recoverInFlightWork } from './recover';
import { startScheduler } from './scheduler';
import { startConflictProxy, type ConflictProxy } from './conflict-proxy';
import { seedSandboxMerchant, type SandboxInfo } from './seed';
import { startPoller } from './sqs-poller';
import {
  dynamoClientFor,
  ensureQueues,
  ensureTable,
  LOCAL_CREDENTIALS,
  LOCAL_REGION,
  startDynamoDbLocal,
  startSqsEmulator,
} from './services';
import { startStreamPoller } from './stream-poller';
import { onTableWrite, watchTableWrites } from './table-writes';
import { dynamoClient } from '../../shared/adapters/aws-clients';
import { STREAM_CONSUMERS } from '../../shared/manifest/streams';

export const LOCAL_TABLE = 'latam-payments-local';
export const LOCAL_QUEUE_PREFIX = 'latam-payments-local';

export interface LocalStackOptions {
  readonly port: number;
  /** Keep nothing on disk (DynamoDB Local -inMemory). */
  readonly memory: boolean;
  /** Where data, sandbox.json and stack.json live. */
  readonly stateDir: string;
  readonly onError?: (e: unknown) => void;
  /** Run the queue consumers and scheduled jobs (default true; benchmarks of the API alone turn them off). */
  readonly workers?: boolean;
  /** The stage served (default sandbox): live serves sk_live_ keys only, with the providers of `providersFile`. */
  readonly stage?: 'sandbox' | 'live';
  /** The providers document (DESIGN.md section 8) of the live stage, checked at start. */
  readonly providersFile?: string;
  /** How often the scheduled jobs run, in seconds (default each job's own schedule; JOBS_INTERVAL_SECONDS). */
  readonly jobsIntervalSeconds?: number;
  /** Put the conflict proxy (DynamoDB's transaction conflict rules) between the service and DynamoDB Local. */
  readonly emulateConflicts?: { readonly latencyMs?: number; readonly partitionWriteUnitsPerSecond?: number };
  /**
   * An existing DynamoDB-compatible endpoint to use instead of starting DynamoDB Local (another engine, a proxy):
   * the table is created there when missing; nothing is started or stopped. Its stream API must answer too.
   */
  readonly dynamodbEndpoint?: string;
}

export interface LocalStack {
  /** The seeded merchant: sandbox.json's on the sandbox stage, live.json's on the live stage. */
  readonly sandbox: SandboxInfo;
  readonly stage: 'sandbox' | 'live';
  /** Where the seeded merchant was written. */
  readonly merchantFile: string;
  readonly reusedMerchant: boolean;
  readonly dynamodbEndpoint: string;
  readonly sqsEndpoint: string;
  /** With emulateConflicts: what the conflict proxy forwarded and refused. */
  readonly conflictStats?: ConflictProxy['stats'];
  stop(): Promise<void>;
}

/** The environment the handlers read (shared/config.ts), pointed at the local engines. */
function localEnvironment(dynamodb: string, sqs: string, queueEnv: Record<string, string>, opts: LocalStackOptions) {
  return {
    STAGE: opts.stage ?? 'sandbox',
    ...(opts.providersFile ? { PROVIDERS_FILE: resolve(opts.providersFile) } : {}),
    TABLE_NAME: LOCAL_TABLE,
    DYNAMODB_ENDPOINT: dynamodb,
    SQS_ENDPOINT: sqs,
    AWS_REGION: LOCAL_REGION,
    AWS_ACCESS_KEY_ID: LOCAL_CREDENTIALS.accessKeyId,
    AWS_SECRET_ACCESS_KEY: LOCAL_CREDENTIALS.secretAccessKey,
    POWERTOOLS_SERVICE_NAME: 'latam-payments',
    POWERTOOLS_TRACE_ENABLED: 'false',
    POWERTOOLS_METRICS_DISABLED: process.env.POWERTOOLS_METRICS_DISABLED ?? 'true',
    POWERTOOLS_LOG_LEVEL: process.env.POWERTOOLS_LOG_LEVEL ?? 'INFO',
    // Local receivers run on this machine; deployed stages never set this.
    WEBHOOK_ALLOW_LOOPBACK: process.env.WEBHOOK_ALLOW_LOOPBACK ?? 'true',
    // A short schedule locally (seconds): attempt at once, then 5 s, 30 s, 2 min, 5 min.
    WEBHOOK_RETRY_SCHEDULE: process.env.WEBHOOK_RETRY_SCHEDULE ?? '0,5,30,120,300',
    // The local timers set the jobs' cadence (JOBS_INTERVAL_SECONDS): one reconciliation pass per run, so a stop
    // never waits on a job's read-back window; a status read still reads a late payment back at once.
    PROVIDER_READ_BACK_WINDOW_SECONDS: process.env.PROVIDER_READ_BACK_WINDOW_SECONDS ?? '0',
    ...queueEnv,
  };
}

export async function startLocalStack(opts: LocalStackOptions): Promise<LocalStack> {
  mkdirSync(opts.stateDir, { recursive: true });
  const stage = opts.stage ?? 'sandbox';
  // A malformed providers document stops the start with the field named, never the first payment.
  if (opts.providersFile) parseProvidersConfig(readFileSync(opts.providersFile, 'utf8'), opts.providersFile);
  if (stage === 'live' && !opts.providersFile) throw new Error('The live stage needs --providers FILE (DESIGN.md section 8).');
  const stops: Array<() => Promise<void>> = [];
  const stopAll = async () => {
    for (const stop of stops.reverse()) await stop().catch(() => undefined);
    stops.length = 0;
  };
  try {
    const external = opts.dynamodbEndpoint;
    const [dynamodb, sqs] = await Promise.all([
      external
        ? Promise.resolve({ endpoint: external.replace(/\/$/, ''), pid: null, stop: async () => undefined })
        : startDynamoDbLocal({ dataDir: opts.memory ? null : join(opts.stateDir, 'dynamodb') }),
      startSqsEmulator({}),
    ]);
    stops.push(dynamodb.stop, sqs.stop);
    await ensureTable(dynamodb.endpoint, LOCAL_TABLE);
    const queueEnv = await ensureQueues(sqs.endpoint, LOCAL_QUEUE_PREFIX);
    const proxy = opts.emulateConflicts ? await startConflictProxy({ target: dynamodb.endpoint, ...opts.emulateConflicts }) : null;
    if (proxy) stops.push(proxy.stop);
    Object.assign(process.env, localEnvironment(proxy?.endpoint ?? dynamodb.endpoint, sqs.endpoint, queueEnv, opts));
    // fauxqs starts empty: whatever was on the queues when the last run stopped is gone. Send again what the
    // table says was in flight, before the consumers start (test/proof/crash.proof.ts proves the need).
    if (!opts.memory && opts.workers !== false) {
      const r = await recoverInFlightWork().catch((e: unknown) => {
        opts.onError?.(e);
        return null;
      });
      if (r && r.deliveries + r.settlements + r.credits > 0) {
        console.log(
          `[local] sent again after a restart: ${r.deliveries} webhook deliveries, ` +
            `${r.settlements} settlement steps; ${r.credits} pending credits folded`,
        );
      }
    }

    // The table's stream consumers (event dispatch, the fold of pending credits), reading from now on before any request is served.
    // They read right after each write the service makes in this process (table-writes.ts), and rest when none comes.
    if (opts.workers !== false) watchTableWrites(dynamoClient());
    for (const consumer of opts.workers === false ? [] : STREAM_CONSUMERS) {
      const poller = startStreamPoller({
        dynamodb: dynamoClientFor(dynamodb.endpoint),
        endpoint: dynamodb.endpoint,
        tableName: LOCAL_TABLE,
        consumer,
        onError: opts.onError,
        wakeOn: onTableWrite,
      });
      stops.push(poller.stop);
      await poller.ready;
    }

    const server = createHttpServer({ onError: opts.onError });
    const port = await listen(server, opts.port);
    const baseUrl = `http://127.0.0.1:${port}`;
    process.env.PUBLIC_BASE_URL = baseUrl;
    stops.push(
      () =>
        new Promise<void>((r) => {
          server.close(() => r());
          server.closeAllConnections();
        }),
    );

    const sqsClient = new SQSClient({ endpoint: sqs.endpoint, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS });
    for (const q of opts.workers === false ? [] : queueDefinitions()) {
      if (!q.consumer) continue;
      const poller = startPoller({
        sqs: sqsClient,
        queueId: q.id,
        queueUrl: queueEnv[queueUrlEnv(q.id)] ?? '',
        consumer: q.consumer,
        onError: opts.onError,
      });
      stops.push(poller.stop);
    }
    const every = opts.jobsIntervalSeconds;
    const scheduler = startScheduler(opts.workers === false ? [] : JOBS, {
      onError: opts.onError,
      ...(every && every > 0 ? { intervalMs: () => every * 1000 } : {}),
    });
    stops.push(scheduler.stop);

    const merchantFile = join(opts.stateDir, stage === 'live' ? 'live.json' : 'sandbox.json');
    const seeded = await seedSandboxMerchant(merchantFile, baseUrl, stage === 'live' ? 'live' : 'test');
    const { reused, ...sandbox } = seeded;
    writeFileSync(merchantFile, `${JSON.stringify(sandbox, null, 2)}\n`, { mode: 0o600 });
    writeFileSync(
      join(opts.stateDir, 'stack.json'),
      `${JSON.stringify(
        {
          base_url: baseUrl,
          stage,
          ...(opts.providersFile ? { providers_file: resolve(opts.providersFile) } : {}),
          dynamodb_endpoint: dynamodb.endpoint,
          sqs_endpoint: sqs.endpoint,
          table_name: LOCAL_TABLE,
          region: LOCAL_REGION,
          pid: process.pid,
          ...(dynamodb.pid ? { dynamodb_pid: dynamodb.pid } : { dynamodb_external: true }),
          queues: queueEnv,
        },
        null,
        2,
      )}\n`,
    );
    return {
      sandbox,
      stage,
      merchantFile,
      conflictStats: proxy?.stats,
      reusedMerchant: reused,
      dynamodbEndpoint: dynamodb.endpoint,
      sqsEndpoint: sqs.endpoint,
      stop: stopAll,
    };
  } catch (e) {
    await stopAll();
    throw e;
  }
}
