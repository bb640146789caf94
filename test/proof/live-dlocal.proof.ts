/**
 * Live dLocal crash proof (issue 32): `npm run proof:dlocal`, and part of `npm run proof` (CI).
 *
 * The fake dLocal runs in this process (it outlives the service, as dLocal does); the local stack runs the live
 * stage on it as a child process group. Load: hosted-checkout live Peruvian payments (a bank transfer or Yape by
 * redirect, a PagoEfectivo CIP ticket; the direct API takes only PIX and cards), which dLocal then holds paid, rejected or
 * open; their notifications are sent once, twice (a duplicate), as a stale PENDING copy (out of order) or not at
 * all (lost: only the reconciliation job's read-back can see them); some paid ones are refunded, dLocal answering
 * the refund SUCCESS, PENDING or REJECTED. dLocal fails some creates (503, a hang, a lost answer) and some
 * refund sends (503, a lost answer); after the load dLocal finishes the refunds it holds pending and notifies
 * each (some notifications lost). The stack is SIGKILLed mid-load PROOF_KILLS times and restarted on the same
 * state dir; a pay that got no answer is pressed again on its session; then the proof waits (bounded) until
 * quiet, reads the table and checks:
 *   (a) each live payment's status is what dLocal holds: PAID success (or refunded), REJECTED failed, PENDING
 *       pending, nothing there failed after the grace (processing within it); one payment credit per paid one;
 *   (b) every live payment has its provider reference, the order_id derived from its id;
 *   (c) dLocal saw no request off our schemas or unsigned; never two dLocal payments for one order_id (a second
 *       create is answered 5009 and read back) and never two dLocal refunds for one of our refunds;
 *   (d) every committed event reached the merchant's receiver;
 *   (e) the balance (with the credits still to fold) equals the sum of its ledger entries and is never negative;
 *       each refund is final as dLocal
 *       holds it (SUCCESS succeeded, REJECTED failed; pending while dLocal holds it PENDING or has none yet);
 *   (f) every payment the load got 200 or 502 PROVIDER_UNAVAILABLE for exists.
 * Exits 1 on a violation, 2 when the proof could not run. Knobs: PROOF_KILLS (default 2), PROOF_PHASE_SECONDS
 * (default 4), PROOF_SETTLE_SECONDS (default 120, ended as soon as every check holds: a refund whose answer and
 * notification were both lost waits for the settlement resume job's grace of a minute).
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { orderIdOf, refundReferenceOf } from '../../shared/adapters/providers/dlocal/dlocal.transformers';
import { startFakeDlocal, type FakeDlocal } from '../support/fake-dlocal';
import { startReceiver, type Receiver } from '../support/receiver';
import {
  freePort,
  liveProofKnobs,
  livePayinStackOptions,
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
} = liveProofKnobs('dlocal', {
  settle: 120,
  minSettle: 20,
  guardExtra: 60,
});
const LOST_INTENT_SECONDS = 10;

const customer = { name: 'Rosa Quispe', email: 'rosa@example.pe', document: '45678912' };
const METHODS = ['bank_transfer', 'wallet', 'cip'] as const;
const REFUND_ANSWERS = ['SUCCESS', 'PENDING', 'REJECTED'] as const;

/** What the load was told: payments answered 200 or 502 naming them, keyed creates with no answer. */
const answered = new Set<string>();
const unanswered: Array<{ session_id: string; payment_method: string; customer: typeof customer }> = [];
const counts = {
  creates: 0,
  ok: 0,
  unavailable: 0,
  noAnswer: 0,
  paid: 0,
  rejected: 0,
  open: 0,
  notified: 0,
  duplicated: 0,
  stale: 0,
  lost: 0,
  refunds: 0,
  createFaults: 0,
  refundFaults: 0,
  refundNotifications: 0,
  refundNotificationsLost: 0,
};
let stack: Stack;

const post = (path: string, body: unknown, headers: Record<string, string> = {}) => postAs(stack, path, body, headers);

/** One shopper: a live Peruvian payment (direct or through a checkout), then what dLocal and its notifications do. */
async function chain(dlocal: FakeDlocal) {
  const amount = 10 + Math.floor(Math.random() * 90) + Math.floor(Math.random() * 100) / 100;
  const method = METHODS[Math.floor(Math.random() * METHODS.length)]!;
  const roll = Math.random();
  if (roll < 0.05) dlocal.failNext('payments', { status: 503 });
  else if (roll < 0.08) dlocal.failNext('payments', { hang: true });
  else if (roll < 0.12) dlocal.failNext('payments', { hangAfter: true });
  if (roll < 0.12) counts.createFaults++;
  counts.creates++;
  const s = await post('/api/v1/checkout', {
    amount,
    currency: 'PEN',
    country: 'PER',
    success_url: 'https://shop.example/ok',
    cancel_url: 'https://shop.example/no',
  }).catch(() => null);
  if (s?.status !== 200) return;
  const pay = { session_id: s.body.session_id as string, payment_method: method, customer };
  let r: { status: number; body: Record<string, any> };
  try {
    r = await post('/api/v1/checkout/process', pay);
  } catch {
    counts.noAnswer++;
    unanswered.push(pay);
    return;
  }
  await settleAnswer(dlocal, r);
}

/** What dLocal then sends for a payment: once, twice, a stale copy first, or nothing. */
async function notifyPayment(dlocal: FakeDlocal, orderId: string) {
  const n = Math.random();
  const send = (o: Parameters<FakeDlocal['notify']>[1] = {}) => dlocal.notify(orderId, o).catch(() => undefined);
  if (n < 0.2) return void counts.lost++;
  if (n < 0.35) {
    counts.stale++;
    return void (await send({ status: 'PENDING' }));
  }
  await send();
  counts.notified++;
  if (n > 0.85) {
    counts.duplicated++;
    await send();
  }
}

async function settleAnswer(dlocal: FakeDlocal, r: { status: number; body: Record<string, any> }) {
  // A 502 names the payment it left processing in its message.
  const id = (r.body.payment_id as string | undefined) ?? /pi_[A-Za-z0-9_-]{22}/.exec(String(r.body.error_message ?? ''))?.[0];
  if (r.status === 502 && id) {
    answered.add(id);
    counts.unavailable++;
  } else if (r.status === 200 && id) {
    answered.add(id);
    counts.ok++;
  } else return;
  const orderId = orderIdOf(id);
  if (!dlocal.payment(orderId)) return; // never created there (5xx, a hang before it): fails after the grace
  const dice = Math.random();
  if (dice < 0.1) return void counts.open++;
  if (dice < 0.2) {
    dlocal.setStatus(orderId, 'REJECTED', '301');
    counts.rejected++;
    return notifyPayment(dlocal, orderId);
  }
  dlocal.setStatus(orderId, 'PAID');
  counts.paid++;
  await notifyPayment(dlocal, orderId);
  if (Math.random() < 0.45) {
    // A refund once the payment is settled here (a lost notification waits for the reconciliation job).
    await sleep(300 + Math.random() * 1_500);
    const f = Math.random();
    if (f < 0.08) dlocal.failNext('refunds', { status: 503 });
    else if (f < 0.15) dlocal.failNext('refunds', { hangAfter: true });
    if (f < 0.15) counts.refundFaults++;
    dlocal.nextRefund(REFUND_ANSWERS[Math.floor(Math.random() * REFUND_ANSWERS.length)]!);
    const rr = await post(`/api/v1/payments/${id}/refunds`, { amount: 1 }).catch(() => null);
    if (rr?.status === 200) counts.refunds++;
  }
}

/**
 * dLocal finishes the refunds it holds pending (SUCCESS or REJECTED) and notifies each refund it holds, as it does
 * on a change; some notifications are lost (the settlement resume job reads those back after its grace).
 */
async function finishRefunds(dlocal: FakeDlocal) {
  const refs = new Set(
    dlocal.requests
      .filter((q) => q.method === 'POST' && q.path === '/refunds')
      .map((q) => String((q.body as { order_refund_id?: unknown }).order_refund_id)),
  );
  for (const ref of refs)
    for (const r of dlocal.refundsFor(ref)) {
      if (r.status === 'PENDING') dlocal.setRefundStatus(r.id, Math.random() < 0.7 ? 'SUCCESS' : 'REJECTED');
      if (Math.random() < 0.15) {
        counts.refundNotificationsLost++;
        continue;
      }
      await dlocal.notifyRefund(r.id).catch(() => undefined);
      counts.refundNotifications++;
    }
}

async function load(dlocal: FakeDlocal, phase: number) {
  const end = Date.now() + PHASE_SECONDS * 1300;
  const runners = Array.from({ length: 6 }, async () => {
    while (Date.now() < end && stack.alive) await chain(dlocal).catch(() => undefined);
  });
  await Promise.all(runners);
  log(`phase ${phase}: load stopped`);
}

function check(items: Item[], dlocal: FakeDlocal, receiver: Receiver): string[] {
  const v: string[] = [];
  const payments = items.filter((i) => String(i.PK).startsWith('PAYMENT#') && i.livemode === true);
  const refunds = items.filter((i) => String(i.PK).startsWith('REFUND#') && i.livemode === true);
  const ledger = items.filter((i) => i.entity === 'ledger_entry' && i.mode === 'live');
  const credits = new Map<string, number>();
  for (const l of ledger) if (l.reason === 'payment') credits.set(l.object_id, (credits.get(l.object_id) ?? 0) + 1);
  for (const p of payments) {
    const held = dlocal.payment(orderIdOf(p.payment_id));
    const old = Date.now() - Date.parse(p.created_at) > (LOST_INTENT_SECONDS + 30) * 1000;
    const want: readonly string[] = !held
      ? old
        ? ['failed']
        : ['processing', 'failed']
      : held.status === 'PAID'
        ? ['success', 'refunded']
        : held.status === 'REJECTED'
          ? ['failed']
          : held.status === 'PENDING'
            ? ['pending']
            : [held.status.toLowerCase()];
    if (!want.includes(p.status)) v.push(`a: ${p.payment_id} status=${p.status}, dLocal holds ${held?.status ?? 'nothing'}`);
    const success = p.status === 'success' || p.status === 'refunded';
    if (success && credits.get(p.payment_id) !== 1) v.push(`a: ${p.payment_id} has ${credits.get(p.payment_id) ?? 0} payment credits`);
    if (!success && credits.has(p.payment_id)) v.push(`a: ${p.payment_id} ${p.status} with a payment credit`);
    if (p.provider?.reference !== orderIdOf(p.payment_id)) v.push(`b: ${p.payment_id} provider reference ${p.provider?.reference}`);
  }
  v.push(...dlocal.violations.map((x) => `c: ${x}`));
  const delivered = new Set(receiver.received.map((r) => String(r.headers['webhook-id'])));
  for (const e of items.filter((i) => String(i.PK).startsWith('EVENT#') && i.livemode === true))
    if (!delivered.has(e.event_id)) v.push(`d: event ${e.event_id} (${e.type}) never delivered`);
  v.push(...balanceViolations(items, 'e'));
  for (const r of refunds) {
    const held = dlocal.refundsFor(refundReferenceOf(r.refund_id));
    if (held.length > 1) v.push(`c: ${held.length} dLocal refunds for ${r.refund_id}`);
    const s = held[0]?.status;
    const want = s === 'SUCCESS' ? 'succeeded' : s === 'REJECTED' || s === 'CANCELLED' ? 'failed' : 'pending';
    if (r.status !== want) v.push(`e: refund ${r.refund_id} status=${r.status}, dLocal holds ${s ?? 'nothing'}`);
  }
  const ids = new Set(payments.map((p) => p.payment_id));
  for (const id of answered) if (!ids.has(id)) v.push(`f: ${id} answered but missing`);
  return v;
}

async function main(): Promise<number> {
  const stateDir = mkdtempSync(join(tmpdir(), 'dlocal-proof-'));
  const port = await freePort();
  const dlocal = await startFakeDlocal({ hangMs: 5_000 });
  const providers = join(stateDir, 'providers.json');
  writeFileSync(providers, JSON.stringify({ dlocal: dlocal.dlocalConfig({ timeouts: { connect_ms: 1000, total_ms: 2000 } }) }));
  const receiver = await startReceiver();
  const opts = livePayinStackOptions(providers, LOST_INTENT_SECONDS);
  log(`state dir ${stateDir}, port ${port}, kills ${KILLS}, phase ${PHASE_SECONDS} s`);
  stack = await startStack(0, stateDir, port, opts);
  await setNotificationUrl(stack, receiver.url);
  try {
    await underKills({
      kills: KILLS,
      phaseSeconds: PHASE_SECONDS,
      log,
      current: () => stack,
      load: (phase) => load(dlocal, phase),
      restart: async (n) => {
        stack = await startStack(n, stateDir, port, opts);
        log(`stack ${n} restarted; ${unanswered.length} payments without an answer so far`);
      },
    });
    // The shoppers whose pay got no answer press it again on the same session.
    for (const u of unanswered.splice(0)) {
      const r = await post('/api/v1/checkout/process', u).catch(() => null);
      if (r) await settleAnswer(dlocal, r);
    }
    await finishRefunds(dlocal);
    const deadline = Date.now() + SETTLE_SECONDS * 1000;
    let violations: string[] = [];
    for (;;) {
      await sleep(3000);
      violations = check(await scanAll(stack), dlocal, receiver);
      log(`waiting: ${outstandingSummary(violations)}`);
      if (violations.length === 0 || Date.now() > deadline) break;
    }
    const duplicates = [...answered].filter((id) => dlocal.creates(orderIdOf(id)) > 1).length;
    log(
      `load: ${JSON.stringify(counts)}; dLocal requests ${dlocal.requests.length}; creates read back after a duplicate ${duplicates}; ` +
        `webhooks received ${receiver.received.length}`,
    );
    return verdict(log, violations, stateDir);
  } finally {
    await stopStack(stack, 'SIGTERM', log);
    await receiver.stop();
    await dlocal.close();
  }
}

runProof('dlocal proof', main);
