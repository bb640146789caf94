/**
 * Live payouts crash proof for PIX through Efí and bank transfers through dLocal (issues 32 and 33): `npm run
 * proof:payouts`, and part of `npm run proof` (CI). Like the SPEI proof (live-spei.proof.ts): the fakes run in this
 * process (they outlive the service, as the providers do); the local stack runs the live stage on them as a child
 * process group and is SIGKILLed mid-load PROOF_KILLS times, restarted on the same state dir. Load: keyed live
 * payouts (PIX by key in BRL, Argentina CBU in ARS, Colombia accounts in COP), some sends failing (503, a hang, a
 * lost answer); each send is then paid or failed at the provider, with its callback or without one. Keyed payouts
 * that got no answer are retried with their key; every send still in flight is then paid silently (only the resume
 * job's read-back can see it), and the proof waits (bounded) until quiet, reads the table and checks:
 *   (a) every live payout's status is what its provider holds (paid: completed; failed: failed);
 *   (b) the fakes saw no request off our schemas of their APIs, and exactly one send (Efí PUT, dLocal POST) per
 *       payout: a retry after a lost answer read it back, never sent it again;
 *   (c) every payout has one debit, and one credit-back exactly when failed;
 *   (d) each balance plus the credits still to fold equals the sum of its ledger entries, and is never negative;
 *   (e) every committed event reached the merchant's receiver; every payout answered 200 or 502 exists.
 * Exits 1 on a violation, 2 when the proof could not run. Knobs: PROOF_KILLS (default 2), PROOF_PHASE_SECONDS
 * (default 4), PROOF_SETTLE_SECONDS (default 200, ended as soon as every check holds: the resume job's grace is a
 * minute; five clean-clone CI runs waited 53 to 97 s).
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { payoutRepository } from '../../shared/adapters/dynamodb/payout.repository';
import { externalIdOf } from '../../shared/adapters/providers/dlocal/dlocal.transformers';
import { idEnvioOf } from '../../shared/adapters/providers/efi/efi.transformers';
import { startFakeDlocal, type FakeDlocal } from '../support/fake-dlocal';
import { startFakeEfi, type FakeEfi } from '../support/fake-efi';
import { startReceiver, type Receiver } from '../support/receiver';
import {
  freePort,
  liveProofKnobs,
  scanAll,
  setNotificationUrl,
  sleep,
  startStack,
  stopStack,
  type Item,
  type Stack,
  underKills,
  postAs,
  runProof,
  verdict,
} from './stack-process';
import { balanceViolations, outstandingSummary } from './balances';

const {
  kills: KILLS,
  phaseSeconds: PHASE_SECONDS,
  settleSeconds: SETTLE_SECONDS,
  log,
} = liveProofKnobs('payouts', {
  settle: 200,
  minSettle: 70,
  guardExtra: 90,
});

const TOKEN = randomBytes(24).toString('base64url');
type Rail = 'pix' | 'cbu' | 'col';
const BODIES: Record<Rail, (amount: number) => Record<string, unknown>> = {
  pix: (amount) => ({
    method_code: 'svc-mt-5',
    amount,
    currency: 'BRL',
    beneficiary: {
      name: 'Ana Silva',
      document: '52998224725',
      document_type: 'CPF',
      instant_transfer_key: 'ana@example.com',
      instant_transfer_type: 'email',
    },
  }),
  cbu: (amount) => ({
    method_code: 'svc-mt-31',
    amount: amount * 10,
    currency: 'ARS',
    beneficiary: {
      name: 'Lucía Gómez',
      document: '20123456786',
      document_type: 'CUIT',
      instant_transfer_key: '2850590940090418135201',
      instant_transfer_type: 'cbu',
    },
  }),
  col: (amount) => ({
    method_code: 'svc-mt-32',
    amount: 10_000 + Math.round(amount) * 100,
    currency: 'COP',
    beneficiary: {
      name: 'Carlos Ruiz',
      document: '1020304050',
      document_type: 'CC',
      bank_code: '007',
      account_number: '12345678901',
      account_type: 'savings',
    },
  }),
};

const answered = new Map<string, Rail>();
const unanswered: Array<{ key: string; body: Record<string, unknown>; rail: Rail }> = [];
const counts = { payouts: 0, ok: 0, unavailable: 0, noAnswer: 0, paid: 0, failed: 0, faults: 0 };
let stack: Stack;

const post = (path: string, body: unknown, headers: Record<string, string> = {}) => postAs(stack, path, body, headers);

/** What the provider does with a send once it holds it: pays or fails it (70%), by callback or silently; or leaves it. */
async function decide(efi: FakeEfi, dlocal: FakeDlocal, id: string, rail: Rail) {
  const callback = Math.random() < 0.7;
  const dice = Math.random();
  await sleep(100 + Math.random() * 400);
  if (dice >= 0.85) return; // left in flight: paid silently at the end
  const pay = dice < 0.6;
  if (rail === 'pix') {
    const idEnvio = idEnvioOf(id);
    if (!efi.send(idEnvio)) return;
    await (pay ? efi.complete(idEnvio, { callback }) : efi.fail(idEnvio, { spi: 'AC03', callback })).catch(() => null);
  } else {
    const externalId = externalIdOf(id);
    if (!dlocal.payout(externalId)) return;
    dlocal.setPayoutStatus(externalId, pay ? 'PAID' : 'REJECTED', pay ? undefined : 'ERROR_ACCOUNT_INCORRECT');
    if (callback) await dlocal.notifyPayout(externalId).catch(() => null);
  }
  if (pay) counts.paid++;
  else counts.failed++;
}

async function payout(efi: FakeEfi, dlocal: FakeDlocal) {
  const key = randomUUID();
  const rail = (['pix', 'cbu', 'col'] as const)[Math.floor(Math.random() * 3)]!;
  const roll = Math.random();
  const fault =
    roll < 0.06 ? { status: 503 } : roll < 0.1 ? ({ hang: true } as const) : roll < 0.15 ? ({ hangAfter: true } as const) : null;
  if (fault) {
    counts.faults++;
    if (rail === 'pix') efi.failNext('send', fault);
    else dlocal.failNext('payouts', fault);
  }
  const body = BODIES[rail](10 + Math.floor(Math.random() * 200) + Math.floor(Math.random() * 100) / 100);
  counts.payouts++;
  let r;
  try {
    r = await post('/api/v1/payout', body, { 'x-idempotency-key': key });
  } catch {
    counts.noAnswer++;
    unanswered.push({ key, body, rail });
    return;
  }
  await afterPayout(efi, dlocal, r, rail);
}

async function afterPayout(efi: FakeEfi, dlocal: FakeDlocal, r: { status: number; body: Record<string, any> }, rail: Rail) {
  const id = r.status === 200 ? (r.body.payout_id as string) : /po_[A-Za-z0-9_-]{22}/.exec(String(r.body.error?.message ?? ''))?.[0];
  if (!id) return;
  answered.set(id, rail);
  if (r.status === 502) return void counts.unavailable++;
  if (r.status !== 200) return;
  counts.ok++;
  await decide(efi, dlocal, id, rail);
}

async function load(efi: FakeEfi, dlocal: FakeDlocal, phase: number) {
  const end = Date.now() + PHASE_SECONDS * 1300;
  const runners = Array.from({ length: 4 }, async () => {
    while (Date.now() < end && stack.alive) await payout(efi, dlocal).catch(() => undefined);
  });
  await Promise.all(runners);
  log(`phase ${phase}: load stopped`);
}

/** What the provider holds of a payout: paid, failed, in flight, or nothing. */
function held(efi: FakeEfi, dlocal: FakeDlocal, p: Item): 'paid' | 'failed' | 'pending' | null {
  if (p.method_code === 'svc-mt-5') {
    const s = efi.send(idEnvioOf(p.payout_id));
    return !s ? null : s.status === 'REALIZADO' ? 'paid' : s.status === 'NAO_REALIZADO' ? 'failed' : 'pending';
  }
  const d = dlocal.payout(externalIdOf(p.payout_id));
  return !d ? null : d.status === 'PAID' ? 'paid' : d.status === 'REJECTED' ? 'failed' : 'pending';
}
const EXPECTED = { paid: 'completed', failed: 'failed', pending: 'processing' } as const;

function check(items: Item[], efi: FakeEfi, dlocal: FakeDlocal, receiver: Receiver): string[] {
  const v: string[] = [];
  const payouts = items.filter((i) => String(i.PK).startsWith('PAYOUT#') && i.livemode === true);
  const ledger = items.filter((i) => i.entity === 'ledger_entry' && i.mode === 'live');
  for (const p of payouts) {
    const h = held(efi, dlocal, p);
    const want = h ? EXPECTED[h] : 'a send at its provider';
    if (p.status !== want) v.push(`a: ${p.payout_id} (${p.method_code}) is ${p.status}; the provider holds ${h ?? 'nothing'}`);
    const sends = p.method_code === 'svc-mt-5' ? efi.attempts(idEnvioOf(p.payout_id)) : dlocal.payoutCreates(externalIdOf(p.payout_id));
    if (sends !== 1) v.push(`b: ${p.payout_id} was sent ${sends} times`);
    const debits = ledger.filter((l) => l.object_id === p.payout_id && l.reason === 'payout').length;
    if (debits !== 1) v.push(`c: ${p.payout_id} has ${debits} debits`);
    const credits = ledger.filter((l) => l.object_id === p.payout_id && String(l.reason).startsWith('payout_')).length;
    if (credits !== (p.status === 'failed' ? 1 : 0)) v.push(`c: ${p.payout_id} (${p.status}) has ${credits} credits`);
  }
  v.push(...efi.violations.map((x) => `b: Efí ${x}`), ...dlocal.violations.map((x) => `b: dLocal ${x}`));
  v.push(...balanceViolations(items, 'd'));
  const delivered = new Set(receiver.received.map((r) => String(r.headers['webhook-id'])));
  for (const e of items.filter((i) => String(i.PK).startsWith('EVENT#') && i.livemode === true))
    if (!delivered.has(e.event_id)) v.push(`e: event ${e.event_id} (${e.type}) never delivered`);
  const ids = new Set(payouts.map((p) => p.payout_id));
  for (const id of answered.keys()) if (!ids.has(id)) v.push(`e: ${id} answered but missing`);
  return v;
}

async function main(): Promise<number> {
  const stateDir = mkdtempSync(join(tmpdir(), 'payouts-proof-'));
  const port = await freePort();
  const efi = await startFakeEfi({ hangMs: 5_000 });
  const dlocal = await startFakeDlocal({ hangMs: 5_000 });
  const providers = join(stateDir, 'providers.json');
  const timeouts = { connect_ms: 1000, total_ms: 2000 };
  writeFileSync(providers, JSON.stringify({ efi: { ...efi.efiConfig(TOKEN), timeouts }, dlocal: dlocal.dlocalConfig({ timeouts }) }));
  const receiver = await startReceiver();
  const opts = {
    args: ['--stage', 'live', '--providers', providers],
    merchantFile: 'live.json',
    env: { JOBS_INTERVAL_SECONDS: '2', PAYOUT_SETTLEMENT_DELAY_SECONDS: '1', REFUND_SETTLEMENT_DELAY_SECONDS: '1' },
  };
  log(`state dir ${stateDir}, port ${port}, kills ${KILLS}, phase ${PHASE_SECONDS} s`);
  stack = await startStack(0, stateDir, port, opts);
  efi.setWebhookUrl(`${stack.baseUrl}/providers/efi/${TOKEN}`);
  await setNotificationUrl(stack, receiver.url);
  // The live balances the payouts draw on (a live balance is otherwise funded by pay-ins).
  const store = payoutRepository(stack.db, () => stack.tableName);
  for (const [currency, amountMinor] of [
    ['BRL', 100_000_000],
    ['ARS', 1_000_000_000],
    ['COP', 100_000_000_000],
  ] as const)
    await store.topUp({
      merchantId: stack.merchantId,
      livemode: true,
      currency,
      amountMinor,
      entryId: `le_${randomBytes(16).toString('base64url')}`,
      reason: 'test_top_up',
      now: new Date().toISOString(),
    });
  try {
    await underKills({
      kills: KILLS,
      phaseSeconds: PHASE_SECONDS,
      log,
      current: () => stack,
      load: (phase) => load(efi, dlocal, phase),
      restart: async (n) => {
        stack = await startStack(n, stateDir, port, opts);
        log(`stack ${n} restarted; ${unanswered.length} keyed payouts without an answer so far`);
      },
    });
    for (const u of unanswered.splice(0)) {
      const r = await post('/api/v1/payout', u.body, { 'x-idempotency-key': u.key }).catch(() => null);
      if (r) await afterPayout(efi, dlocal, r, u.rail);
    }
    const deadline = Date.now() + SETTLE_SECONDS * 1000;
    let violations: string[] = [];
    for (;;) {
      await sleep(3000);
      // Sends still in flight are paid now, silently: only the resume job's read-back can tell the service.
      for (const p of (await scanAll(stack)).filter((i) => String(i.PK).startsWith('PAYOUT#') && i.livemode === true)) {
        if (held(efi, dlocal, p) !== 'pending') continue;
        if (p.method_code === 'svc-mt-5') await efi.complete(idEnvioOf(p.payout_id), { callback: false });
        else dlocal.setPayoutStatus(externalIdOf(p.payout_id), 'PAID');
      }
      violations = check(await scanAll(stack), efi, dlocal, receiver);
      log(`waiting: ${outstandingSummary(violations)}`);
      if (violations.length === 0 || Date.now() > deadline) break;
    }
    log(`load: ${JSON.stringify(counts)}; Efí requests ${efi.requests.length}; dLocal requests ${dlocal.requests.length}`);
    return verdict(log, violations, stateDir);
  } finally {
    await stopStack(stack, 'SIGTERM', log);
    await receiver.stop();
    await efi.close();
    await dlocal.close();
  }
}

runProof('payouts proof', main);
