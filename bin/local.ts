/**
 * `npm start`: the whole service locally, no AWS account and no Docker.
 *   npm start                 data kept in .local/
 *   npm start -- --memory     nothing kept
 *   PORT=4000 npm start       another port (default 3000)
 */
import { parseArgs } from 'node:util';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import type { LocalStack } from './local/stack';

const started = performance.now();
// Lambda runs Node 22; the SDK's notice about Node 20 is not news on a laptop.
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
  },
});
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
    onError: (e) => console.error('[local] handler error:', e),
  });
} catch (e) {
  console.error('The local stack failed to start:', e instanceof Error ? e.message : e);
  process.exit(1);
}

const s = stack.sandbox;
const kept = values.memory ? '(in memory: nothing is kept)' : `(data in ${stateDir}/)`;
console.log(`
Local payments API ready in ${Math.round(performance.now() - started)} ms ${kept}

  Base URL        ${s.base_url}
  Merchant id     ${s.merchant_id}${stack.reusedMerchant ? '  (reused)' : ''}
  API key         ${s.api_key}
  Webhook secret  ${s.webhook_secret}

  Written to ${join(stateDir, 'sandbox.json')}
  Try: curl -H "X-API-Key: ${s.api_key}" '${s.base_url}/api/v1/methods?country=BRA'

Ctrl-C stops everything.`);
