/**
 * An isolated copy of the service for one test file: its own table and queues
 * on the shared engines, the real HTTP server in-process on a free port, and a
 * seeded merchant. Requests go over real HTTP.
 */
import { randomBytes } from 'node:crypto';
import type { Server } from 'node:http';
import { dynamoClientFor, ensureQueues, ensureTable, startDynamoDbLocal } from '../../bin/local/services';
import { startStreamPoller } from '../../bin/local/stream-poller';
import { onTableWrite, watchTableWrites } from '../../bin/local/table-writes';
import { dynamoClient } from '../../shared/adapters/aws-clients';
import { STREAM_CONSUMERS } from '../../shared/manifest/streams';
import { createHttpServer, listen, type ExtraRoute } from '../../bin/local/http-server';
import { startPoller } from '../../bin/local/sqs-poller';
import { startConflictProxy, type ConflictProxy } from '../../bin/local/conflict-proxy';
import { SQSClient } from '@aws-sdk/client-sqs';
import { queueDefinitions, queueUrlEnv } from '../../shared/manifest/queues';
import type { CreateMerchantInput, merchantAdmin } from '../../shared/application/merchants';
import { adminService } from '../../shared/wiring';
import { checkResponse } from './contract';
import { engines } from './engines';

export interface TestMerchant {
  merchantId: string;
  apiKey: string;
  keyId: string;
  webhookSecret: string;
}

export interface TestStack {
  baseUrl: string;
  tableName: string;
  queueEnv: Record<string, string>;
  admin: ReturnType<typeof merchantAdmin>;
  createMerchant(input?: Partial<CreateMerchantInput>): Promise<TestMerchant>;
  request(path: string, init?: RequestInit & { apiKey?: string }): Promise<{ status: number; headers: Headers; body: any; text: string }>;
  /** With `conflicts`: what the conflict proxy forwarded and refused. */
  readonly conflictStats?: ConflictProxy['stats'];
  stop(): Promise<void>;
}

/**
 * `workers: true` also runs the queue consumers (the webhook sender) with Lambda's batch semantics, and the
 * table's stream consumers (the fold of pending credits into balances); `streams: true` runs the latter alone.
 */
export async function startTestStack(
  options: {
    extraRoutes?: ExtraRoute[];
    workers?: boolean;
    streams?: boolean;
    conflicts?: { latencyMs?: number; partitionWriteUnitsPerSecond?: number };
    /**
     * A DynamoDB Local of its own, empty, stopped with the stack: for a file that changes the table's indexes
     * (DynamoDB Local builds an index slower the more the engine holds, and the worker's engine holds every
     * earlier file's table).
     */
    ownEngine?: boolean;
  } = {},
): Promise<TestStack> {
  const shared = engines();
  const own = options.ownEngine ? await startDynamoDbLocal({ dataDir: null }) : null;
  const { sqs } = shared;
  const engine = own?.endpoint ?? shared.dynamodb;
  // With `conflicts`, the service reaches DynamoDB Local through the proxy that answers as DynamoDB does (issue 22).
  const proxy = options.conflicts ? await startConflictProxy({ target: engine, ...options.conflicts }) : null;
  const dynamodb = proxy?.endpoint ?? engine;
  const id = `t${randomBytes(5).toString('hex')}`;
  const tableName = `test-${id}`;
  await ensureTable(dynamodb, tableName);
  const queueEnv = await ensureQueues(sqs, `test-${id}`);
  Object.assign(process.env, { TABLE_NAME: tableName, DYNAMODB_ENDPOINT: dynamodb, SQS_ENDPOINT: sqs, ...queueEnv });

  const errors: string[] = [];
  const failed = (e: unknown, where?: string) => errors.push(`${where ?? 'a handler'}: ${String(e)}`);
  const server: Server = createHttpServer({ onError: failed, extraRoutes: options.extraRoutes });
  const port = await listen(server, 0);
  const baseUrl = `http://127.0.0.1:${port}`;
  process.env.PUBLIC_BASE_URL = baseUrl;

  const admin = adminService({ seedBalances: false });
  const pollers: Array<{ stop(): Promise<void> }> = [];
  if (options.workers) {
    const client = new SQSClient({ endpoint: sqs, region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
    for (const q of queueDefinitions()) {
      if (q.consumer)
        pollers.push(
          startPoller({
            sqs: client,
            queueId: q.id,
            queueUrl: queueEnv[queueUrlEnv(q.id)] ?? '',
            consumer: q.consumer,
            onError: failed,
          }),
        );
    }
  }

  if (options.workers || options.streams) {
    watchTableWrites(dynamoClient());
    for (const consumer of STREAM_CONSUMERS) {
      const poller = startStreamPoller({
        dynamodb: dynamoClientFor(engine),
        endpoint: engine,
        tableName,
        consumer,
        batchingWindowSeconds: 0, // tests wait for the fold: no batching window
        onError: failed,
        wakeOn: onTableWrite,
      });
      await poller.ready;
      pollers.push(poller);
    }
  }

  return {
    baseUrl,
    tableName,
    queueEnv,
    admin,
    async createMerchant(input = {}) {
      const r = await admin.createMerchant({ name: 'Test Merchant', ...input });
      return { merchantId: r.merchant.merchant_id, apiKey: r.apiKey.secret, keyId: r.apiKey.key.key_id, webhookSecret: r.webhookSecret };
    },
    async request(path, init = {}) {
      const { apiKey, ...rest } = init;
      const headers = new Headers(rest.headers);
      if (apiKey) headers.set('x-api-key', apiKey);
      const res = await fetch(`${baseUrl}${path}`, { ...rest, headers });
      const text = await res.text();
      let body: unknown;
      try {
        body = text ? JSON.parse(text) : undefined;
      } catch {
        body = undefined;
      }
      checkResponse({ method: rest.method ?? 'GET', path, status: res.status, headers: res.headers, text });
      return { status: res.status, headers: res.headers, body, text };
    },
    conflictStats: proxy?.stats,
    async stop() {
      await Promise.all(pollers.map((p) => p.stop()));
      await proxy?.stop();
      await new Promise<void>((r) => {
        server.close(() => r());
        server.closeAllConnections();
      });
      await own?.stop();
      if (errors.length > 0) throw new Error(`Handlers failed unexpectedly: ${errors.join('; ')}`);
    },
  };
}
