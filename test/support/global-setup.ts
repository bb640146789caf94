/**
 * Starts DynamoDB Local and fauxqs once for the whole jest run; test files
 * each create their own table and queues on them (test/support/test-stack.ts).
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startDynamoDbLocal, startSqsEmulator } from '../../bin/local/services';

declare global {
  var __ENGINES__: { stop(): Promise<void> }[] | undefined;
}

/**
 * On a loaded machine an engine (DynamoDB Local's JVM above all) can take longer to answer than its start waits
 * (bin/local/services.ts): start it again, up to 3 times, instead of failing the whole run.
 */
async function patiently<T>(name: string, start: () => Promise<T>, attempts = 3): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await start();
    } catch (e) {
      if (attempt >= attempts) throw e;
      console.warn(`${name} did not start (attempt ${attempt} of ${attempts}), starting it again: ${(e as Error).message}`);
    }
  }
}

/**
 * One DynamoDB Local per jest worker (test/support/engines.ts picks it by JEST_WORKER_ID): one JVM serializes every
 * transaction of every table it holds, so two workers sharing it wait on each other's writes, and an index it builds
 * for one file (migrate-listing-index) waits behind the other worker's load. fauxqs is light and stays shared.
 */
export default async function globalSetup(globalConfig: { maxWorkers?: number; nonFlagArgs?: string[] }) {
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
  // Every temporary file of the run (CDK's cdk.out folders, CLI state dirs, browser profiles) goes under one folder
  // the teardown removes: the workers inherit TMPDIR, and os.tmpdir() reads it.
  process.env.TEST_RUN_TMPDIR = mkdtempSync(join(tmpdir(), 'jest-run-'));
  process.env.TMPDIR = process.env.TEST_RUN_TMPDIR;
  // One named test file runs in band: one engine is enough.
  const oneFile = globalConfig.nonFlagArgs?.length === 1 && globalConfig.nonFlagArgs[0]!.endsWith('.test.ts');
  const workers = oneFile ? 1 : Math.max(1, Math.min(4, globalConfig.maxWorkers ?? 1));
  const [sqs, ...dynamodbs] = await Promise.all([
    patiently('fauxqs', () => startSqsEmulator({ childProcess: true })),
    ...Array.from({ length: workers }, () => patiently('DynamoDB Local', () => startDynamoDbLocal({ dataDir: null }))),
  ]);
  globalThis.__ENGINES__ = [...dynamodbs, sqs];
  process.env.TEST_DYNAMODB_ENDPOINTS = dynamodbs.map((d) => d.endpoint).join(',');
  process.env.TEST_SQS_ENDPOINT = sqs.endpoint;
  // Every (route, status) pair the contract checks see (test/support/contract.ts); the teardown reports coverage.
  process.env.CONTRACT_COVERAGE_FILE = join(mkdtempSync(join(tmpdir(), 'contract-')), 'pairs.txt');
  writeFileSync(process.env.CONTRACT_COVERAGE_FILE, '');
}
