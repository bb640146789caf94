/**
 * `npm start`: the whole service locally, no AWS account and no Docker.
 *   npm start                 data kept in .local/
 *   npm start -- --memory     nothing kept
 *   PORT=4000 npm start       another port (default 3000)
 *   npm start -- --stage live --providers FILE
 *                             the live stage: sk_live_ keys, the providers of FILE (DESIGN.md section 8), .local/live.json
 *   JOBS_INTERVAL_SECONDS=5   run the scheduled jobs this often (default: each job's schedule, 60 s)
 *   npm start -- --emulate-conflicts [--conflict-latency-ms 20] [--throttle-partition-wcu 1000]
 *                             DynamoDB's transaction conflict rules in front of DynamoDB Local (bin/local/conflict-proxy.ts),
 *                             and optionally its per-partition write limit
 *   npm start -- --dynamodb-endpoint URL
 *                             an existing DynamoDB-compatible endpoint instead of DynamoDB Local (the table is created if missing)
 */
import { parseArgs } from 'node:util';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import type { LocalStack } from './local/stack';

const started = performance.now();
// Lambda runs Node 24; the SDK's notice about Node 20 is not news on a laptop.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
// Powertools reads these when its logger and metrics are created, so before the service's modules load.
process.env.POWERTOOLS_METRICS_DISABLED ??= 'true';
process.env.POWERTOOLS_TRACE_ENABLED ??= 'false';
const { startLocalStack } = await import('./local/stack');
const { values } = parseArgs({
  options: {
    memory: { type: 'boolean', default: false },
    port: { type: 'string' },
    'state-dir': { type: 'string' },
    stage: { type: 'string', default: 'sandbox' },
    providers: { type: 'string' },
    'emulate-conflicts': { type: 'boolean', default: false },
    'conflict-latency-ms': { type: 'string' },
    'dynamodb-endpoint': { type: 'string' },
    'throttle-partition-wcu': { type: 'string' },
  },
});
if (values.stage !== 'sandbox' && values.stage !== 'live') {
  console.error(`--stage must be sandbox or live (got ${values.stage}).`);
  process.exit(1);
}
const stage = values.stage;
const jobsInterval = process.env.JOBS_INTERVAL_SECONDS ? Number(process.env.JOBS_INTERVAL_SECONDS) : stage === 'live' ? 60 : undefined;
const port = Number(values.port ?? process.env.PORT ?? 3000);
const stateDir = values['state-dir'] ?? process.env.LOCAL_STATE_DIR ?? '.local';

let stack: LocalStack | undefined;
let stopping = false;

async function shutdown(code: number) {
  if (stopping) return;
  stopping = true;
  console.log('\nStopping the local stack…');
  await stack?.stop();
  if (values.memory) rmSync(join(stateDir, 'stack.json'), { force: true });
  console.log('Stopped.');
  process.exit(code);
}

process.on('SIGINT', () => void shutdown(0));
process.on('SIGTERM', () => void shutdown(0));

try {
  stack = await startLocalStack({
    port,
    memory: Boolean(values.memory),
    stateDir,
    stage,
    providersFile: values.providers,
    ...(values['dynamodb-endpoint'] ? { dynamodbEndpoint: values['dynamodb-endpoint'] } : {}),
    ...(values['emulate-conflicts']
      ? {
          emulateConflicts: {
            latencyMs: Number(values['conflict-latency-ms'] ?? 0),
            ...(values['throttle-partition-wcu'] ? { partitionWriteUnitsPerSecond: Number(values['throttle-partition-wcu']) } : {}),
          },
        }
      : {}),
    jobsIntervalSeconds: jobsInterval && Number.isFinite(jobsInterval) && jobsInterval > 0 ? jobsInterval : undefined,
    onError: (e) => console.error('[local] handler error:', e),
  });
} catch (e) {
  console.error('The local stack failed to start:', e instanceof Error ? e.message : e);
  process.exit(1);
}

const s = stack.sandbox;
const providersLine = stack.stage === 'live' ? `\n  Providers       ${values.providers} (callbacks under ${s.base_url}/providers/)` : '';
const kept = values.memory ? '(in memory: nothing is kept)' : `(data in ${stateDir}/)`;
console.log(`
Local payments API ready in ${Math.round(performance.now() - started)} ms ${kept}${stack.stage === 'live' ? ' (live stage)' : ''}

  Base URL        ${s.base_url}
  Merchant id     ${s.merchant_id}${stack.reusedMerchant ? '  (reused)' : ''}
  API key         ${s.api_key}
  Webhook secret  ${s.webhook_secret}

  Written to ${stack.merchantFile}${providersLine}
  Try: curl -H "X-API-Key: ${s.api_key}" '${s.base_url}/api/v1/methods?country=BRA'

Ctrl-C stops everything.`);
