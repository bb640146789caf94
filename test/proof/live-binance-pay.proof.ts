/**
 * Live Binance Pay crash proof (issue 41): `npm run proof:binance`, and part of `npm run proof` (CI).
 *
 * The fake Binance Pay runs in this process (it outlives the service, as Binance does); the local stack runs the
 * live stage on it as a child process group. Load: hosted-checkout live crypto payments (svc-mt-4, USDT priced by
 * Binance Pay's quote) in BRL, and some in MXN and COP, which Binance then holds paid, expired, closed (CANCELED) or
 * open. Its webhooks are withheld and sent by the proof instead: once, twice (a duplicate), forged (refused 401: only
 * a read-back settles it; some claim an open order paid) or not at all (lost: only the reconciliation job's
 * read-back, or the shopper's status poll, can see them). Some paid ones are refunded in full or in part (some
 * twice), Binance answering the refund REFUND_SUCCESS, REFUND_PENDING or REFUND_FAIL. Binance fails some creates
 * (503, a hang, a lost answer; most of the shoppers answered 502 press pay again) and some refund sends (503, a lost
 * answer); after the load it finishes the refunds it holds pending and notifies each (some notifications lost). The
 * stack is SIGKILLed mid-load PROOF_KILLS times and restarted on the same state dir; a pay that got no answer is
 * pressed again on its session; then the proof waits (bounded) until quiet, reads the table and checks:
 *   (a) each live crypto payment's status is what Binance holds: PAID (or REFUNDING, REFUNDED, FULL_REFUNDED)
 *       success or refunded, EXPIRED expired, CANCELED cancelled (failed while its create's answer was lost),
 *       INITIAL pending (processing while its QR is unknown), no order failed after the grace; no payment is
 *       success unless Binance holds its order paid, and no forged webhook is taken; one payment credit per paid one;
 *   (b) every live payment has its provider reference, the merchantTradeNo derived from its id;
 *   (c) Binance saw no request off our schemas or badly signed (nor one refundRequestId sent with another request);
 *       never two orders for one merchantTradeNo (the fake, as Binance, refuses a second create with 400201), nor an
 *       order or a refund that is not one of ours; each refund it holds asks the paid USDT in proportion to ours;
 *   (d) every committed event reached the merchant's receiver;
 *   (e) the balance (with the credits still to fold) equals the sum of its ledger entries and is never negative;
 *       each refund is final as Binance holds it (REFUND_SUCCESS succeeded, REFUND_FAIL failed; pending while
 *       Binance holds it REFUND_PENDING or has none yet);
 *   (f) every payment the load got 200 or 502 PROVIDER_UNAVAILABLE for exists.
 * Exits 1 on a violation, 2 when the proof could not run. Knobs: PROOF_KILLS (default 2), PROOF_PHASE_SECONDS
 * (default 4), PROOF_SETTLE_SECONDS (default 120, ended as soon as every check holds: a refund whose answer and
 * notification were both lost waits for the settlement resume job's grace of a minute).
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  merchantTradeNoOf,
  paymentIdOfMerchantTradeNo,
  refundIdOfRequestId,
  refundRequestIdOf,
  refundUnits,
} from '../../shared/adapters/providers/binance-pay/binance-pay.transformers';
import { startFakeBinancePay, type FakeBinancePay, type RefundStatus } from '../support/fake-binance-pay';
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
} = liveProofKnobs('binance', {
  settle: 120,
  minSettle: 20,
  guardExtra: 60,
});
const LOST_INTENT_SECONDS = 10;

const customer = { name: 'Paula Souza', email: 'paula@example.com.br', document: '52998224725' };
/** Where the shoppers pay from: mostly Brazil, some Mexico and Colombia (each priced by the fake's own rate). */
const MARKETS = [
  { currency: 'BRL', country: 'BRA', min: 10, span: 290, weight: 0.7 },
  { currency: 'MXN', country: 'MEX', min: 50, span: 1950, weight: 0.15 },
  { currency: 'COP', country: 'COL', min: 20_000, span: 380_000, weight: 0.15 },
] as const;
const REFUND_ANSWERS: readonly RefundStatus[] = ['REFUND_SUCCESS', 'REFUND_PENDING', 'REFUND_FAIL'];
const PAID_STATUSES: readonly string[] = ['PAID', 'REFUNDING', 'REFUNDED', 'FULL_REFUNDED'];

/** What the load was told: payments answered 200 or 502 naming them, pays with no answer (and their amounts). */
const answered = new Set<string>();
const unanswered: Array<{ pay: { session_id: string; payment_method: string; customer: typeof customer }; amount: number }> = [];
/** Forged webhooks our route took (answered 2xx): each one a violation. */
const forgedTaken: string[] = [];
const counts = {
  creates: 0,
  ok: 0,
  unavailable: 0,
  noAnswer: 0,
  pressedAgain: 0,
  brl: 0,
  mxn: 0,
  cop: 0,
  paid: 0,
  expired: 0,
  closed: 0,
  open: 0,
  notified: 0,
  duplicated: 0,
  forged: 0,
  forgedRefused: 0,
  lost: 0,
  refunds: 0,
  fullRefunds: 0,
  createFaults: 0,
  refundFaults: 0,
  refundNotifications: 0,
  refundNotificationsLost: 0,
};
/** Sessions and refunds the API did not take, by status and code (a restart, a payment not yet settled here). */
const refusals: Record<string, number> = {};
const notTaken = (why: string) => void (refusals[why] = (refusals[why] ?? 0) + 1);
let stack: Stack;

const post = (path: string, body: unknown, headers: Record<string, string> = {}) => postAs(stack, path, body, headers);

/** The shopper's page polls the payment's status (a poll reads a held payment back at most once per gap). */
async function statusOf(id: string): Promise<string | undefined> {
  const r = await fetch(`${stack.baseUrl}/cashier/cashier/status/${stack.merchantId}/${id}`, {
    headers: { 'x-api-key': stack.apiKey },
    signal: AbortSignal.timeout(5_000),
  }).catch(() => null);
  return r?.ok ? ((await r.json().catch(() => ({}))) as { status?: string }).status : undefined;
}

function market() {
  let x = Math.random();
  for (const m of MARKETS) if ((x -= m.weight) < 0) return m;
  return MARKETS[0];
}

/** One shopper: a live crypto payment through a hosted checkout, then what Binance Pay and its webhooks do. */
async function chain(fake: FakeBinancePay) {
  const m = market();
  const amount = m.min + Math.floor(Math.random() * m.span) + Math.floor(Math.random() * 100) / 100;
  counts.creates++;
  const s = await post('/api/v1/checkout', {
    amount,
    currency: m.currency,
    country: m.country,
    success_url: 'https://shop.example/ok',
    cancel_url: 'https://shop.example/no',
  }).catch(() => null);
  if (s?.status !== 200) {
    if (s) notTaken(`session ${s.status} ${String(s.body.error_code ?? '')}`);
    // Sessions are limited to 100 a minute per merchant: a shopper refused waits before the next one comes.
    if (s?.status === 429) await sleep(2_000);
    return;
  }
  const roll = Math.random();
  if (roll < 0.05) fake.failNext('orders', { status: 503 });
  else if (roll < 0.08) fake.failNext('orders', { hang: true });
  else if (roll < 0.14) fake.failNext('orders', { hangAfter: true });
  if (roll < 0.14) counts.createFaults++;
  counts[m.currency.toLowerCase() as 'brl' | 'mxn' | 'cop']++;
  const pay = { session_id: s.body.session_id as string, payment_method: 'crypto', customer };
  let r: { status: number; body: Record<string, any> };
  try {
    r = await post('/api/v1/checkout/process', pay);
  } catch {
    counts.noAnswer++;
    unanswered.push({ pay, amount });
    return;
  }
  if (r.status === 502 && Math.random() < 0.6) {
    // The shopper presses pay again: checkout/process is not keyed, so the session makes another payment (another
    // merchantTradeNo); the first stays processing, its order (when the create got through) never shown, left open.
    noteAnswer(r);
    counts.pressedAgain++;
    await sleep(200 + Math.random() * 800);
    r = await post('/api/v1/checkout/process', pay).catch(() => r);
  }
  await settleAnswer(fake, r, amount);
}

/** A webhook for an order signed with a key that is not Binance's (`bizStatus`: one that lies about the order). */
async function forge(fake: FakeBinancePay, tradeNo: string, bizStatus?: string) {
  counts.forged++;
  const a = await fake.notify(tradeNo, { sign: 'forged', ...(bizStatus ? { bizStatus } : {}) }).catch(() => undefined);
  if (a?.status === 401) counts.forgedRefused++;
  if (a && a.status < 300) forgedTaken.push(`${tradeNo} (${bizStatus ?? 'true'}) answered ${a.status}`);
}

/** What Binance Pay sends for an order (its own webhooks are withheld): once, twice, forged, or nothing. */
async function notifyOrder(fake: FakeBinancePay, tradeNo: string) {
  const n = Math.random();
  const send = (o: Parameters<FakeBinancePay['notify']>[1] = {}) => fake.notify(tradeNo, o).catch(() => undefined);
  if (n < 0.2) return void counts.lost++;
  if (n < 0.32) return forge(fake, tradeNo);
  await send();
  counts.notified++;
  if (n > 0.85) {
    counts.duplicated++;
    await send();
  }
}

/** The payment an answer names, noted when it is 200 or a 502 (whose message names the payment it left processing). */
function noteAnswer(r: { status: number; body: Record<string, any> }): string | undefined {
  const id = (r.body.payment_id as string | undefined) ?? /pi_[A-Za-z0-9_-]{22}/.exec(String(r.body.error_message ?? ''))?.[0];
  if (!id || (r.status !== 200 && r.status !== 502)) return undefined;
  answered.add(id);
  if (r.status === 502) counts.unavailable++;
  else counts.ok++;
  return id;
}

async function settleAnswer(fake: FakeBinancePay, r: { status: number; body: Record<string, any> }, amount?: number) {
  const id = noteAnswer(r);
  if (!id) return;
  const tradeNo = merchantTradeNoOf(id);
  if (!fake.order(tradeNo)) return; // never created there (5xx, a hang before it): fails after the grace
  const dice = Math.random();
  if (dice < 0.1) {
    counts.open++;
    // A forger claims the open order paid: refused 401, and the order read back stays open.
    return Math.random() < 0.4 ? forge(fake, tradeNo, 'PAY_SUCCESS') : undefined;
  }
  if (dice < 0.2) {
    await fake.expire(tradeNo);
    counts.expired++;
    return notifyOrder(fake, tradeNo);
  }
  if (dice < 0.28) {
    await fake.closeOrder(tradeNo);
    counts.closed++;
    return notifyOrder(fake, tradeNo);
  }
  await fake.pay(tradeNo);
  counts.paid++;
  await notifyOrder(fake, tradeNo);
  if (amount === undefined || Math.random() >= 0.45) return;
  // A refund once the payment shows paid here (a lost or forged webhook waits for a read-back).
  const end = Date.now() + 8_000;
  while ((await statusOf(id)) !== 'success' && Date.now() < end && stack.alive) await sleep(700);
  const full = Math.random() < 0.35;
  const first = full ? amount : Math.max(0.01, Math.round(amount * (0.1 + Math.random() * 0.4) * 100) / 100);
  await refund(fake, id, first);
  if (full) counts.fullRefunds++;
  else if (Math.random() < 0.2) await refund(fake, id, Math.max(0.01, Math.round(amount * 0.2 * 100) / 100));
}

async function refund(fake: FakeBinancePay, id: string, amount: number) {
  const f = Math.random();
  if (f < 0.08) fake.failNext('refunds', { status: 503 });
  else if (f < 0.15) fake.failNext('refunds', { hangAfter: true });
  if (f < 0.15) counts.refundFaults++;
  fake.nextRefund(REFUND_ANSWERS[Math.floor(Math.random() * REFUND_ANSWERS.length)]!);
  const rr = await post(`/api/v1/payments/${id}/refunds`, { amount }).catch(() => null);
  if (rr?.status === 200) return void counts.refunds++;
  notTaken(rr ? `refund ${rr.status} ${String(rr.body.error_code ?? '')}` : 'refund without an answer');
}

/** Every refund Binance Pay holds, by refundRequestId (each one we sent, answered or not). */
const heldRefundIds = (fake: FakeBinancePay) =>
  new Set(
    fake.requests
      .filter((q) => q.path === '/binancepay/openapi/order/refund')
      .map((q) => String((q.body as { refundRequestId?: unknown }).refundRequestId))
      .filter((ref) => fake.refund(ref)),
  );

/**
 * Binance Pay finishes the refunds it holds pending (REFUND_SUCCESS or REFUND_FAIL; its own webhooks are withheld)
 * and notifies each refund it holds; some notifications are lost (the settlement resume job reads those back after
 * its grace).
 */
async function finishRefunds(fake: FakeBinancePay) {
  for (const ref of heldRefundIds(fake)) {
    if (fake.refund(ref)?.status === 'REFUND_PENDING')
      await fake.completeRefund(ref, Math.random() < 0.7 ? 'REFUND_SUCCESS' : 'REFUND_FAIL').catch(() => undefined);
    if (Math.random() < 0.15) {
      counts.refundNotificationsLost++;
      continue;
    }
    await fake.notifyRefund(ref).catch(() => undefined);
    counts.refundNotifications++;
  }
}

async function load(fake: FakeBinancePay, phase: number) {
  const end = Date.now() + PHASE_SECONDS * 1300;
  const runners = Array.from({ length: 6 }, async () => {
    while (Date.now() < end && stack.alive) await chain(fake).catch(() => undefined);
  });
  await Promise.all(runners);
  log(`phase ${phase}: load stopped`);
}

function check(items: Item[], fake: FakeBinancePay, receiver: Receiver): string[] {
  const v: string[] = [];
  const payments = items.filter((i) => String(i.PK).startsWith('PAYMENT#') && i.livemode === true);
  const refunds = items.filter((i) => String(i.PK).startsWith('REFUND#') && i.livemode === true);
  const ledger = items.filter((i) => i.entity === 'ledger_entry' && i.mode === 'live');
  const credits = new Map<string, number>();
  for (const l of ledger) if (l.reason === 'payment') credits.set(l.object_id, (credits.get(l.object_id) ?? 0) + 1);
  const byId = new Map(payments.map((p) => [p.payment_id as string, p]));
  for (const p of payments) {
    if (p.payment_method !== 'crypto') v.push(`a: ${p.payment_id} is ${p.payment_method}, not crypto`);
    const held = fake.order(merchantTradeNoOf(p.payment_id));
    const old = Date.now() - Date.parse(p.created_at) > (LOST_INTENT_SECONDS + 30) * 1000;
    const want: readonly string[] = !held
      ? old
        ? ['failed']
        : ['processing', 'failed']
      : PAID_STATUSES.includes(held.status)
        ? ['success', 'refunded']
        : held.status === 'EXPIRED'
          ? ['expired']
          : held.status === 'CANCELED'
            ? ['cancelled', 'failed']
            : held.status === 'INITIAL' || held.status === 'PENDING'
              ? ['pending', 'processing']
              : ['failed'];
    if (!want.includes(p.status)) v.push(`a: ${p.payment_id} status=${p.status}, Binance holds ${held?.status ?? 'nothing'}`);
    const success = p.status === 'success' || p.status === 'refunded';
    if (success && credits.get(p.payment_id) !== 1) v.push(`a: ${p.payment_id} has ${credits.get(p.payment_id) ?? 0} payment credits`);
    if (!success && credits.has(p.payment_id)) v.push(`a: ${p.payment_id} ${p.status} with a payment credit`);
    if (p.provider?.reference !== merchantTradeNoOf(p.payment_id)) v.push(`b: ${p.payment_id} provider reference ${p.provider?.reference}`);
  }
  v.push(...forgedTaken.map((x) => `a: a forged webhook for ${x}`));
  v.push(...fake.violations.map((x) => `c: ${x}`));
  // Every order Binance holds is one of our payments (the intent is committed before the create).
  for (const q of fake.requests.filter((r) => r.path === '/binancepay/openapi/v3/order')) {
    const tradeNo = String((q.body as { merchantTradeNo?: unknown }).merchantTradeNo);
    const id = paymentIdOfMerchantTradeNo(tradeNo);
    if (fake.order(tradeNo) && (!id || !byId.has(id))) v.push(`c: Binance order ${tradeNo} is no payment of ours`);
  }
  const ourRefunds = new Map(refunds.map((r) => [r.refund_id as string, r]));
  for (const ref of heldRefundIds(fake)) {
    const held = fake.refund(ref)!;
    const ours = ourRefunds.get(refundIdOfRequestId(ref) ?? '');
    if (!ours) {
      v.push(`c: Binance refund ${ref} is no refund of ours`);
      continue;
    }
    const p = byId.get(ours.payment_id);
    const order = fake.order(merchantTradeNoOf(ours.payment_id));
    if (!p || !order || order.prepayId !== held.prepayId) v.push(`c: Binance refund ${ref} is of another order than ${ours.payment_id}`);
    else if (held.amount !== refundUnits(order.paidAmount ?? order.orderAmount, Number(ours.amount_minor), Number(p.amount_minor)))
      v.push(`c: Binance refund ${ref} asks ${held.amount} units for ${ours.amount_minor} of ${p.amount_minor}`);
  }
  const delivered = new Set(receiver.received.map((r) => String(r.headers['webhook-id'])));
  for (const e of items.filter((i) => String(i.PK).startsWith('EVENT#') && i.livemode === true))
    if (!delivered.has(e.event_id)) v.push(`d: event ${e.event_id} (${e.type}) never delivered`);
  v.push(...balanceViolations(items, 'e'));
  for (const r of refunds) {
    const s = fake.refund(refundRequestIdOf(r.refund_id))?.status;
    const want = s === 'REFUND_SUCCESS' ? 'succeeded' : s === 'REFUND_FAIL' ? 'failed' : 'pending';
    if (r.status !== want) v.push(`e: refund ${r.refund_id} status=${r.status}, Binance holds ${s ?? 'nothing'}`);
  }
  const ids = new Set(payments.map((p) => p.payment_id));
  for (const id of answered) if (!ids.has(id)) v.push(`f: ${id} answered but missing`);
  return v;
}

async function main(): Promise<number> {
  const stateDir = mkdtempSync(join(tmpdir(), 'binance-proof-'));
  const port = await freePort();
  const fake = await startFakeBinancePay({ hangMs: 5_000 });
  // Its webhooks are the proof's to send (once, twice, forged or never), per order and per refund.
  fake.setWebhookMode('withhold');
  const providers = join(stateDir, 'providers.json');
  writeFileSync(providers, JSON.stringify({ binance_pay: fake.binancePayConfig({ timeouts: { connect_ms: 1000, total_ms: 2000 } }) }));
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
      load: (phase) => load(fake, phase),
      restart: async (n) => {
        stack = await startStack(n, stateDir, port, opts);
        log(`stack ${n} restarted; ${unanswered.length} payments without an answer so far`);
      },
    });
    // The shoppers whose pay got no answer press it again on the same session.
    for (const u of unanswered.splice(0)) {
      const r = await post('/api/v1/checkout/process', u.pay).catch(() => null);
      if (r) await settleAnswer(fake, r, u.amount);
    }
    await finishRefunds(fake);
    const deadline = Date.now() + SETTLE_SECONDS * 1000;
    let violations: string[] = [];
    for (;;) {
      await sleep(3000);
      violations = check(await scanAll(stack), fake, receiver);
      log(`waiting: ${outstandingSummary(violations)}`);
      if (violations.length === 0 || Date.now() > deadline) break;
    }
    const duplicates = [...answered].filter((id) => fake.creates(merchantTradeNoOf(id)) > 1).length;
    log(
      `load: ${JSON.stringify(counts)}; not taken ${JSON.stringify(refusals)}; Binance requests ${fake.requests.length}; ` +
        `creates read back after a duplicate ${duplicates}; webhooks received ${receiver.received.length}`,
    );
    return verdict(log, violations, stateDir);
  } finally {
    await stopStack(stack, 'SIGTERM', log);
    await receiver.stop();
    await fake.close();
  }
}

runProof('binance proof', main);
