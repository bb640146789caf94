/**
 * Live SPEI crash proof (issue 24): `npm run proof:spei`, and part of `npm run proof` (CI). A payout settled and
 * then returned at STP without a callback is found by the resume job's return check (completed live payouts stay
 * on the work index for the STP return-watch window, read back with a back-off).
 *
 * The fake STP runs in this process (it outlives the service, as STP does); the local stack runs the live stage
 * on it as a child process group. Load: live SPEI pay-ins (a checkout paid by an abono to its CLABE: most with
 * the amount, some with another, some twice) that fund the balance, and keyed live SPEI payouts, whose orders
 * STP then settles, cancels, or settles and returns, with its state callback or without one; STP fails some
 * registrations (503, a hang, a lost answer). The stack is SIGKILLed mid-load PROOF_KILLS times and restarted on
 * the same state dir; keyed payouts that got no answer are retried with their key; then every order still in
 * flight is settled at STP without a callback (only the resume job's query can see it), and the proof waits
 * (bounded) until quiet, reads the table and checks:
 *   (a) every live payout has its claveRastreo (derived from its id) and its order at STP, and its status is
 *       what STP holds: LQ completed, CN failed, D refunded;
 *   (b) STP saw no request off its rules (schema, firma, company), and never two different orders for one
 *       claveRastreo;
 *   (c) a payment is success exactly when an abono with its amount reached its CLABE (answered 200: one the
 *       stack died on is posted again once it is back, as STP posts it until answered), with one payment credit;
 *   (d) every payout has one debit, and one credit-back exactly when failed or refunded;
 *   (e) the balance plus its credits still to fold equals the sum of its ledger entries, and is never negative;
 *   (f) every committed event reached the merchant's receiver; every payout answered 200 or 502 exists.
 * Exits 1 on a violation, 2 when the proof could not run. Knobs: PROOF_KILLS (default 2), PROOF_PHASE_SECONDS
 * (default 4), PROOF_SETTLE_SECONDS (default 240, ended as soon as every check holds). The worst case it must cover: an
 * order settled and returned silently is found settled by the resume job after its grace (a minute), and its return by
 * the completed payout's return watch, whose first read is a minute later (RETURN_CHECK_BACKOFF_SECONDS), each at the
 * next job run on a loaded machine: 150 s once failed a run with such a payout still completed (STP holding D).
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { claveRastreoOf } from '../../shared/adapters/providers/stp/stp.transformers';
import { startFakeStp, type FakeStp } from '../support/fake-stp';
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
} = liveProofKnobs('spei', {
  settle: 240,
  minSettle: 70,
  guardExtra: 90,
});

const TOKEN = randomBytes(24).toString('base64url');
const CLABES = ['072691004495711499', '012180001234567899'];
const beneficiary = (clabe: string) => ({
  name: 'María López Pérez',
  document: 'GODE561231HDFRRN00',
  document_type: 'CURP',
  instant_transfer_key: clabe,
  instant_transfer_type: 'clabe',
});
const customer = { name: 'Diego González', email: 'diego@example.com', document: 'GODE561231HDFRRN00' };

const answered = new Set<string>();
const unanswered: Array<{ key: string; body: unknown }> = [];
/** Abonos sent with their amounts (centavos), by CLABE. */
const deposits = new Map<string, number[]>();
/** Abonos whose post got no answer (the stack died): STP posts them again once it is back. */
const unansweredAbonos: Array<{ clabe: string; minor: number; body: Record<string, unknown> }> = [];
const counts = {
  payins: 0,
  abonos: 0,
  otherAmount: 0,
  payouts: 0,
  ok: 0,
  unavailable: 0,
  noAnswer: 0,
  settled: 0,
  cancelled: 0,
  returned: 0,
  faults: 0,
};
let stack: Stack;
let abonoId = 7_000_000;

const post = (path: string, body: unknown, headers: Record<string, string> = {}) => postAs(stack, path, body, headers);

async function abono(stp: FakeStp, clabe: string, minor: number) {
  const body = {
    id: abonoId++,
    fechaOperacion: 20261125,
    institucionOrdenante: 40072,
    institucionBeneficiaria: 90646,
    claveRastreo: `BNET${abonoId}`,
    monto: minor / 100,
    cuentaBeneficiario: clabe,
    empresa: stp.empresa,
    tsLiquidacion: Date.now(),
  };
  if (!(await deliverAbono(stp, { clabe, minor, body }, 2, 500))) unansweredAbonos.push({ clabe, minor, body });
}

/**
 * One abono posted until the service answers 200 (then it counts as money that reached the CLABE). STP posts a
 * deposit again until it is answered: one the stack died on (maybe after applying it) is posted again once the
 * stack is back (redeliverAbonos).
 */
async function deliverAbono(
  stp: FakeStp,
  a: { clabe: string; minor: number; body: Record<string, unknown> },
  tries: number,
  pauseMs: number,
) {
  for (let i = 0; i < tries; i++) {
    const r = await stp.sendAbono(a.body).catch(() => null);
    if (r?.status === 200) {
      deposits.set(a.clabe, [...(deposits.get(a.clabe) ?? []), a.minor]);
      counts.abonos++;
      if (Math.random() < 0.2) await stp.sendAbono(a.body).catch(() => null); // STP delivers it again
      return true;
    }
    await sleep(pauseMs);
  }
  return false;
}

async function redeliverAbonos(stp: FakeStp) {
  for (const a of unansweredAbonos.splice(0))
    if (!(await deliverAbono(stp, a, 10, 1000))) log(`abono ${String(a.body.claveRastreo)} still unanswered after 10 posts`);
}

/** A pay-in: a checkout in MXN paid by SPEI, its abono sent with the amount (mostly) or another. */
async function payin(stp: FakeStp, amount: number) {
  counts.payins++;
  const s = await post('/api/v1/checkout', {
    amount,
    currency: 'MXN',
    country: 'MEX',
    success_url: 'https://shop.example/ok',
    cancel_url: 'https://shop.example/no',
  });
  if (s.status !== 200) return;
  const r = await post('/api/v1/checkout/process', { session_id: s.body.session_id, payment_method: 'spei', customer });
  const clabe = r.body.clabe as string | undefined;
  if (r.status !== 200 || !clabe) return;
  const other = Math.random() < 0.1;
  if (other) counts.otherAmount++;
  await abono(stp, clabe, Math.round(amount * 100) - (other ? 100 : 0));
}

/** What STP does with an order once registered: settle, cancel, settle then return; by callback or silently. */
async function decide(stp: FakeStp, clave: string) {
  const callback = Math.random() < 0.7;
  const dice = Math.random();
  await sleep(100 + Math.random() * 400);
  if (!stp.order(clave)) return;
  if (dice < 0.55) {
    await stp.settle(clave, { callback }).catch(() => null);
    counts.settled++;
  } else if (dice < 0.75) {
    await stp.cancel(clave, { callback }).catch(() => null);
    counts.cancelled++;
  } else if (dice < 0.9) {
    await stp.settle(clave, { callback }).catch(() => null);
    await sleep(200);
    await stp.returnOrder(clave, { callback: Math.random() < 0.7 }).catch(() => null);
    counts.returned++;
  } // else left in flight: settled silently at the end
}

async function payout(stp: FakeStp) {
  const key = randomUUID();
  const roll = Math.random();
  if (roll < 0.06) stp.failNext('registra', { status: 503 });
  else if (roll < 0.1) stp.failNext('registra', { hang: true });
  else if (roll < 0.15) stp.failNext('registra', { hangAfter: true });
  if (roll < 0.15) counts.faults++;
  const amount = 10 + Math.floor(Math.random() * 200) + Math.floor(Math.random() * 100) / 100;
  const body = { method_code: 'svc-mt-30', amount, currency: 'MXN', beneficiary: beneficiary(CLABES[Math.floor(Math.random() * 2)]!) };
  counts.payouts++;
  let r;
  try {
    r = await post('/api/v1/payout', body, { 'x-idempotency-key': key });
  } catch {
    counts.noAnswer++;
    unanswered.push({ key, body });
    return;
  }
  await afterPayout(stp, r);
}

async function afterPayout(stp: FakeStp, r: { status: number; body: Record<string, any> }) {
  const id = r.status === 200 ? (r.body.payout_id as string) : /po_[A-Za-z0-9_-]{22}/.exec(String(r.body.error?.message ?? ''))?.[0];
  if (!id) return;
  answered.add(id);
  if (r.status === 502) return void counts.unavailable++;
  if (r.status !== 200) return;
  counts.ok++;
  await decide(stp, claveRastreoOf(id));
}

async function load(stp: FakeStp, phase: number) {
  const end = Date.now() + PHASE_SECONDS * 1300;
  const runners = Array.from({ length: 5 }, async (_, i) => {
    while (Date.now() < end && stack.alive)
      await (i === 0 ? payin(stp, 2000 + Math.floor(Math.random() * 3000)) : payout(stp)).catch(() => undefined);
  });
  await Promise.all(runners);
  log(`phase ${phase}: load stopped`);
}

const EXPECTED: Record<string, string> = { L: 'processing', LQ: 'completed', CN: 'failed', D: 'refunded' };

function check(items: Item[], stp: FakeStp, receiver: Receiver): string[] {
  const v: string[] = [];
  const payouts = items.filter((i) => String(i.PK).startsWith('PAYOUT#') && i.livemode === true);
  const payments = items.filter((i) => String(i.PK).startsWith('PAYMENT#') && i.livemode === true);
  const ledger = items.filter((i) => i.entity === 'ledger_entry' && i.mode === 'live');
  const entries = (id: string, reason: string) => ledger.filter((l) => l.object_id === id && l.reason === reason).length;
  for (const p of payouts) {
    const clave = claveRastreoOf(p.payout_id);
    if (p.provider?.reference !== clave) v.push(`a: ${p.payout_id} reference ${p.provider?.reference}`);
    const order = stp.order(clave);
    const want = order ? EXPECTED[order.estado] : 'an order at STP';
    if (p.status !== want) v.push(`a: ${p.payout_id} is ${p.status}; STP holds ${order?.estado ?? 'no order'}`);
    if (entries(p.payout_id, 'payout') !== 1) v.push(`d: ${p.payout_id} has ${entries(p.payout_id, 'payout')} debits`);
    const credits = ledger.filter((l) => l.object_id === p.payout_id && String(l.reason).startsWith('payout_')).length;
    if (credits !== (p.status === 'failed' || p.status === 'refunded' ? 1 : 0))
      v.push(`d: ${p.payout_id} (${p.status}) has ${credits} credits`);
  }
  v.push(...stp.violations.map((x) => `b: ${x}`));
  for (const p of payments) {
    const paidExact = (deposits.get(p.artefact?.clabe) ?? []).includes(Number(p.amount_minor));
    if (paidExact !== (p.status === 'success')) v.push(`c: ${p.payment_id} is ${p.status}; exact abono ${paidExact}`);
    if (p.status === 'success' && entries(p.payment_id, 'payment') !== 1)
      v.push(`c: ${p.payment_id} has ${entries(p.payment_id, 'payment')} credits`);
  }
  v.push(...balanceViolations(items, 'e'));
  const delivered = new Set(receiver.received.map((r) => String(r.headers['webhook-id'])));
  for (const e of items.filter((i) => String(i.PK).startsWith('EVENT#') && i.livemode === true))
    if (!delivered.has(e.event_id)) v.push(`f: event ${e.event_id} (${e.type}) never delivered`);
  const ids = new Set(payouts.map((p) => p.payout_id));
  for (const id of answered) if (!ids.has(id)) v.push(`f: ${id} answered but missing`);
  return v;
}

async function main(): Promise<number> {
  const stateDir = mkdtempSync(join(tmpdir(), 'spei-proof-'));
  const port = await freePort();
  const stp = await startFakeStp({ hangMs: 5_000 });
  const providers = join(stateDir, 'providers.json');
  writeFileSync(providers, JSON.stringify({ stp: { ...stp.stpConfig(TOKEN), timeouts: { connect_ms: 1000, total_ms: 2000 } } }));
  const receiver = await startReceiver();
  const opts = {
    args: ['--stage', 'live', '--providers', providers],
    merchantFile: 'live.json',
    env: { JOBS_INTERVAL_SECONDS: '2', PAYOUT_SETTLEMENT_DELAY_SECONDS: '1', REFUND_SETTLEMENT_DELAY_SECONDS: '1' },
  };
  log(`state dir ${stateDir}, port ${port}, kills ${KILLS}, phase ${PHASE_SECONDS} s`);
  stack = await startStack(0, stateDir, port, opts);
  stp.setCallbackBase(`${stack.baseUrl}/providers/stp/${TOKEN}`);
  await setNotificationUrl(stack, receiver.url);
  for (let i = 0; i < 4; i++) await payin(stp, 100_000); // the balance the payouts draw on
  try {
    await underKills({
      kills: KILLS,
      phaseSeconds: PHASE_SECONDS,
      log,
      current: () => stack,
      load: (phase) => load(stp, phase),
      restart: async (n) => {
        stack = await startStack(n, stateDir, port, opts);
        log(`stack ${n} restarted; ${unanswered.length} keyed payouts, ${unansweredAbonos.length} abonos without an answer so far`);
        await redeliverAbonos(stp);
      },
    });
    await redeliverAbonos(stp);
    for (const u of unanswered.splice(0)) {
      const r = await post('/api/v1/payout', u.body, { 'x-idempotency-key': u.key }).catch(() => null);
      if (r) await afterPayout(stp, r);
    }
    const deadline = Date.now() + SETTLE_SECONDS * 1000;
    let violations: string[] = [];
    for (;;) {
      await sleep(3000);
      // Orders STP still has in flight settle now, silently: only the resume job's query can tell the service.
      for (const p of (await scanAll(stack)).filter((i) => String(i.PK).startsWith('PAYOUT#') && i.livemode === true)) {
        const clave = claveRastreoOf(p.payout_id);
        if (stp.order(clave)?.estado === 'L') await stp.settle(clave, { callback: false });
      }
      violations = check(await scanAll(stack), stp, receiver);
      log(`waiting: ${outstandingSummary(violations)}`);
      if (violations.length === 0 || Date.now() > deadline) break;
    }
    log(`load: ${JSON.stringify(counts)}; STP requests ${stp.requests.length}; webhooks received ${receiver.received.length}`);
    return verdict(log, violations, stateDir);
  } finally {
    await stopStack(stack, 'SIGTERM', log);
    await receiver.stop();
    await stp.close();
  }
}

runProof('spei proof', main);
