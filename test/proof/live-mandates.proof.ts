/**
 * Mandates crash proof (issue 43, DESIGN.md 9.3): `npm run proof:mandates` (and part of `npm run proof`).
 *
 * The fake API Pix PSP (with a `recebedor`: Pix Automático) runs in this process; the local live stage runs on it as a
 * child process group, its Pix, recurrence and charge webhooks registered as ops would. Load: keyed live Pix
 * Automático mandates (fixed and capped, weekly and monthly, some allowing retries); the payer approves (or rejects)
 * each in the bank app; active ones are charged inside the window, two charges at once for one cycle now and then;
 * each cobr is paid, fails an attempt (a retry then paid) or fails for good at the PSP; some mandates are cancelled by
 * the payer or the merchant. Faults: POST /rec and PUT /cobr answered 500, hung, or carried out with their answer lost;
 * callbacks withheld or posted twice. The stack is SIGKILLed PROOF_KILLS times (default 2): the first while a PUT
 * /cobr is carried out at the PSP and its answer not yet back (between the cobr request and its commit), the others at
 * a random point; keyed requests with no answer (or a 502) are retried with their key. Then the reconciliation job
 * (reconcile-providers, run here on the stack's table at a time past every read-back's schedule) settles what no
 * callback told, and the proof checks:
 *   (a) one cobr per txid, exactly one cobr per charge the PSP was sent (none for one it refused), every cobr at the
 *       PSP a charge of ours;
 *   (b) no billing cycle of a mandate has two charges that have not failed;
 *   (c) a charge is success exactly when its cobr is paid (CONCLUIDA), with one payment credit; failed when it failed;
 *   (d) ledger = balance (with the credits still to fold), never negative;
 *   (e) every mandate's status is its rec's at the PSP (CRIADA pending_approval, APROVADA active, ...), its idRec ours;
 *   (f) every committed event reached the merchant's receiver;
 *   (g) the fake saw no request off its schemas; every mandate or charge answered 200 or 502 exists.
 * Exits 1 on a violation, 2 when the proof could not run. Knobs: PROOF_KILLS (default 2), PROOF_PHASE_SECONDS
 * (default 4), PROOF_SETTLE_SECONDS (default 90, ended as soon as every check holds; measured waits 20 to 23 s).
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Context, ScheduledEvent } from 'aws-lambda';
import { apiPixConnectors } from '../../shared/adapters/providers/api-pix/api-pix.connector';
import { cobrTxidOf, paymentIdOfCobrTxid, recReferenceOf } from '../../shared/adapters/providers/api-pix/api-pix.recurrence.transformers';
import { parseProvidersConfig } from '../../shared/adapters/providers/providers.config';
import { merchantRepository } from '../../shared/adapters/dynamodb/merchant.repository';
import { addDays, cycleOf, type Mandate } from '../../shared/domain/mandates/mandate';
import { startFakePsp, type CallbackHow, type FakePsp } from '../support/fake-psp';
import { todayBr } from '../support/fake-psp/recurrence-state';
import { startReceiver, type Receiver } from '../support/receiver';
import { balanceViolations, outstandingSummary } from './balances';
import {
  freePort,
  liveProofKnobs,
  livePayinStackOptions,
  postAs,
  scanAll,
  setNotificationUrl,
  sleep,
  startStack,
  stopStack,
  type Item,
  type Stack,
  runProof,
  verdict,
  underKills,
} from './stack-process';

const {
  kills: KILLS,
  phaseSeconds: PHASE_SECONDS,
  settleSeconds: SETTLE_SECONDS,
  log,
} = liveProofKnobs('mandates', {
  settle: 90,
  minSettle: 20,
  guardExtra: 60,
});
const LOST_INTENT_SECONDS = 10;
const TOKEN = randomBytes(24).toString('base64url');
const RECEBEDOR = { agencia: '0001', conta: '7654321', tipoConta: 'CORRENTE' } as const;
const REC_STATUS: Readonly<Record<string, Mandate['status']>> = {
  CRIADA: 'pending_approval',
  APROVADA: 'active',
  REJEITADA: 'rejected',
  EXPIRADA: 'expired',
  CANCELADA: 'cancelled',
};
const FAILED = new Set(['failed', 'expired', 'cancelled']);

const answered = new Set<string>();
/** Mandates whose create was answered 200 (the merchant holds their approval). */
const created = new Set<string>();
const unanswered: Array<{ path: string; key: string; body: Record<string, unknown> }> = [];
const counts = {
  mandates: 0,
  approved: 0,
  rejected: 0,
  payerCancels: 0,
  merchantCancels: 0,
  charges: 0,
  chargeRaces: 0,
  settled: 0,
  attemptsFailed: 0,
  finalFailures: 0,
  unavailable: 0,
  noAnswer: 0,
  refused: 0,
  retriedWithKey: 0,
};
/** Charges refused, by error code (a mandate not active yet, its cycle taken): what the load met. */
const refusals: Record<string, number> = {};
let stack: Stack;
let psp: FakePsp;

const pick = <T>(xs: readonly T[]): T => xs[Math.floor(Math.random() * xs.length)]!;
const how = (): CallbackHow => pick<CallbackHow>([true, true, true, false, 'twice']);
const idIn = (text: string, prefix: 'md' | 'pi') => new RegExp(`${prefix}_[A-Za-z0-9_-]{16,}`).exec(text)?.[0];

/** A keyed POST; no answer (the stack killed, a timeout) is kept to retry with its key once the stack is back. */
async function keyed(path: string, body: Record<string, unknown>, key = randomUUID()) {
  try {
    const r = await postAs(stack, path, body, { 'x-idempotency-key': key });
    if (r.status === 502) unanswered.push({ path, key, body });
    return r;
  } catch {
    counts.noAnswer++;
    unanswered.push({ path, key, body });
    return null;
  }
}

function noteAnswer(r: { status: number; body: Record<string, any> } | null, prefix: 'md' | 'pi'): string | null {
  if (!r) return null;
  const id = (r.body[prefix === 'md' ? 'mandate_id' : 'payment_id'] as string | undefined) ?? idIn(JSON.stringify(r.body), prefix);
  if ((r.status === 200 || r.status === 502) && id) answered.add(id);
  if (r.status === 200 && id && prefix === 'md') created.add(id);
  if (r.status === 502) counts.unavailable++;
  return r.status === 200 && id ? id : null;
}

/** The payer's side of a charge at the PSP, once it is scheduled there. */
async function payerOfCharge(paymentId: string) {
  const txid = cobrTxidOf(paymentId);
  for (let i = 0; i < 20 && psp.cobr(txid)?.status !== 'ATIVA'; i++) await sleep(50);
  const roll = Math.random();
  try {
    if (roll < 0.6) {
      await psp.settleCobr(txid, { callback: how() });
      counts.settled++;
    } else if (roll < 0.8) {
      await psp.failCobrAttempt(txid, { callback: how() });
      counts.attemptsFailed++;
      // Under retry_3_in_7_days our side asks a retry: the payer pays it when it is scheduled.
      for (let i = 0; i < 20; i++) {
        const c = psp.cobr(txid);
        if (c?.status === 'ATIVA' && (c.tentativas ?? []).some((t) => t.status === 'AGENDADA')) {
          await psp.settleCobr(txid, { callback: how() });
          counts.settled++;
          break;
        }
        if (c?.status !== 'ATIVA') break;
        await sleep(100);
      }
    } else if (roll < 0.9) {
      await psp.failCobrAttempt(txid, { code: pick(['AC05', 'AM09', 'RC09']), callback: how() });
      counts.finalFailures++;
    }
  } catch {
    // not scheduled (the PUT never landed yet), or the stack down when the callback was posted: the job reads it back
  }
}

async function chargeOnce(mandateId: string, m: { amount: number; frequency: string }) {
  const due = addDays(todayBr(), 2 + Math.floor(Math.random() * 9));
  const roll = Math.random();
  if (roll < 0.1) psp.failNext('putCobr', { status: 500 }, 2);
  else if (roll < 0.16) psp.failNext('putCobr', { hang: true });
  else if (roll < 0.24) psp.failNext('putCobr', { lost: true });
  const body = { amount: m.amount, due_date: due, description: 'Mensalidade' };
  const path = `/api/v1/mandates/${mandateId}/charges`;
  // Now and then two charges at once for one cycle: one takes it.
  const race = Math.random() < 0.2;
  if (race) counts.chargeRaces++;
  const rs = await Promise.all((race ? [0, 1] : [0]).map(() => keyed(path, body)));
  for (const r of rs) {
    counts.charges++;
    if (r && r.status !== 200 && r.status !== 502) {
      counts.refused++;
      const code = String(r.body.error?.code ?? r.status);
      refusals[code] = (refusals[code] ?? 0) + 1;
    }
    const id = noteAnswer(r, 'pi');
    if (id) await payerOfCharge(id);
  }
}

async function chain() {
  const fixed = Math.random() < 0.7;
  const amount = 10 + Math.floor(Math.random() * 90) + Math.floor(Math.random() * 100) / 100;
  const frequency = Math.random() < 0.5 ? 'weekly' : 'monthly';
  const body: Record<string, unknown> = {
    country: 'BRA',
    currency: 'BRL',
    method: 'pix_automatico',
    customer: { name: 'Maria Souza', email: 'maria@example.com', document: '52998224725' },
    description: 'Plano da academia',
    frequency,
    ...(fixed ? { amount } : { max_amount: amount + 50 }),
    start_date: todayBr(),
    retry_policy: Math.random() < 0.5 ? 'retry_3_in_7_days' : 'none',
  };
  const roll = Math.random();
  if (roll < 0.06) psp.failNext('postRec', { status: 500 });
  else if (roll < 0.1) psp.failNext('postRec', { hang: true });
  else if (roll < 0.18) psp.failNext('postRec', { lost: true });
  counts.mandates++;
  const id = noteAnswer(await keyed('/api/v1/mandates', body), 'md');
  if (!id) return;
  const rec = psp.recs().find((r) => r.vinculo.contrato === recReferenceOf(id));
  if (!rec) return;
  try {
    if (Math.random() < 0.12) {
      await psp.rejectRec(rec.idRec, { callback: how() });
      counts.rejected++;
      return;
    }
    await psp.approveRec(rec.idRec, { callback: how() });
    counts.approved++;
  } catch {
    return; // the stack down as the callback went: the job reads the rec back
  }
  for (let i = 0; i < 2; i++) await chargeOnce(id, { amount, frequency });
  const end = Math.random();
  try {
    if (end < 0.1) {
      await psp.payerCancelRec(rec.idRec, { callback: how() });
      counts.payerCancels++;
    } else if (end < 0.2) {
      const r = await keyed(`/api/v1/mandates/${id}/cancel`, {});
      if (r?.status === 200) counts.merchantCancels++;
    }
  } catch {
    // as above
  }
}

/** Load for a phase: 4 runners of mandate chains, until the phase ends or the stack dies. */
async function load(phase: number, end: number) {
  const runners = Array.from({ length: 4 }, async () => {
    while (Date.now() < end && stack.alive) await chain().catch(() => undefined);
  });
  await Promise.all(runners);
  log(`phase ${phase}: load stopped`);
}

/** Kills the stack when the PSP has carried out a PUT /cobr whose answer is lost: before the stack commits what it learnt. */
async function killAtCobr(phase: number) {
  const seen = psp.requests.length;
  psp.failNext('putCobr', { lost: true });
  for (let i = 0; i < 4000; i++) {
    const hit = psp.requests.slice(seen).find((q) => q.method === 'PUT' && q.path.startsWith('/cobr/'));
    if (hit) {
      log(`phase ${phase}: SIGKILL process group ${stack.pid} with PUT ${hit.path} carried out at the PSP and unanswered`);
      return stopStack(stack, 'SIGKILL', log);
    }
    await sleep(2);
  }
  log(`phase ${phase}: no PUT /cobr in 8 s: SIGKILL process group ${stack.pid} now`);
  return stopStack(stack, 'SIGKILL', log);
}

/**
 * Keyed requests with no answer, a 502, or still claimed by a request the kill cut short (409 until its claim's 29 s
 * end) are sent again with their key; what is still unanswered stays for the next pass.
 */
async function retryUnanswered() {
  for (const u of unanswered.splice(0)) {
    const r = await postAs(stack, u.path, u.body, { 'x-idempotency-key': u.key }).catch(() => null);
    counts.retriedWithKey++;
    if (!r || r.status === 502 || (r.status === 409 && r.body.error?.code === 'IDEMPOTENCY_IN_PROGRESS')) {
      unanswered.push(u);
      continue;
    }
    const id = noteAnswer(r, u.path.endsWith('/charges') ? 'pi' : 'md');
    if (id && u.path.endsWith('/charges')) await payerOfCharge(id);
  }
}

/** The reconciliation job as the scheduler runs it, here on the stack's table, at a time past every read-back due. */
async function runJob(opts: { stateDir: string; providers: string }) {
  const info = JSON.parse(readFileSync(join(opts.stateDir, 'stack.json'), 'utf8')) as {
    dynamodb_endpoint: string;
    table_name: string;
    region: string;
  };
  Object.assign(process.env, {
    STAGE: 'live',
    PROVIDERS_FILE: opts.providers,
    TABLE_NAME: info.table_name,
    DYNAMODB_ENDPOINT: info.dynamodb_endpoint,
    AWS_REGION: info.region,
    AWS_ACCESS_KEY_ID: 'local',
    AWS_SECRET_ACCESS_KEY: 'local',
    PROVIDER_LOST_INTENT_SECONDS: String(LOST_INTENT_SECONDS),
    POWERTOOLS_LOG_LEVEL: 'ERROR',
  });
  const { handler } = await import('../../functions/jobs/reconcile-providers.handler');
  // Past a pending mandate's (15 min), a charge's (6 h) and an active mandate's (24 h) next read-back, before any
  // approval's deadline (7 days): what the schedule will have run by then.
  const time = new Date(Date.now() + 25 * 3600_000).toISOString();
  const context = { getRemainingTimeInMillis: () => 60_000, functionName: 'reconcile-providers' } as Context;
  for (let i = 0; i < 4; i++) await handler({ time } as ScheduledEvent, context);
}

function check(items: Item[], receiver: Receiver): string[] {
  const v: string[] = [];
  const mandates = items.filter((i) => i.entity === 'mandate' && i.livemode === true) as unknown as Mandate[];
  const payments = items.filter((i) => String(i.PK).startsWith('PAYMENT#') && i.livemode === true && i.mandate_id);
  const credits = new Map<string, number>();
  for (const l of items.filter((i) => i.entity === 'ledger_entry' && i.mode === 'live'))
    if (l.reason === 'payment') credits.set(l.object_id, (credits.get(l.object_id) ?? 0) + 1);
  const ours = new Set(payments.map((p) => p.payment_id as string));
  // (a) never two different requests for one charge: every PUT /cobr of a txid carries the same body (so the PSP,
  // which keys cobrs by txid, holds one cobr per charge); every cobr maps back to one payment of ours; and the PSP
  // never holds two live cobrs (not rejected, expired or cancelled) of one rec for one due date.
  const bodies = new Map<string, string>();
  for (const q of psp.requests) {
    const m = q.method === 'PUT' ? /\/cobr\/([^/?]+)$/.exec(q.path) : null;
    if (!m) continue;
    const txid = decodeURIComponent(m[1] as string);
    const body = JSON.stringify(q.body);
    const first = bodies.get(txid);
    if (first === undefined) bodies.set(txid, body);
    else if (first !== body) v.push(`a: two different PUT /cobr requests for txid ${txid}`);
  }
  const cobrs = psp.cobrs();
  const live = new Map<string, string>();
  for (const c of cobrs) {
    const pid = paymentIdOfCobrTxid(c.txid);
    if (!pid || !ours.has(pid)) v.push(`a: cobr ${c.txid} is no charge of ours (${pid ?? 'not our txid'})`);
    if (['REJEITADA', 'EXPIRADA', 'CANCELADA'].includes(c.status)) continue;
    const key = `${c.idRec} ${c.calendario.dataDeVencimento}`;
    const other = live.get(key);
    if (other) v.push(`a: rec and due date ${key} have two live cobrs: ${other}, ${c.txid}`);
    live.set(key, c.txid);
  }
  for (const p of payments) {
    const txid = cobrTxidOf(p.payment_id);
    const cobr = psp.cobr(txid);
    const refused = p.failure_code === 'PROVIDER_REJECTED';
    if (refused && cobr) v.push(`a: ${p.payment_id} refused by the PSP yet its cobr exists`);
    if (!refused && !cobr) v.push(`a: ${p.payment_id} (${p.status}) has no cobr at the PSP`);
    if (p.provider?.reference !== txid) v.push(`a: ${p.payment_id} names txid ${p.provider?.reference}, not ${txid}`);
    // (c) the payment follows its cobr; one credit for a success.
    const paid = cobr?.status === 'CONCLUIDA';
    if (paid !== (p.status === 'success')) v.push(`c: ${p.payment_id} is ${p.status}, its cobr ${cobr?.status ?? 'absent'}`);
    if (p.status === 'success' && credits.get(p.payment_id) !== 1)
      v.push(`c: ${p.payment_id} has ${credits.get(p.payment_id) ?? 0} payment credits`);
    if (p.status !== 'success' && credits.has(p.payment_id)) v.push(`c: ${p.payment_id} (${p.status}) was credited`);
    if (cobr && ['REJEITADA', 'EXPIRADA'].includes(cobr.status) && p.status !== 'failed')
      v.push(`c: ${p.payment_id} is ${p.status}, its cobr ${cobr.status}`);
  }
  // (b) one open or paid charge per billing cycle.
  const byCycle = new Map<string, string[]>();
  for (const p of payments) {
    const m = mandates.find((x) => x.mandate_id === p.mandate_id);
    if (!m || FAILED.has(p.status)) continue;
    const key = `${p.mandate_id}#${cycleOf(m, p.due_date)}`;
    byCycle.set(key, [...(byCycle.get(key) ?? []), p.payment_id]);
  }
  for (const [key, ids] of byCycle) if (ids.length > 1) v.push(`b: cycle ${key} has ${ids.length} charges not failed: ${ids.join(', ')}`);
  v.push(...balanceViolations(items, 'd'));
  // (e) every mandate as its rec.
  for (const m of mandates) {
    const rec = psp.recs().find((r) => r.vinculo.contrato === recReferenceOf(m.mandate_id));
    if (!rec) {
      // A create that never reached the PSP and was never answered 200 (its merchant gave up after the 502 or no
      // answer) is not sent again: it stays pending_approval until its deadline (mandates-live.ts).
      if (created.has(m.mandate_id) || m.status !== 'pending_approval') v.push(`e: ${m.mandate_id} (${m.status}) has no rec at the PSP`);
      continue;
    }
    if (REC_STATUS[rec.status] !== m.status) v.push(`e: ${m.mandate_id} is ${m.status}, its rec ${rec.idRec} ${rec.status}`);
    if (m.provider?.provider_mandate_id !== rec.idRec) v.push(`e: ${m.mandate_id} names idRec ${m.provider?.provider_mandate_id}`);
  }
  const delivered = new Set(receiver.received.map((r) => String(r.headers['webhook-id'])));
  for (const e of items.filter((i) => String(i.PK).startsWith('EVENT#') && i.livemode === true))
    if (!delivered.has(e.event_id)) v.push(`f: event ${e.event_id} (${e.type}) never delivered`);
  v.push(...psp.violations.map((x) => `g: api_pix ${x}`));
  const ids = new Set([...mandates.map((m) => m.mandate_id), ...payments.map((p) => p.payment_id as string)]);
  for (const id of answered) if (!ids.has(id)) v.push(`g: ${id} answered but missing`);
  return v;
}

async function main(): Promise<number> {
  const stateDir = mkdtempSync(join(tmpdir(), 'mandates-proof-'));
  const port = await freePort();
  psp = await startFakePsp({ hangMs: 4_000, recebedor: RECEBEDOR });
  const providers = join(stateDir, 'providers.json');
  const apiPix = { ...psp.apiPixConfig(TOKEN), recebedor: psp.recebedor, timeouts: { connect_ms: 1000, total_ms: 2000 } };
  writeFileSync(providers, JSON.stringify({ api_pix: apiPix }));
  const receiver = await startReceiver();
  const opts = livePayinStackOptions(providers, LOST_INTENT_SECONDS);
  log(`state dir ${stateDir}, port ${port}, kills ${KILLS}, phase ${PHASE_SECONDS} s`);
  stack = await startStack(0, stateDir, port, opts);
  await setNotificationUrl(stack, receiver.url);
  await merchantRepository(stack.db, () => stack.tableName).setRateLimits(
    stack.merchantId,
    { createMandate: 100_000, createMandateCharge: 100_000, cancelMandate: 100_000 },
    new Date(),
  );
  // As `providers api-pix register-webhook` does: the Pix webhook, webhookrec and webhookcobr at one URL.
  const ops = apiPixConnectors(parseProvidersConfig({ api_pix: apiPix }, 'proof').api_pix!);
  await ops.recurrence!.webhooks.register(`${stack.baseUrl}/providers/api-pix/${TOKEN}`);
  ops.client.close();
  try {
    await underKills({
      kills: KILLS,
      phaseSeconds: PHASE_SECONDS,
      log,
      load: (phase) => load(phase, Date.now() + PHASE_SECONDS * 1000),
      current: () => stack,
      killWithin: [0.4, 0.8],
      kill: async (phase) => {
        if (phase === 0) return killAtCobr(phase);
        log(`phase ${phase}: SIGKILL process group ${stack.pid}`);
        await stopStack(stack, 'SIGKILL', log);
      },
      restart: async (n) => {
        stack = await startStack(n, stateDir, port, opts);
        log(`stack ${n} restarted; ${unanswered.length} keyed requests without an answer so far`);
        await retryUnanswered();
      },
    });
    log(`load over: ${psp.clearFaults()} scripted PSP faults not met, dropped`);
    const deadline = Date.now() + SETTLE_SECONDS * 1000;
    let violations: string[] = [];
    for (;;) {
      await retryUnanswered();
      await runJob({ stateDir, providers });
      await sleep(2000);
      violations = check(await scanAll(stack), receiver);
      log(`waiting: ${outstandingSummary(violations)}; ${unanswered.length} keyed requests unanswered`);
      if ((violations.length === 0 && unanswered.length === 0) || Date.now() > deadline) break;
    }
    const cobrs = psp.cobrs();
    const paidCobrs = cobrs.filter((c) => c.status === 'CONCLUIDA').length;
    log(
      `load: ${JSON.stringify(counts)}; charges refused ${JSON.stringify(refusals)}; ` +
        `at the PSP ${psp.recs().length} recs, ${cobrs.length} cobrs (${paidCobrs} paid); webhooks received ${receiver.received.length}`,
    );
    const items = await scanAll(stack);
    const rejected = items.filter((i) => i.mandate_id && i.failure_code === 'PROVIDER_REJECTED' && String(i.PK).startsWith('PAYMENT#'));
    const recOfMandate = (id: string) => psp.recs().find((r) => r.vinculo.contrato === recReferenceOf(id))?.status ?? 'none';
    log(`charges the PSP refused: ${rejected.length} (their recs: ${rejected.map((p) => recOfMandate(p.mandate_id)).join(', ')})`);
    return verdict(log, violations, stateDir);
  } finally {
    await stopStack(stack, 'SIGTERM', log);
    await receiver.stop();
    await psp.close();
  }
}

runProof('mandates proof', main);
