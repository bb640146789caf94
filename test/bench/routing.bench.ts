/**
 * `npm run bench:routing`: routing and failover (issue 42, DESIGN.md 9.2) on the local live stage (DynamoDB Local and
 * fauxqs in memory, HTTP API, workers) against the fakes, with the rules `pix: api_pix, efi` (the fake API Pix PSP and
 * the fake Efí) and `card: adyen, dlocal` (the fake Adyen and the fake dLocal): live payments created one after another
 * while the first provider is healthy, then refusing connections, then hanging. For each phase: the share of payments
 * that got through (a PIX code shown; a card approved), create latency p50/p99, and how many payments both providers
 * hold (charged twice: must be 0). The hang phases report before and after the breaker opened. Timeouts as
 * configured below (connect 1 s, total 1.5 s).
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
  const { startFakeAdyen } = await import('../support/fake-adyen');
  const { startFakeDlocal, FAKE_CARDS } = await import('../support/fake-dlocal');
  const [psp, efi, adyen, dlocal] = await Promise.all([
    startFakePsp({ hangMs: 10_000 }),
    startFakeEfi({ hangMs: 10_000 }),
    startFakeAdyen({ hangMs: 10_000 }),
    startFakeDlocal({ hangMs: 10_000 }),
  ]);
  const dir = mkdtempSync(join(tmpdir(), 'bench-routing-'));
  const providersFile = join(dir, 'providers.json');
  const token = randomBytes(24).toString('base64url');
  writeFileSync(
    providersFile,
    JSON.stringify({
      api_pix: { ...psp.apiPixConfig(token), timeouts: TIMEOUTS },
      efi: { ...efi.efiConfig(randomBytes(24).toString('base64url')), timeouts: TIMEOUTS },
      adyen: adyen.adyenConfig({ timeouts: TIMEOUTS }),
      dlocal: dlocal.dlocalConfig({ timeouts: TIMEOUTS }),
      routing: { pix: { '*': { providers: ['api_pix', 'efi'] } }, card: { '*': { providers: ['adyen', 'dlocal'] } } },
    }),
  );
  const { startLocalStack } = await import('../../bin/local/stack');
  const stack = await startLocalStack({ port: 0, memory: true, workers: true, stage: 'live', providersFile, stateDir: dir });
  const { merchantAdmin } = await import('../../shared/application/merchants');
  const { repositories } = await import('../../shared/wiring');
  const { randomIds, randomSecrets, systemClock } = await import('../../shared/adapters/crypto');
  const { txidOf } = await import('../../shared/adapters/providers/api-pix/api-pix.transformers');
  const { paymentReferenceOf } = await import('../../shared/adapters/providers/adyen/adyen.transformers');
  const { cardOrderIdOf } = await import('../../shared/adapters/providers/dlocal/dlocal.card-transformers');
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
  // Every phase one after another: above the route's default 100 a minute (a bench, not a merchant's traffic).
  await admin.setRateLimits(merchant.merchant_id, { createDirectPayment: 100_000 });
  adyen.setNotificationUrl(`${stack.sandbox.base_url}/providers/adyen/notifications`);

  const year = String(new Date().getUTCFullYear() + 3);
  let kind: 'pix' | 'card' = 'pix';
  const pay = async (): Promise<Sample> => {
    const t = performance.now();
    const res = await fetch(`${stack.sandbox.base_url}/cashier/cashier/payment`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key.secret}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        payment_method: kind,
        amount: 25,
        currency: 'BRL',
        country: 'BRA',
        customer: { name: 'Ana Silva', email: 'ana@example.com', document: '52998224725' },
        ...(kind === 'card'
          ? { card: { number: FAKE_CARDS.approve, holder_name: 'ANA SILVA', cvv: '737', expiry_month: '03', expiry_year: year } }
          : {}),
      }),
    });
    const body = (await res.json()) as { payment_id?: string; status?: string };
    const through = kind === 'pix' ? body.status === 'pending' : body.status === 'success';
    return { ms: performance.now() - t, status: res.status, paymentId: body.payment_id ?? null, pending: through };
  };
  const refused = (samples: readonly Sample[]) => samples.filter((s) => s.status !== 200 && s.status !== 502);
  /** Payments both providers hold (a PIX charge at both PSPs; a card authorised at both acquirers): must be none. */
  const cardAt = (id: string, n: number) => dlocal.cards.byOrderId.get(cardOrderIdOf(id, n))?.status ?? '';
  const atBoth = (id: string) =>
    kind === 'pix'
      ? Boolean(psp.cob(txidOf(id)) && efi.cob(txidOf(id, 2)))
      : adyen.payment(paymentReferenceOf(id))?.resultCode === 'Authorised' &&
        [1, 2].some((n) => ['PAID', 'AUTHORIZED'].includes(cardAt(id, n)));
  const twice = (samples: readonly Sample[]) => samples.filter((s) => s.paymentId && atBoth(s.paymentId)).length;
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

  const rows: string[] = [];
  const notes: string[] = [];
  const other: Sample[] = [];
  const phases = async (name: string, first: string, refuse: (on: boolean) => Promise<void>, hang: (on: boolean) => Promise<void>) => {
    await run(3); // warm-up: handler modules, TLS sessions, tokens at both providers
    breakers.reset();
    const healthy = await run(N);
    await refuse(true);
    const refusedPhase = await run(N);
    await refuse(false);
    breakers.reset();
    await run(3); // the first provider answering again
    await hang(true);
    const hung = await run(N);
    await hang(false);
    other.push(...refused([...healthy, ...refusedPhase, ...hung]));
    const opened = hung.findIndex((s) => s.ms < TIMEOUTS.total_ms);
    const before = opened === -1 ? hung : hung.slice(0, opened);
    const after = opened === -1 ? [] : hung.slice(opened);
    rows.push(
      row(`${name}: both healthy (${first} serves)`, healthy),
      row(`${name}: ${first} refusing connections (fails over at once)`, refusedPhase),
      row(`${name}: ${first} hanging, before its breaker opens`, before),
      row(`${name}: ${first} hanging, after its breaker opens (skipped)`, after),
    );
    notes.push(`${name}: ${before.length} payment(s) waited for ${first}'s timeout and answered 502 PROVIDER_UNAVAILABLE`);
  };
  kind = 'pix';
  await phases(
    'PIX',
    'api_pix',
    (on) => psp.outage(on ? 'refuse' : null),
    (on) => psp.outage(on ? 'hang' : null),
  );
  kind = 'card';
  await phases(
    'card',
    'adyen',
    (on) => adyen.refuseConnections(on ? 'closed' : null),
    // Every call hangs (the last phase: nothing runs after it).
    async (on) => void (on && adyen.failNext('payments', { hang: true }, 1000)),
  );
  if (other.length) throw new Error(`answers other than 200 or 502: ${other.map((s) => s.status).join(', ')}`);

  printReport(
    `Routing and failover (PIX: api_pix then efi; cards: adyen then dlocal), ${N} payments a phase, ` +
      `Node ${process.version}, ${new Date().toISOString()}`,
    '| phase | payments | through (PIX code shown, card approved) | create p50 ms | create p99 ms | held by both providers |',
    rows,
  );
  console.log(
    `\n${notes.join('; ')}. A timeout is never failed over (DESIGN.md 9.2): the PSP's read-back got no answer either ` +
      "(PIX), or the acquirer has none (Adyen); those payments stay processing with the first provider's reference for the " +
      'reconciliation job (the PIX charge is failed once the PSP says it has none; the card is cancelled by reference).',
  );
  await stack.stop();
  await Promise.all([psp.close(), efi.close(), adyen.close(), dlocal.close()]);
}

runBench(main);
