/**
 * Crash-consistency proof (issue 10): `npm run proof`.
 *
 * Starts the local stack (`node --import tsx bin/local.ts`, as `npm start` does) as a detached child (its own group) on a
 * fresh state dir, on a DynamoDB Local with persisted data that outlives the kills (stack-process.ts), registers a
 * loopback webhook receiver as the sandbox merchant's notification_url, drives concurrent load (direct
 * PIX and card payments, hosted checkout sessions processed and simulated, refunds, payouts), SIGKILLs the
 * whole process group mid-load (PROOF_KILLS times, default 2), restarts on the same state dir, retries the
 * keyed creates that got no answer (same X-Idempotency-Key), lets the workers run until quiet (bounded),
 * then reads the table directly and checks:
 *   (a) every committed event item reaches the receiver (by Webhook-Id; duplicates counted, not failed);
 *   (b) no payout left pending/processing, every payout and refund at the final status its sandbox
 *       outcome promises;
 *   (c) every balance equals the sum of its ledger entries and is never negative, and each payout,
 *       refund and payment has exactly the ledger movement its status implies;
 *   (d) every payment, session, payout and refund the load got a 2xx for exists;
 *   (e) committed and recorded as done agree (issue 31): every completed idempotency record answers with an
 *       object that exists, and every keyed object the load created is named by its record's answer.
 * Prints a summary and exits 1 on any violation (2 when the proof itself could not run).
 *
 * Knobs (environment): PROOF_KILLS (0-3, default 2), PROOF_PHASE_SECONDS (default 4), PROOF_SETTLE_SECONDS
 * (the bounded wait after the last restart, default 100: the settlement resume job and the credit sweep
 * first run 60 s after a start, and the job only picks up payouts older than the settlement delay + 60 s),
 * PROOF_STATE_DIR (default a new temp dir), PROOF_CONFLICTS=1 (DynamoDB's conflict rules through the conflict proxy).
 */
import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  freePort,
  guardProcess,
  setNotificationUrl,
  sleep,
  snapshot,
  startStack as startStackProcess,
  stopStack as stopStackProcess,
  type Item,
  type Snapshot,
  type Stack,
} from './stack-process';
import { verifyWebhook } from '../support/merchant-verify';
import { startReceiver, type Receiver } from '../support/receiver';

// Lambda runs Node 24; the SDK's notice about Node 20 is not news here (bin/local.ts does the same).
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
const num = (name: string, fallback: number) => {
  const v = Number(process.env[name]);
  return process.env[name] !== undefined && Number.isFinite(v) ? v : fallback;
};
const KILLS = Math.max(0, Math.min(3, Math.floor(num('PROOF_KILLS', 2))));
const PHASE_SECONDS = Math.max(1, num('PROOF_PHASE_SECONDS', 4));
const SETTLE_SECONDS = Math.max(10, num('PROOF_SETTLE_SECONDS', 100));
const SETTLEMENT_DELAY_SECONDS = 1;
/** The whole run, whatever happens: past this the children are killed and the proof fails. */
const HARD_LIMIT_MS = (SETTLE_SECONDS + (KILLS + 1) * (PHASE_SECONDS * 1.3 + 45) + 30) * 1000;

const started = Date.now();
const log = (msg: string) => console.log(`[proof +${((Date.now() - started) / 1000).toFixed(1)}s] ${msg}`);
const pick = <T>(choices: ReadonlyArray<readonly [T, number]>): T => {
  let x = Math.random() * choices.reduce((s, [, w]) => s + w, 0);
  for (const [v, w] of choices) if ((x -= w) < 0) return v;
  return choices[choices.length - 1]![0];
};

// ---------------------------------------------------------------------------------------------------------
// The stack as a child process group
// ---------------------------------------------------------------------------------------------------------

const SETTLEMENT_ENV = {
  PAYOUT_SETTLEMENT_DELAY_SECONDS: String(SETTLEMENT_DELAY_SECONDS),
  REFUND_SETTLEMENT_DELAY_SECONDS: String(SETTLEMENT_DELAY_SECONDS),
};
/** PROOF_CONFLICTS=1: the stack reaches DynamoDB Local through the conflict proxy (DynamoDB's transaction conflict rules). */
const CONFLICTS = process.env.PROOF_CONFLICTS === '1';
const startStack = (n: number, stateDir: string, port: number) =>
  startStackProcess(n, stateDir, port, {
    env: SETTLEMENT_ENV,
    ...(CONFLICTS ? { args: ['--emulate-conflicts', '--conflict-latency-ms', '5'] } : {}),
  });
const stopStack = (s: Stack, signal: NodeJS.Signals) => stopStackProcess(s, signal, log);
guardProcess(HARD_LIMIT_MS);

// ---------------------------------------------------------------------------------------------------------
// Load
// ---------------------------------------------------------------------------------------------------------

type Kind = 'payment' | 'session' | 'payout' | 'refund';
const ID_FIELD: Record<Kind, string> = { payment: 'payment_id', session: 'session_id', payout: 'payout_id', refund: 'refund_id' };

interface Res {
  readonly status: number;
  readonly body: any;
  readonly error?: string;
  readonly retryAfter?: number;
}

interface Counter {
  sent: number;
  ok: number;
  c4xx: number;
  c429: number;
  c5xx: number;
  noAnswer: number;
}

interface Pending {
  readonly op: string;
  readonly path: string;
  readonly body: unknown;
  readonly key: string;
  readonly kind: Kind;
  readonly phase: number;
}

const counters = new Map<string, Counter>();
const known: Record<Kind, Set<string>> = { payment: new Set(), session: new Set(), payout: new Set(), refund: new Set() };
/** Declined direct card payments: a 422 that names the payment it stored. */
const declined = new Set<string>();
const unanswered: Pending[] = [];
const retried = { total: 0, ok: 0, failed: [] as string[], stillUnanswered: 0 };
const kills: Array<{ n: number; at: number; inFlight: number }> = [];
let inFlight = 0;

function count(op: string, r: Res) {
  const c = counters.get(op) ?? { sent: 0, ok: 0, c4xx: 0, c429: 0, c5xx: 0, noAnswer: 0 };
  c.sent++;
  if (r.status === 0) c.noAnswer++;
  else if (r.status < 300) c.ok++;
  else if (r.status === 429) c.c429++;
  else if (r.status < 500) c.c4xx++;
  else c.c5xx++;
  counters.set(op, c);
}

async function call(
  s: Stack,
  op: string,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<Res> {
  inFlight++;
  let r: Res;
  try {
    const res = await fetch(`${s.baseUrl}${path}`, {
      method,
      headers: { 'content-type': 'application/json', ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(20_000),
    });
    const text = await res.text();
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = text;
    }
    r = { status: res.status, body: parsed, retryAfter: Number(res.headers.get('retry-after')) || undefined };
  } catch (e) {
    r = { status: 0, body: null, error: (e as Error & { cause?: { code?: string } }).cause?.code ?? (e as Error).message };
  } finally {
    inFlight--;
  }
  count(op, r);
  return r;
}

const withKey = (s: Stack, extra: Record<string, string> = {}) => ({ 'x-api-key': s.apiKey, ...extra });

/** A create with an X-Idempotency-Key: a 2xx records the id, no answer queues it for a retry after restart. */
async function keyedCreate(s: Stack, op: string, path: string, body: unknown, kind: Kind, phase: number): Promise<Res> {
  const key = `proof-${op}-${randomUUID()}`;
  const r = await call(s, op, 'POST', path, body, withKey(s, { 'x-idempotency-key': key }));
  record(kind, r);
  if (r.status === 0) unanswered.push({ op, path, body, key, kind, phase });
  return r;
}

function record(kind: Kind, r: Res) {
  const id = r.body?.[ID_FIELD[kind]];
  if (r.status >= 200 && r.status < 300 && typeof id === 'string') known[kind].add(id);
  else if (kind === 'payment' && r.status === 422 && typeof r.body?.payment_id === 'string') declined.add(r.body.payment_id);
}

const customer = { name: 'Ana Silva', email: 'ana@example.com', document: '52998224725' };
const expiry = { expiry_month: '12', expiry_year: String(new Date().getUTCFullYear() + 3) };
const amount = () => 20 + Math.floor(Math.random() * 80) + Math.floor(Math.random() * 100) / 100;
const ok = (r: Res) => r.status >= 200 && r.status < 300;

/** Sandbox beneficiary documents and what they promise (docs/sandbox.md: Payouts). */
const PAYOUT_DOCS = [
  ['00000000191', 2], // completes
  ['00000000272', 2], // fails (invalid account)
  ['00000000353', 3], // completes, then is refunded
  ['52998224725', 2], // any other valid document completes
] as const;

async function simulate(s: Stack, paymentId: string, outcome: 'success' | 'failed') {
  await call(s, 'simulate', 'POST', `/api/v1/sandbox/payments/${paymentId}/simulate`, { outcome }, withKey(s));
}

const CHAINS = {
  async directPix(s: Stack, phase: number) {
    const r = await keyedCreate(
      s,
      'direct_pix',
      '/cashier/cashier/payment',
      { payment_method: 'pix', amount: amount(), currency: 'BRL', country: 'BRA', customer },
      'payment',
      phase,
    );
    if (ok(r) && Math.random() < 0.7) await simulate(s, r.body.payment_id, Math.random() < 0.85 ? 'success' : 'failed');
  },
  async directCard(s: Stack, phase: number) {
    const number = pick([
      ['4242424242424242', 6],
      ['5555555555554444', 1],
      ['4000000000000002', 2], // card_declined
      ['4000000000003220', 2], // 3-D Secure: stays pending_3ds
    ] as const);
    const r = await keyedCreate(
      s,
      'direct_card',
      '/cashier/cashier/payment',
      {
        payment_method: 'card',
        amount: amount(),
        currency: 'BRL',
        country: 'BRA',
        customer,
        card: { number, holder_name: 'ANA SILVA', cvv: '123', installments: 1, ...expiry },
      },
      'payment',
      phase,
    );
    if (ok(r) && r.body.status === 'success' && Math.random() < 0.5) {
      // 10.13: the sandbox refund that fails (declined_by_bank) and credits the balance back.
      const refundAmount = Math.random() < 0.3 ? 10.13 : 5;
      await keyedCreate(s, 'refund', `/api/v1/payments/${r.body.payment_id}/refunds`, { amount: refundAmount }, 'refund', phase);
    }
  },
  async checkout(s: Stack, phase: number) {
    const r = await keyedCreate(
      s,
      'checkout_create',
      '/api/v1/checkout',
      {
        amount: amount(),
        currency: 'BRL',
        country: 'BRA',
        success_url: 'https://shop.example/ok',
        cancel_url: 'https://shop.example/cancel',
      },
      'session',
      phase,
    );
    if (!ok(r)) return;
    const method = Math.random() < 0.6 ? 'pix' : 'card';
    const p = await call(s, 'checkout_process', 'POST', '/api/v1/checkout/process', {
      session_id: r.body.session_id,
      payment_method: method,
      customer,
      ...(method === 'card' ? { card: { number: '4242424242424242', holder_name: 'ANA SILVA', cvv: '123', ...expiry } } : {}),
    });
    record('payment', p);
    if (ok(p) && method === 'pix' && Math.random() < 0.75) await simulate(s, p.body.payment_id, 'success');
  },
  async payout(s: Stack, phase: number) {
    const document = pick(PAYOUT_DOCS);
    const beneficiary =
      document === '00000000272'
        ? { name: 'Ana Silva', document, document_type: 'CPF', instant_transfer_key: document, instant_transfer_type: 'cpf' }
        : { name: 'Ana Silva', document, document_type: 'CPF', instant_transfer_key: 'ana@example.com', instant_transfer_type: 'email' };
    await keyedCreate(
      s,
      'payout',
      '/api/v1/payout',
      { method_code: 'svc-mt-5', amount: 10 + Math.floor(Math.random() * 40), currency: 'BRL', beneficiary },
      'payout',
      phase,
    );
  },
} as const;

/**
 * Chains per phase, spread over the phase: under the per-merchant, per-minute rate limits
 * (payouts 50, checkout and direct payments 100, simulate 100) even when two phases share a minute.
 */
const PER_PHASE: Record<keyof typeof CHAINS, number> = { directPix: 12, directCard: 14, checkout: 18, payout: 20 };

/** Starts the phase's chains at random offsets over 1.3 phases; the caller kills the stack within it. */
function startLoad(s: Stack, phase: number, spreadMs: number): Promise<unknown> {
  const tasks: Promise<unknown>[] = [];
  for (const [name, n] of Object.entries(PER_PHASE) as Array<[keyof typeof CHAINS, number]>) {
    for (let i = 0; i < n; i++) {
      tasks.push(
        sleep(Math.random() * spreadMs).then(() => (s.alive ? CHAINS[name](s, phase) : undefined)),
        // a chain's own failures are counted by call(); nothing else can throw
      );
    }
  }
  return Promise.allSettled(tasks);
}

/**
 * Keyed creates that got no answer, sent again after the last restart with the same X-Idempotency-Key until
 * they get one. A request cut by the kill leaves its idempotency record "in progress" until the route's
 * timeout (29 s) has passed since it started, and a retry answers 409 until then (each 409 also spends the
 * merchant's per-minute rate limit), so each waits until 31 s after the kill that cut it, then retries a few
 * at a time, following Retry-After on 429.
 */
async function retryUnanswered(s: Stack, deadline: number) {
  const queue = unanswered.splice(0);
  const one = async (u: Pending) => {
    const killedAt = kills[u.phase]?.at ?? Date.now();
    await sleep(Math.max(0, killedAt + 31_000 - Date.now()));
    for (;;) {
      const r = await call(s, `retry_${u.op}`, 'POST', u.path, u.body, withKey(s, { 'x-idempotency-key': u.key }));
      if (r.status === 0 || r.status === 409 || r.status === 429 || r.status >= 500) {
        if (Date.now() > deadline) {
          retried.total++;
          retried.failed.push(`${u.op} key=${u.key} last=${r.status} ${JSON.stringify(r.body)?.slice(0, 200)}`);
          return;
        }
        await sleep(r.status === 429 ? (r.retryAfter ?? 2) * 1000 + 250 : 2000);
        continue;
      }
      retried.total++;
      record(u.kind, r);
      if (ok(r)) retried.ok++;
      else retried.failed.push(`${u.op} key=${u.key} status=${r.status} ${JSON.stringify(r.body)?.slice(0, 200)}`);
      return;
    }
  };
  const workers = Array.from({ length: 3 }, async () => {
    for (let u = queue.shift(); u; u = queue.shift()) await one(u);
  });
  await Promise.all(workers);
}

// ---------------------------------------------------------------------------------------------------------
// The table and the checks
// ---------------------------------------------------------------------------------------------------------

const PAYOUT_FINAL: Record<string, string> = { complete: 'completed', fail: 'failed', complete_then_refund: 'refunded' };
const refundFinal = (r: Item) => (Number(r.amount_minor) % 100 === 13 ? 'failed' : 'succeeded');

function deliveredIds(receiver: Receiver) {
  const byId = new Map<string, number>();
  let missingId = 0;
  for (const r of receiver.received) {
    const id = r.headers['webhook-id'];
    if (typeof id !== 'string') {
      missingId++;
      continue;
    }
    byId.set(id, (byId.get(id) ?? 0) + 1);
  }
  return { byId, missingId };
}

function verifySignatures(receiver: Receiver, secret: string) {
  let bad = 0;
  for (const r of receiver.received) {
    const headers: Record<string, string | undefined> = {};
    for (const [k, v] of Object.entries(r.headers)) headers[k] = Array.isArray(v) ? v.join(',') : v;
    // Timestamps are checked against the time of receipt, not of this check.
    if (!verifyWebhook(r.rawBody, headers, secret, Math.floor(r.at / 1000)).ok) bad++;
  }
  return bad;
}

/** What is still moving: undelivered events, money in flight, outcomes not reached yet. */
function outstanding(snap: Snapshot, receiver: Receiver) {
  const { byId } = deliveredIds(receiver);
  const undelivered = snap.events.filter((e) => !byId.has(e.event_id));
  const inFlightPayouts = snap.payouts.filter((p) => p.status === 'pending' || p.status === 'processing');
  const unfinishedPayouts = snap.payouts.filter((p) => PAYOUT_FINAL[p.sandbox_outcome] && p.status !== PAYOUT_FINAL[p.sandbox_outcome]);
  const unfinishedRefunds = snap.refunds.filter((r) => r.status !== refundFinal(r));
  return {
    undelivered,
    inFlightPayouts,
    unfinishedPayouts,
    unfinishedRefunds,
    unfolded: snap.pendingCredits,
    total: undelivered.length + unfinishedPayouts.length + unfinishedRefunds.length + unanswered.length + snap.pendingCredits.length,
  };
}

interface Violation {
  readonly check: string;
  readonly detail: string;
}

const killContext = (iso: string | undefined) => {
  if (!iso) return '';
  const t = Date.parse(iso);
  const before = kills.filter((k) => k.at >= t);
  const next = before[0];
  return next ? ` (${((next.at - t) / 1000).toFixed(2)} s before kill #${next.n})` : ' (after the last kill)';
};

function checkAll(snap: Snapshot, receiver: Receiver, secret: string) {
  const violations: Violation[] = [];
  const add = (check: string, detail: string) => violations.push({ check, detail });

  // (a) committed events vs deliveries
  const { byId, missingId } = deliveredIds(receiver);
  const committed = new Set(snap.events.map((e) => e.event_id as string));
  const deliveredCommitted = [...committed].filter((id) => byId.has(id)).length;
  const deliveries = receiver.received.length;
  const duplicates = [...byId.values()].reduce((s, n) => s + (n - 1), 0);
  const duplicatedEvents = [...byId.values()].filter((n) => n > 1).length;
  const badSignatures = verifySignatures(receiver, secret);
  for (const e of snap.events.filter((x) => !byId.has(x.event_id))) {
    add(
      'a: event never delivered',
      `${e.event_id} ${e.type} object=${e.object_id ?? e.payload?.payout_id ?? e.payload?.payment_id ?? '?'} ` +
        `created=${e.created_at}${killContext(e.created_at)} ` +
        `delivery_status=${e.delivery_status} attempts=${(e.attempts ?? []).length}`,
    );
  }
  for (const id of byId.keys()) if (!committed.has(id)) add('a: delivered event not in the table', id);
  if (missingId > 0) add('a: delivery without Webhook-Id', `${missingId} deliveries`);
  if (badSignatures > 0) add('a: delivery with a bad signature', `${badSignatures} deliveries`);

  // (b) payouts and refunds at rest
  const payoutsByStatus: Record<string, number> = {};
  for (const p of snap.payouts) payoutsByStatus[p.status] = (payoutsByStatus[p.status] ?? 0) + 1;
  const stuck = snap.payouts.filter((p) => p.status === 'pending' || p.status === 'processing');
  for (const p of stuck) {
    add(
      'b: payout stuck',
      `${p.payout_id} status=${p.status} outcome=${p.sandbox_outcome} created=${p.created_at} updated=${p.updated_at}` +
        `${killContext(p.updated_at)} on_settle_index=${p.GSI2PK ?? 'no'}`,
    );
  }
  for (const p of snap.payouts) {
    const want = PAYOUT_FINAL[p.sandbox_outcome];
    if (want && p.status !== want && p.status !== 'pending' && p.status !== 'processing') {
      add(
        'b: payout short of its sandbox outcome',
        `${p.payout_id} status=${p.status} expected=${want} outcome=${p.sandbox_outcome} ` +
          `updated=${p.updated_at}${killContext(p.updated_at)}`,
      );
    }
  }
  const refundsByStatus: Record<string, number> = {};
  for (const r of snap.refunds) refundsByStatus[r.status] = (refundsByStatus[r.status] ?? 0) + 1;
  for (const r of snap.refunds.filter((x) => x.status !== refundFinal(x))) {
    add(
      'b: refund short of its sandbox outcome',
      `${r.refund_id} status=${r.status} expected=${refundFinal(r)} updated=${r.updated_at}${killContext(r.updated_at)}`,
    );
  }

  // (c) every credit folded (stream worker, sweep job); balances = ledger, never negative; each object's ledger movement matches its status
  for (const p of snap.pendingCredits) add('c: credit never folded into the balance', `${p.entry_id} ${p.currency} ${p.amount_minor}`);
  const ledgerSum = new Map<string, number>();
  const byObject = new Map<string, number>();
  for (const l of snap.ledger) {
    const k = `${l.mode}#${l.currency}`;
    ledgerSum.set(k, (ledgerSum.get(k) ?? 0) + Number(l.amount_minor));
    byObject.set(l.object_id, (byObject.get(l.object_id) ?? 0) + Number(l.amount_minor));
  }
  const balanceRows: string[] = [];
  const seen = new Set<string>();
  for (const b of snap.balances) {
    const k = `${b.mode}#${b.currency}`;
    seen.add(k);
    const available = Number(b.available_minor);
    const sum = ledgerSum.get(k) ?? 0;
    if (available !== sum)
      add('c: balance != sum of ledger', `${k} available_minor=${available} ledger_sum=${sum} diff=${available - sum}`);
    if (available < 0) add('c: negative balance', `${k} available_minor=${available}`);
    if (b.currency === 'BRL') balanceRows.push(`${k} available_minor=${available} ledger_sum=${sum}`);
  }
  for (const k of ledgerSum.keys()) if (!seen.has(k)) add('c: ledger entries without a balance', k);
  const expectMove = (what: string, id: string, status: string, want: number) => {
    const got = byObject.get(id) ?? 0;
    if (got !== want) add('c: object ledger movement', `${what} ${id} status=${status} ledger=${got} expected=${want}`);
  };
  for (const p of snap.payouts) {
    expectMove('payout', p.payout_id, p.status, ['failed', 'refunded', 'cancelled'].includes(p.status) ? 0 : -Number(p.amount_minor));
  }
  for (const r of snap.refunds) expectMove('refund', r.refund_id, r.status, r.status === 'failed' ? 0 : -Number(r.amount_minor));
  for (const p of snap.payments) {
    const credited = ['success', 'refunded'].includes(p.status) || p.status === 'partially_refunded';
    expectMove('payment', p.payment_id, p.status, credited ? Number(p.amount_minor) : 0);
  }

  // (d) every 2xx object exists
  const exists: Record<Kind, Set<string>> = {
    payment: new Set(snap.payments.map((p) => p.payment_id)),
    session: new Set(snap.sessions.map((p) => p.session_id)),
    payout: new Set(snap.payouts.map((p) => p.payout_id)),
    refund: new Set(snap.refunds.map((p) => p.refund_id)),
  };
  for (const kind of Object.keys(known) as Kind[]) {
    for (const id of known[kind]) if (!exists[kind].has(id)) add(`d: ${kind} answered 2xx but missing`, id);
  }
  for (const id of declined) if (!exists.payment.has(id)) add('d: declined payment (422 with id) missing', id);
  // (e) every completed record's answer names an object that exists; every object a keyed create made is named by one
  const answered = new Set<string>();
  const completed = snap.records.filter((r) => r.status === 'COMPLETED');
  for (const r of completed) {
    let body: Record<string, unknown> = {};
    try {
      body = JSON.parse(String(r.data?.body ?? '{}'));
    } catch {
      add('e: record answer is not JSON', String(r.PK));
    }
    for (const kind of Object.keys(ID_FIELD) as Kind[]) {
      const id = body[ID_FIELD[kind]];
      if (typeof id !== 'string') continue;
      answered.add(id);
      if (!exists[kind].has(id)) add(`e: completed record names a missing ${kind}`, `${String(r.PK)} -> ${id}`);
    }
  }
  for (const kind of ['payout', 'refund', 'session'] as const) {
    for (const id of known[kind]) if (!answered.has(id)) add(`e: keyed ${kind} with no completed record naming it`, id);
  }
  // Not violations: committed objects whose create never got an answer (the client cannot know them).
  const orphans = (kind: Kind) => [...exists[kind]].filter((id) => !known[kind].has(id) && !(kind === 'payment' && declined.has(id)));

  return {
    violations,
    stats: {
      committed: committed.size,
      deliveredCommitted,
      deliveries,
      duplicates,
      duplicatedEvents,
      badSignatures,
      payoutsByStatus,
      refundsByStatus,
      stuck: stuck.length,
      balanceRows,
      ledgerEntries: snap.ledger.length,
      orphanPayouts: orphans('payout'),
      orphanPayments: orphans('payment'),
      orphanSessions: orphans('session'),
      orphanRefunds: orphans('refund'),
      completedRecords: completed.length,
      tableCounts: {
        payments: snap.payments.length,
        sessions: snap.sessions.length,
        payouts: snap.payouts.length,
        refunds: snap.refunds.length,
        events: snap.events.length,
      },
    },
  };
}

// ---------------------------------------------------------------------------------------------------------
// The run
// ---------------------------------------------------------------------------------------------------------

async function main(): Promise<number> {
  const stateDir = process.env.PROOF_STATE_DIR ?? mkdtempSync(join(tmpdir(), 'crash-proof-'));
  mkdirSync(stateDir, { recursive: true });
  const port = await freePort();
  log(`state dir ${stateDir}, port ${port}, kills ${KILLS}, phase ${PHASE_SECONDS} s, settle wait ≤ ${SETTLE_SECONDS} s`);
  const receiver = await startReceiver();

  let s = await startStack(0, stateDir, port);
  log(`stack 0 ready (pid group ${s.pid}), merchant ${s.merchantId}, receiver ${receiver.url}`);
  await setNotificationUrl(s, receiver.url);

  try {
    const spreadMs = PHASE_SECONDS * 1300;
    for (let phase = 0; phase <= KILLS; phase++) {
      const load = startLoad(s, phase, spreadMs);
      if (phase === KILLS) {
        await load;
        log(`phase ${phase}: load done without a kill`);
        break;
      }
      const killAfter = PHASE_SECONDS * 1000 * (0.5 + Math.random() * 0.5);
      await sleep(killAfter);
      kills.push({ n: kills.length + 1, at: Date.now(), inFlight });
      log(`phase ${phase}: SIGKILL process group ${s.pid} after ${(killAfter / 1000).toFixed(2)} s, ${inFlight} requests in flight`);
      await stopStack(s, 'SIGKILL');
      await load;
      s = await startStack(phase + 1, stateDir, port);
      log(`stack ${phase + 1} restarted on the same state dir (pid group ${s.pid}); ${unanswered.length} keyed creates to retry later`);
    }

    // The last restart: retry what got no answer, then wait (bounded) until nothing is outstanding.
    const deadline = s.readyAt + SETTLE_SECONDS * 1000;
    const retries = retryUnanswered(s, deadline - 5000);
    let quietSince = 0;
    let lastReport = 0;
    let retriesDone = false;
    void retries.then(() => (retriesDone = true));
    for (;;) {
      const o = outstanding(await snapshot(s), receiver);
      const quiet = o.total === 0 && retriesDone;
      if (Date.now() - lastReport > 10_000 || quiet) {
        lastReport = Date.now();
        log(
          `waiting: ${o.undelivered.length} events undelivered, ${o.inFlightPayouts.length} payouts in flight, ` +
            `${o.unfinishedPayouts.length} payouts and ${o.unfinishedRefunds.length} refunds short of their outcome, ` +
            `${o.unfolded.length} credits not yet folded, ` +
            `keyed retries ${retriesDone ? 'done' : 'running'}`,
        );
      }
      if (quiet) {
        quietSince ||= Date.now();
        if (Date.now() - quietSince >= 3000) {
          log('quiet');
          break;
        }
      } else quietSince = 0;
      if (Date.now() > deadline) {
        log(`settle window (${SETTLE_SECONDS} s after the last restart) over`);
        break;
      }
      await sleep(2000);
    }
    await retries;
    retried.stillUnanswered = unanswered.length;

    const snap = await snapshot(s);
    const { violations, stats } = checkAll(snap, receiver, s.webhookSecret);
    report(stats, violations, stateDir);
    return violations.length > 0 ? 1 : 0;
  } finally {
    await stopStack(s, 'SIGTERM');
    await receiver.stop();
  }
}

function report(stats: ReturnType<typeof checkAll>['stats'], violations: Violation[], stateDir: string) {
  const rows: Array<[string, string | number]> = [];
  let sent = 0;
  let okCount = 0;
  for (const [op, c] of [...counters.entries()].sort()) {
    sent += c.sent;
    okCount += c.ok;
    rows.push([
      `requests ${op}`,
      `${c.sent} sent, ${c.ok} 2xx, ${c.c4xx} 4xx, ${c.c429} 429, ${c.c5xx} 5xx, ${c.noAnswer} no answer`.replace(/, 0 [^,]+/g, ''),
    ]);
  }
  rows.unshift(['requests (all)', `${sent} sent, ${okCount} 2xx`]);
  rows.push([
    'kills',
    kills.map((k) => `#${k.n} at +${((k.at - started) / 1000).toFixed(1)}s (${k.inFlight} in flight)`).join('; ') || '-',
  ]);
  rows.push(['idempotency records completed', stats.completedRecords]);
  rows.push(['keyed retries after restart', `${retried.total} (${retried.ok} 2xx, ${retried.failed.length} not 2xx)`]);
  rows.push([
    'objects in table',
    Object.entries(stats.tableCounts)
      .map(([k, v]) => `${k} ${v}`)
      .join(', '),
  ]);
  rows.push(['events committed', stats.committed]);
  rows.push(['events delivered', `${stats.deliveredCommitted} of ${stats.committed} (${stats.deliveries} deliveries)`]);
  rows.push(['duplicate deliveries', `${stats.duplicates} (over ${stats.duplicatedEvents} events)`]);
  rows.push(['bad signatures', stats.badSignatures]);
  rows.push([
    'payouts by status',
    Object.entries(stats.payoutsByStatus)
      .map(([k, v]) => `${k} ${v}`)
      .join(', ') || '-',
  ]);
  rows.push([
    'refunds by status',
    Object.entries(stats.refundsByStatus)
      .map(([k, v]) => `${k} ${v}`)
      .join(', ') || '-',
  ]);
  rows.push(['payouts stuck pending/processing', stats.stuck]);
  rows.push(['ledger check', `${stats.ledgerEntries} entries; ${stats.balanceRows.join('; ')}`]);
  rows.push([
    'committed, never answered (info)',
    `payouts ${stats.orphanPayouts.length}, payments ${stats.orphanPayments.length}, sessions ${stats.orphanSessions.length}, ` +
      `refunds ${stats.orphanRefunds.length}`,
  ]);
  const width = Math.max(...rows.map(([k]) => k.length));
  console.log('\n=== crash-consistency proof ===');
  for (const [k, v] of rows) console.log(`${k.padEnd(width)} | ${v}`);
  for (const f of retried.failed) console.log(`  retry not 2xx: ${f}`);
  const byCheck = new Map<string, string[]>();
  for (const v of violations) byCheck.set(v.check, [...(byCheck.get(v.check) ?? []), v.detail]);
  console.log(`\n${violations.length === 0 ? 'No violations.' : `${violations.length} violation(s):`}`);
  for (const [check, details] of byCheck) {
    console.log(`  ${check}: ${details.length}`);
    for (const d of details.slice(0, 25)) console.log(`    ${d}`);
    if (details.length > 25) console.log(`    ... and ${details.length - 25} more`);
  }
  console.log(`\nState and stack logs kept in ${stateDir}`);
}

main()
  .then((code) => {
    log(`done in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    process.exit(code);
  })
  .catch((e: unknown) => {
    console.error('[proof] could not run:', e);
    process.exit(2);
  });
