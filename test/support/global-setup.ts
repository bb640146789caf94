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

export default async function globalSetup() {
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
  const [dynamodb, sqs] = await Promise.all([
    patiently('DynamoDB Local', () => startDynamoDbLocal({ dataDir: null })),
    patiently('fauxqs', () => startSqsEmulator({ childProcess: true })),
  ]);
  globalThis.__ENGINES__ = [dynamodb, sqs];
  process.env.TEST_DYNAMODB_ENDPOINT = dynamodb.endpoint;
  process.env.TEST_SQS_ENDPOINT = sqs.endpoint;
  // Every (route, status) pair the contract checks see (test/support/contract.ts); the teardown reports coverage.
  process.env.CONTRACT_COVERAGE_FILE = join(mkdtempSync(join(tmpdir(), 'contract-')), 'pairs.txt');
  writeFileSync(process.env.CONTRACT_COVERAGE_FILE, '');
}
