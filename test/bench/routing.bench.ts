/**
 * `npm run bench:routing`: routing and failover (issue 42, DESIGN.md 9.2) on the local live stage (DynamoDB Local and
 * fauxqs in memory, HTTP API, workers) against the fake API Pix PSP (`api_pix`) and the fake Efí (`efi`), with the rule
 * `pix: api_pix, efi`: live PIX payments created one after another while the first PSP is healthy, then refusing
 * connections, then hanging. For each phase: the share of payments whose charge was created (the shopper was shown
 * a code), create latency p50/p99, and how many payments hold a charge at both PSPs (charged twice: must be 0). The
 * hang phase reports before and after the breaker opened. Timeouts as configured below (connect 1 s, total 1.5 s).
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { printReport, runBench } from './support';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
process.env.POWERTOOLS_LOG_LEVEL = 'ERROR';
process.env.POWERTOOLS_METRICS_DISABLED = 'true';

const N = Number(process.env.BENCH_ROUTING_PAYMENTS ?? 40);
const TIMEOUTS = { connect_ms: 1000, total_ms: 1500 };

interface Sample {
  readonly ms: number;
  readonly status: number;
  readonly paymentId: string | null;
  readonly pending: boolean;
}

const q = (sorted: readonly number[], p: number) =>
  sorted.length ? Math.round(sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)]!) : NaN;

async function main() {
  const { startFakePsp } = await import('../support/fake-psp');
  const { startFakeEfi } = await import('../support/fake-efi');
  const [psp, efi] = await Promise.all([startFakePsp({ hangMs: 10_000 }), startFakeEfi({ hangMs: 10_000 })]);
  const dir = mkdtempSync(join(tmpdir(), 'bench-routing-'));
  const providersFile = join(dir, 'providers.json');
  const token = randomBytes(24).toString('base64url');
  writeFileSync(
    providersFile,
    JSON.stringify({
      api_pix: { ...psp.apiPixConfig(token), timeouts: TIMEOUTS },
      efi: { ...efi.efiConfig(randomBytes(24).toString('base64url')), timeouts: TIMEOUTS },
      routing: { pix: { '*': { providers: ['api_pix', 'efi'] } } },
    }),
  );
  const { startLocalStack } = await import('../../bin/local/stack');
  const stack = await startLocalStack({ port: 0, memory: true, workers: true, stage: 'live', providersFile, stateDir: dir });
  const { merchantAdmin } = await import('../../shared/application/merchants');
  const { repositories } = await import('../../shared/wiring');
  const { randomIds, randomSecrets, systemClock } = await import('../../shared/adapters/crypto');
  const { txidOf } = await import('../../shared/adapters/providers/api-pix/api-pix.transformers');
  const { breakers } = await import('../../shared/application/routing');
  const admin = merchantAdmin({
    ...repositories,
    ids: randomIds,
    secrets: randomSecrets,
    clock: systemClock,
    seedTestBalances: async () => {},
  });
  const { merchant } = await admin.createMerchant({ name: 'Bench routing' });
  const key = await admin.createKey(merchant.merchant_id, 'live');

  const pay = async (): Promise<Sample> => {
    const t = performance.now();
    const res = await fetch(`${stack.sandbox.base_url}/cashier/cashier/payment`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key.secret}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        payment_method: 'pix',
        amount: 25,
        currency: 'BRL',
        country: 'BRA',
        customer: { name: 'Ana Silva', email: 'ana@example.com', document: '52998224725' },
      }),
    });
    const body = (await res.json()) as { payment_id?: string; status?: string };
    return { ms: performance.now() - t, status: res.status, paymentId: body.payment_id ?? null, pending: body.status === 'pending' };
  };
  /** Payments holding a charge at both PSPs (attempt 1 at api_pix, attempt 2 at efi): must be none. */
  const twice = (samples: readonly Sample[]) =>
    samples.filter((s) => s.paymentId && psp.cob(txidOf(s.paymentId)) && efi.cob(txidOf(s.paymentId, 2))).length;
  const row = (phase: string, samples: readonly Sample[]) => {
    const ms = samples.map((s) => s.ms).sort((a, b) => a - b);
    const shown = samples.filter((s) => s.pending).length;
    const share = `${shown} (${((100 * shown) / Math.max(1, samples.length)).toFixed(0)}%)`;
    return `| ${phase} | ${samples.length} | ${share} | ${q(ms, 0.5)} | ${q(ms, 0.99)} | ${twice(samples)} |`;
  };
  const run = async (n: number) => {
    const out: Sample[] = [];
    for (let i = 0; i < n; i++) out.push(await pay());
    return out;
  };

  await run(3); // warm-up: handler modules, TLS sessions, OAuth tokens at both PSPs
  const healthy = await run(N);
  breakers.reset();
  await psp.outage('refuse');
  const refused = await run(N);
  await psp.outage(null);
  breakers.reset();
  await run(3); // api_pix answering again (its breaker closed)
  await psp.outage('hang');
  const hung = await run(N);
  await psp.outage(null);
  const opened = hung.findIndex((s) => s.ms < TIMEOUTS.total_ms);
  const before = opened === -1 ? hung : hung.slice(0, opened);
  const after = opened === -1 ? [] : hung.slice(opened);

  printReport(
    `Routing and failover of live PIX (api_pix then efi), ${N} payments a phase, Node ${process.version}, ${new Date().toISOString()}`,
    '| phase | payments | charge created (code shown) | create p50 ms | create p99 ms | charged at both PSPs |',
    [
      row('both healthy (api_pix serves)', healthy),
      row('api_pix refusing connections (fails over at once)', refused),
      row('api_pix hanging: before the breaker opens', before),
      row('api_pix hanging: after the breaker opens (skipped)', after),
    ],
  );
  console.log(
    `\nHanging: ${before.length} payment(s) waited for the timeout (${TIMEOUTS.total_ms} ms, then a read-back that also got no answer) ` +
      'and answered 502 PROVIDER_UNAVAILABLE, processing at api_pix: a timeout is never failed over (DESIGN.md 9.2); the ' +
      'reconciliation job fails them once api_pix says it has no charge.',
  );
  await stack.stop();
  await Promise.all([psp.close(), efi.close()]);
}

runBench(main);
