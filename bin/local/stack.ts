/**
 * The whole service on one machine: DynamoDB Local, fauxqs, the HTTP API, the
 * queue consumers, the scheduled jobs and a seeded sandbox merchant.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { SQSClient } from '@aws-sdk/client-sqs';
import { JOBS } from '../../shared/manifest/jobs';
import { queueDefinitions, queueUrlEnv } from '../../shared/manifest/queues';
import { createHttpServer, listen } from './http-server';
import { recoverInFlightWork } from './recover';
import { startScheduler } from './scheduler';
import { seedSandboxMerchant, type SandboxInfo } from './seed';
import { startPoller } from './sqs-poller';
import { ensureQueues, ensureTable, LOCAL_CREDENTIALS, LOCAL_REGION, startDynamoDbLocal, startSqsEmulator } from './services';

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
}

export interface LocalStack {
  readonly sandbox: SandboxInfo;
  readonly reusedMerchant: boolean;
  readonly dynamodbEndpoint: string;
  readonly sqsEndpoint: string;
  stop(): Promise<void>;
}

/** The environment the handlers read (shared/config.ts), pointed at the local engines. */
function localEnvironment(dynamodb: string, sqs: string, queueEnv: Record<string, string>) {
  return {
    STAGE: 'sandbox',
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
    ...queueEnv,
  };
}

export async function startLocalStack(opts: LocalStackOptions): Promise<LocalStack> {
  mkdirSync(opts.stateDir, { recursive: true });
  const stops: Array<() => Promise<void>> = [];
  const stopAll = async () => {
    for (const stop of stops.reverse()) await stop().catch(() => undefined);
    stops.length = 0;
  };
  try {
    const [dynamodb, sqs] = await Promise.all([
      startDynamoDbLocal({ dataDir: opts.memory ? null : join(opts.stateDir, 'dynamodb') }),
      startSqsEmulator({}),
    ]);
    stops.push(dynamodb.stop, sqs.stop);
    await ensureTable(dynamodb.endpoint, LOCAL_TABLE);
    const queueEnv = await ensureQueues(sqs.endpoint, LOCAL_QUEUE_PREFIX);
    Object.assign(process.env, localEnvironment(dynamodb.endpoint, sqs.endpoint, queueEnv));
    // fauxqs starts empty: whatever was on the queues when the last run stopped is gone. Send again what the
    // table says was in flight, before the consumers start (test/proof/crash.proof.ts proves the need).
    if (!opts.memory && opts.workers !== false) {
      const r = await recoverInFlightWork().catch((e: unknown) => {
        opts.onError?.(e);
        return null;
      });
      if (r && r.outbox + r.deliveries + r.settlements > 0) {
        console.log(
          `[local] sent again after a restart: ${r.outbox + r.deliveries} webhook deliveries (${r.outbox} from the outbox), ` +
            `${r.settlements} settlement steps`,
        );
      }
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
    const scheduler = startScheduler(opts.workers === false ? [] : JOBS, { onError: opts.onError });
    stops.push(scheduler.stop);

    const seeded = await seedSandboxMerchant(join(opts.stateDir, 'sandbox.json'), baseUrl);
    const { reused, ...sandbox } = seeded;
    writeFileSync(join(opts.stateDir, 'sandbox.json'), `${JSON.stringify(sandbox, null, 2)}\n`, { mode: 0o600 });
    writeFileSync(
      join(opts.stateDir, 'stack.json'),
      `${JSON.stringify(
        {
          base_url: baseUrl,
          dynamodb_endpoint: dynamodb.endpoint,
          sqs_endpoint: sqs.endpoint,
          table_name: LOCAL_TABLE,
          region: LOCAL_REGION,
          pid: process.pid,
          dynamodb_pid: dynamodb.pid,
          queues: queueEnv,
        },
        null,
        2,
      )}\n`,
    );
    return { sandbox, reusedMerchant: reused, dynamodbEndpoint: dynamodb.endpoint, sqsEndpoint: sqs.endpoint, stop: stopAll };
  } catch (e) {
    await stopAll();
    throw e;
  }
}
