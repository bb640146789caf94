/**
 * Disputes crash proof (DESIGN.md 9.4): `npm run proof:disputes` (and part of `npm run proof`).
 *
 * The fake Adyen (Checkout v71 and the Disputes API v30) runs in this process; the local live stage runs on it as a
 * child process group. Load: live card payments paid at the fake Adyen; a dispute opened on each at Adyen and told by
 * its notices (NOTIFICATION_OF_CHARGEBACK then CHARGEBACK, some repeated, some out of order, some reversed and some
 * lost to a second chargeback); the merchant stages evidence (PDFs and JPEGs made here, real magic bytes; now and then
 * restaged) and submits it, or accepts, or leaves it. Faults: supplyDefenseDocument, defendDispute and acceptDispute
 * answered 500, hung past our time limit, or carried out with their answer lost; defendDispute refused (the merchant
 * restages, dropping a type, and submits again). The stack is SIGKILLed PROOF_KILLS times (default 2): the first while
 * a defendDispute is carried out at Adyen and its answer not yet back (between the call and its commit), the others at a
 * random point. Keyed requests with no answer, or a 502/503, are sent again with a new key (which must resume, never
 * send a step twice) and with their own key (answered once its claim ends); notices that got no `[accepted]` are
 * posted again, in order. Then the proof checks:
 *   (a) at Adyen each dispute was defended at most once and accepted at most once (calls carried out, replays by
 *       Idempotency-Key aside), never both;
 *   (b) the documents Adyen holds for a defended dispute are exactly the staged ones, by type and SHA-256 (a restaged
 *       type replaced, a dropped one removed);
 *   (c) one dispute per disputed payment, none pending; its status Adyen's view (defended: under_review or decided;
 *       accepted: accepted) and the money's (won exactly when reversed);
 *   (d) ledger = balance (with the credits still to fold); each payment's chargeback entries are its notices' stages,
 *       each moved once;
 *   (e) every committed event reached the merchant's receiver;
 *   (f) the fake saw no request off its schemas.
 * Exits 1 on a violation, 2 when the proof could not run. Knobs: PROOF_KILLS (default 2), PROOF_PHASE_SECONDS
 * (default 4), PROOF_SETTLE_SECONDS (default 90, ended as soon as every check holds: a request the kill cut short holds
 * its key for 29 s; measured waits 22 to 46 s).
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { merchantRepository } from '../../shared/adapters/dynamodb/merchant.repository';
import type { NotificationItem } from '../../shared/adapters/providers/adyen/adyen.schemas';
import { paymentReferenceOf } from '../../shared/adapters/providers/adyen/adyen.transformers';
import { disputeIdOf } from '../../shared/domain/disputes/dispute-case';
import { startFakeAdyen, type FakeAdyen, type FakeAdyenOp, type Fault } from '../support/fake-adyen';
import { startReceiver, type Receiver } from '../support/receiver';
import { balanceViolations, outstandingSummary } from './balances';
import {
  freePort,
  liveProofKnobs,
  livePayinStackOptions,
  postAs,
  runProof,
  scanAll,
  setNotificationUrl,
  sleep,
  startStack,
  stopStack,
  type Item,
  type Stack,
  verdict,
  underKills,
} from './stack-process';

const {
  kills: KILLS,
  phaseSeconds: PHASE_SECONDS,
  settleSeconds: SETTLE_SECONDS,
  log,
} = liveProofKnobs('disputes', {
  settle: 90,
  minSettle: 35,
  guardExtra: 60,
});
const customer = { name: 'Ana Silva', email: 'ana@example.com', document: '52998224725' };
const card = {
  number: '4111111145551142',
  holder_name: 'ANA SILVA',
  cvv: '737',
  expiry_month: '03',
  expiry_year: String(new Date().getUTCFullYear() + 3),
};
const REASON_CODES = ['10.4', '4837', '13.1', '13.3', '4853'] as const;

type Answer = { status: number; body: Record<string, any> };
type Doc = { type: string; mime: 'application/pdf' | 'image/jpeg'; content_base64: string };
type Reason = { code: string; documents: Array<{ type: string; requirement: string }> };

/** A dispute of the load: its payment, its case at Adyen, the notices Adyen sends (in order) and what the merchant did. */
interface Case {
  readonly paymentId: string;
  readonly disputeId: string;
  readonly psp: string;
  readonly amountMinor: number;
  /** Notices in the order Adyen sends them; `delivered` of them were answered [accepted], in that order. */
  readonly notices: NotificationItem[];
  delivered: number;
  /** The last staging answered 200 (type -> SHA-256 of its bytes); null when none or when one went unanswered. */
  staged: Map<string, string> | null;
  stagedUnsure: boolean;
}

const cases = new Map<string, Case>();
/** Keyed requests without a final answer: sent again with a new key once the stack is back, then with their own key. */
const unanswered: Array<{ path: string; key: string; body: unknown; c: Case | null; renewed: boolean }> = [];
const counts = {
  payments: 0,
  disputes: 0,
  notices: 0,
  noticeRetries: 0,
  stagings: 0,
  restagings: 0,
  submissions: 0,
  submitted: 0,
  refusedThenResubmitted: 0,
  accepts: 0,
  accepted: 0,
  unavailable: 0,
  busy: 0,
  noAnswer: 0,
  retriedSameKey: 0,
  retriedNewKey: 0,
  reversed: 0,
  secondChargebacks: 0,
  kills: 0,
};
const faults: Record<string, number> = {};
let stack: Stack;
let adyen: FakeAdyen;

const pick = <T>(xs: readonly T[]): T => xs[Math.floor(Math.random() * xs.length)]!;
const sha256 = (b64: string) => createHash('sha256').update(Buffer.from(b64, 'base64')).digest('hex');

/** A small real PDF (header, one page, a text stream, xref, trailer), its text unique. */
function pdf(text: string): string {
  const stream = `BT /F1 12 Tf 72 720 Td (${text.replace(/[()\\]/g, '')}) Tj ET`;
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>',
    `<< /Length ${stream.length} >>\nstream\n${stream}\nendstream`,
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
  ];
  let out = '%PDF-1.4\n';
  const offsets: number[] = [];
  objects.forEach((o, i) => {
    offsets.push(out.length);
    out += `${i + 1} 0 obj\n${o}\nendobj\n`;
  });
  const xref = out.length;
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('')}`;
  out += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(out, 'latin1').toString('base64');
}

/** A JPEG's frame: SOI, a JFIF APP0, a comment, scan-like bytes and EOI (`big`: about 420 KB, stored in two chunks). */
function jpeg(big = false): string {
  const app0 = Buffer.from([0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00, 0x01, 0x01, 0x00, 0x00, 0x48, 0x00, 0x48, 0x00, 0x00]);
  const note = Buffer.from(`receipt ${randomUUID()}`);
  const com = Buffer.concat([Buffer.from([0xff, 0xfe, 0x00, note.length + 2]), note]);
  const scan = randomBytes(big ? 420_000 : 2_000 + Math.floor(Math.random() * 6_000)).map((b) => (b === 0xff ? 0xfe : b));
  return Buffer.concat([Buffer.from([0xff, 0xd8]), app0, com, Buffer.from([0xff, 0xda]), scan, Buffer.from([0xff, 0xd9])]).toString(
    'base64',
  );
}

const docOf = (type: string): Doc =>
  Math.random() < 0.5
    ? { type, mime: 'application/pdf', content_base64: pdf(`${type} ${randomUUID()}`) }
    : { type, mime: 'image/jpeg', content_base64: jpeg(Math.random() < 0.03) };

/** Documents that satisfy a reason: every required one, one (or two) of one_or_more, one alternative, optional ones by chance. */
function documentsFor(reason: Reason, without: string | null = null): Doc[] {
  const of = (r: string) => reason.documents.filter((d) => d.requirement === r).map((d) => d.type);
  const types = new Set(of('required'));
  const oneOrMore = of('one_or_more');
  if (oneOrMore.length) {
    const choices = oneOrMore.filter((t) => t !== without);
    types.add(pick(choices.length ? choices : oneOrMore));
    if (Math.random() < 0.3) types.add(pick(oneOrMore));
  }
  const alternatives = of('alternative_required');
  if (alternatives.length) types.add(pick(alternatives));
  for (const t of of('optional')) if (t !== without && Math.random() < 0.5) types.add(t);
  return [...types].map(docOf);
}

/** A keyed POST: null when no answer came (the stack killed), else its status and body. */
async function keyedPost(path: string, body: unknown, key: string): Promise<Answer | null> {
  try {
    return await postAs(stack, path, body, { 'x-idempotency-key': key });
  } catch {
    return null;
  }
}

/**
 * A keyed request as a merchant sends it: a 502 or 503 sent again (with the same key, or now and then a new one) until
 * it is answered otherwise; no answer (the stack killed) kept for later. Null when unanswered.
 */
async function merchantPost(path: string, body: unknown, c: Case | null): Promise<Answer | null> {
  let key = randomUUID();
  for (let round = 0; round < 6; round++) {
    const r = await keyedPost(path, body, key);
    if (!r) {
      counts.noAnswer++;
      unanswered.push({ path, key, body, c, renewed: false });
      return null;
    }
    if (r.status !== 502 && r.status !== 503 && !(r.status === 409 && r.body.error?.code === 'IDEMPOTENCY_IN_PROGRESS')) return r;
    if (r.status === 502) counts.unavailable++;
    else counts.busy++;
    await sleep(100);
    if (Math.random() < 0.3) {
      key = randomUUID();
      counts.retriedNewKey++;
    } else counts.retriedSameKey++;
  }
  unanswered.push({ path, key, body, c, renewed: true });
  return null;
}

/** Posts the case's notices not yet [accepted], in order; stops at the first that is not. */
async function deliver(c: Case): Promise<boolean> {
  while (c.delivered < c.notices.length) {
    if (!stack.alive) return false;
    const item = c.notices[c.delivered]!;
    const r = await adyen.notify([item]).catch(() => null);
    if (!r || r.status !== 200 || r.body !== '[accepted]') {
      counts.noticeRetries++;
      return false;
    }
    c.delivered++;
    counts.notices++;
  }
  return true;
}

function arm(op: FakeAdyenOp, how: Fault, name: string) {
  adyen.failNext(op, how);
  faults[name] = (faults[name] ?? 0) + 1;
}

/** Stages evidence; true when answered 200 (what is staged is then known). */
async function stage(c: Case, reason: Reason, docs: Doc[]): Promise<boolean> {
  counts.stagings++;
  const body = { defense_reason: reason.code, documents: docs, ...(Math.random() < 0.3 ? { text: 'Delivered and signed for.' } : {}) };
  const r = await merchantPost(`/api/v1/disputes/${c.disputeId}/evidence`, body, c);
  if (!r) {
    c.stagedUnsure = true;
    return false;
  }
  if (r.status !== 200) return false;
  c.staged = new Map(docs.map((d) => [d.type, sha256(d.content_base64)]));
  return true;
}

/**
 * The merchant's defense: reasons read, evidence staged (restaged now and then), submitted; a refusal restaged without a
 * type and submitted again.
 */
async function defend(c: Case) {
  const got = await keyedGet(`/api/v1/disputes/${c.disputeId}`);
  const reasons = (got?.body.defense_reasons ?? []) as Reason[];
  if (got?.status !== 200 || reasons.length === 0) return;
  let reason = pick(reasons);
  let docs = documentsFor(reason);
  if (!(await stage(c, reason, docs))) return;
  if (Math.random() < 0.25) {
    counts.restagings++;
    reason = pick(reasons);
    docs = documentsFor(reason);
    if (!(await stage(c, reason, docs))) return;
  }
  const roll = Math.random();
  if (roll < 0.1) arm('supplyDefenseDocument', { status: 500 }, 'supply500');
  else if (roll < 0.16) arm('supplyDefenseDocument', { hang: true }, 'supplyHang');
  else if (roll < 0.26) arm('supplyDefenseDocument', { lost: true }, 'supplyLost');
  else if (roll < 0.36) arm('defendDispute', { status: 500 }, 'defend500');
  else if (roll < 0.42) arm('defendDispute', { hang: true }, 'defendHang');
  else if (roll < 0.54) arm('defendDispute', { lost: true }, 'defendLost');
  else if (roll < 0.68) arm('defendDispute', { status: 422 }, 'defendRefused');
  for (let attempt = 0; attempt < 2; attempt++) {
    counts.submissions++;
    const r = await merchantPost(`/api/v1/disputes/${c.disputeId}/submit`, {}, c);
    if (!r) return;
    if (r.status === 200) {
      counts.submitted++;
      return true;
    }
    if (r.status !== 422 || r.body.error?.code !== 'PROVIDER_REJECTED') return;
    // Refused: restaged without one of the types supplied (when the reason allows), each remaining one new, and sent again.
    counts.refusedThenResubmitted++;
    const dropped = pick(docs).type;
    docs = documentsFor(reason, dropped);
    if (!(await stage(c, reason, docs))) return;
  }
}

async function keyedGet(path: string): Promise<Answer | null> {
  try {
    const r = await fetch(`${stack.baseUrl}${path}`, { headers: { 'x-api-key': stack.apiKey }, signal: AbortSignal.timeout(15_000) });
    return { status: r.status, body: (await r.json().catch(() => ({}))) as Record<string, any> };
  } catch {
    return null;
  }
}

async function accept(c: Case) {
  const roll = Math.random();
  if (roll < 0.15) arm('acceptDispute', { status: 500 }, 'accept500');
  else if (roll < 0.25) arm('acceptDispute', { hang: true }, 'acceptHang');
  else if (roll < 0.4) arm('acceptDispute', { lost: true }, 'acceptLost');
  counts.accepts++;
  const r = await merchantPost(`/api/v1/disputes/${c.disputeId}/accept`, {}, c);
  if (r?.status === 200) counts.accepted++;
}

async function chain() {
  const amount = 20 + Math.floor(Math.random() * 480) + Math.floor(Math.random() * 100) / 100;
  const pay = await merchantPost(
    '/cashier/cashier/payment',
    { payment_method: 'card', amount, currency: 'BRL', country: 'BRA', customer, card },
    null,
  );
  if (pay?.status !== 200 || pay.body.status !== 'success') return;
  counts.payments++;
  const paymentId = pay.body.payment_id as string;
  const held = adyen.payment(paymentReferenceOf(paymentId));
  if (!held) return;
  const d = adyen.openDispute({ paymentPspReference: held.pspReference, reasonCode: pick(REASON_CODES) });
  const c: Case = {
    paymentId,
    disputeId: disputeIdOf(paymentId),
    psp: d.pspReference,
    amountMinor: Math.round(amount * 100),
    notices: [],
    delivered: 0,
    staged: null,
    stagedUnsure: false,
  };
  cases.set(c.psp, c);
  counts.disputes++;
  const item = (code: string) => adyen.disputeItem(c.psp, code);
  const order = Math.random();
  if (order < 0.6) c.notices.push(item('NOTIFICATION_OF_CHARGEBACK'), item('CHARGEBACK'));
  else if (order < 0.72) c.notices.push(item('CHARGEBACK'), item('NOTIFICATION_OF_CHARGEBACK'));
  else if (order < 0.8) c.notices.push(item('NOTIFICATION_OF_CHARGEBACK'));
  else if (order < 0.85) {
    // A reversal told before its chargeback and its announcement: the case opens won (the merchant's actions refused).
    c.notices.push(item('CHARGEBACK_REVERSED'), item('CHARGEBACK'), item('NOTIFICATION_OF_CHARGEBACK'));
    counts.reversed++;
  } else {
    // Adyen's retries: each notice twice.
    const [noc, cb] = [item('NOTIFICATION_OF_CHARGEBACK'), item('CHARGEBACK')];
    c.notices.push(noc, noc, cb, cb);
  }
  if (!(await deliver(c))) return;
  const plan = Math.random();
  let defended = false;
  if (plan < 0.55) defended = (await defend(c)) === true;
  else if (plan < 0.8) {
    await accept(c);
    return;
  }
  // The issuer's decision: a defended case reversed now and then, sometimes then lost to a second chargeback; an
  // unanswered one lost, or withdrawn by the issuer.
  const outcome = Math.random();
  if (defended && outcome < 0.45) {
    c.notices.push(item('CHARGEBACK_REVERSED'));
    counts.reversed++;
    if (Math.random() < 0.3) {
      c.notices.push(item('SECOND_CHARGEBACK'));
      counts.secondChargebacks++;
    }
  } else if (!defended && plan >= 0.8 && outcome < 0.3) {
    c.notices.push(item('SECOND_CHARGEBACK'));
    counts.secondChargebacks++;
  } else if (!defended && plan >= 0.8 && outcome < 0.45) {
    c.notices.push(item('CHARGEBACK_REVERSED'));
    counts.reversed++;
  }
  await deliver(c);
}

/** Load for a phase: 6 runners of dispute chains until the phase ends or the stack dies. */
async function load(phase: number, end: number) {
  const runners = Array.from({ length: 6 }, async () => {
    while (Date.now() < end && stack.alive) await chain().catch((e: unknown) => log(`chain error: ${String(e)}`));
  });
  await Promise.all(runners);
  log(`phase ${phase}: load stopped`);
}

/** Kills the stack when Adyen has carried out a defendDispute whose answer is lost: before the stack commits it. */
async function killAtDefend(phase: number) {
  const seen = adyen.requests.length;
  arm('defendDispute', { lost: true }, 'defendLostAtKill');
  for (let i = 0; i < 4000; i++) {
    if (adyen.requests.slice(seen).some((q) => q.path === '/defendDispute')) {
      log(`phase ${phase}: SIGKILL process group ${stack.pid} with a defendDispute carried out at Adyen and unanswered`);
      return stopStack(stack, 'SIGKILL', log);
    }
    await sleep(2);
  }
  log(`phase ${phase}: no defendDispute in 8 s: SIGKILL process group ${stack.pid} now`);
  return stopStack(stack, 'SIGKILL', log);
}

/**
 * Requests left without an answer: first sent with a new key (a resumed submission must finish, sending nothing twice),
 * then with their own key (a 409 while the request the kill cut short still holds it: kept for the next pass).
 */
async function retryUnanswered() {
  for (const u of unanswered.splice(0)) {
    const isPayment = u.path === '/cashier/cashier/payment';
    if (!u.renewed && !isPayment) {
      u.renewed = true;
      counts.retriedNewKey++;
      const r = await keyedPost(u.path, u.body, randomUUID());
      if (r && r.status === 200 && u.c && u.path.endsWith('/evidence')) u.c.stagedUnsure = true;
    }
    counts.retriedSameKey++;
    const r = await keyedPost(u.path, u.body, u.key);
    if (!r || r.status === 502 || r.status === 503 || (r.status === 409 && r.body.error?.code === 'IDEMPOTENCY_IN_PROGRESS')) {
      unanswered.push(u);
      continue;
    }
  }
}

/** What the case's notices, applied in order, leave: the money's stage (0 to 3), lost or not. */
function expectedMoney(c: Case) {
  let stage = 0;
  let lost = false;
  for (const n of c.notices.slice(0, c.delivered)) {
    if (lost) continue;
    const code = n.eventCode;
    if (code === 'CHARGEBACK' && n.additionalData?.disputeStatus !== 'Accepted') stage = Math.max(stage, 1);
    else if (code === 'CHARGEBACK') [stage, lost] = [Math.max(stage, 1), true];
    else if (code === 'CHARGEBACK_REVERSED' && stage < 2) stage = 2;
    else if (code === 'SECOND_CHARGEBACK') [stage, lost] = [stage === 2 ? 3 : 1, true];
  }
  return { stage, lost, won: stage === 2 && !lost };
}

function check(items: Item[], receiver: Receiver): string[] {
  const v: string[] = [];
  const live = (i: Item) => i.livemode === true || i.mode === 'live';
  const disputes = items.filter((i) => i.entity === 'dispute' && live(i));
  const payments = new Map(items.filter((i) => String(i.PK).startsWith('PAYMENT#') && live(i)).map((p) => [p.payment_id as string, p]));
  const entries = new Map<string, Item[]>();
  for (const l of items.filter((i) => i.entity === 'ledger_entry' && i.mode === 'live'))
    if (l.reason === 'chargeback' || l.reason === 'chargeback_reversal') entries.set(l.object_id, [...(entries.get(l.object_id) ?? []), l]);
  const byPayment = new Map<string, Item[]>();
  for (const d of disputes) byPayment.set(d.payment_id, [...(byPayment.get(d.payment_id) ?? []), d]);
  for (const [paymentId, ds] of byPayment) {
    if (ds.length > 1) v.push(`c: payment ${paymentId} has ${ds.length} disputes`);
    if (![...cases.values()].some((c) => c.paymentId === paymentId)) v.push(`c: ${ds[0]!.dispute_id} is no dispute of the load`);
  }
  for (const c of cases.values()) {
    const held = adyen.dispute(c.psp)!;
    // (a) at Adyen: defended at most once, accepted at most once, never both.
    if (held.defends > 1) v.push(`a: ${c.psp} (${c.disputeId}) got ${held.defends} defendDispute calls`);
    if (held.accepts > 1) v.push(`a: ${c.psp} (${c.disputeId}) got ${held.accepts} acceptDispute calls`);
    if (held.defendedWith && held.accepted) v.push(`a: ${c.psp} (${c.disputeId}) both defended and accepted`);
    const d = byPayment.get(c.paymentId)?.[0];
    if (!d) {
      if (c.delivered > 0) v.push(`c: ${c.disputeId} missing (${c.delivered} notices accepted)`);
      continue;
    }
    // (b) Adyen holds exactly the documents of the staging submitted.
    if (held.defendedWith) {
      const staged = new Map<string, string>(
        ((d.evidence?.documents ?? []) as Array<{ type: string; sha256: string }>).map((x) => [x.type, x.sha256]),
      );
      const atAdyen = new Map([...held.documents].map(([type, x]) => [type, sha256(x.content)]));
      const show = (m: Map<string, string>) =>
        [...m]
          .map(([t, h]) => `${t}:${h.slice(0, 8)}`)
          .sort()
          .join(',');
      if (show(staged) !== show(atAdyen)) v.push(`b: ${c.disputeId} staged {${show(staged)}}, Adyen holds {${show(atAdyen)}}`);
      if (c.staged && !c.stagedUnsure && show(c.staged) !== show(staged))
        v.push(`b: ${c.disputeId} the merchant staged {${show(c.staged)}}, the dispute names {${show(staged)}}`);
      if (d.evidence?.defense_reason !== held.defendedWith)
        v.push(`b: ${c.disputeId} staged reason ${d.evidence?.defense_reason}, defended with ${held.defendedWith}`);
    }
    // (c) the dispute as Adyen and the money see it.
    if (d.last_action?.state === 'pending') v.push(`c: ${c.disputeId} still has a ${d.last_action.action} pending`);
    if (held.defendedWith && !['under_review', 'won', 'lost'].includes(d.status))
      v.push(`c: ${c.disputeId} is ${d.status}, defended at Adyen`);
    if (!held.defendedWith && (d.status === 'under_review' || d.submitted_at))
      v.push(`c: ${c.disputeId} is ${d.status}, not defended at Adyen`);
    if (held.accepted !== (d.status === 'accepted')) v.push(`c: ${c.disputeId} is ${d.status}, accepted at Adyen: ${held.accepted}`);
    const money = expectedMoney(c);
    const p = payments.get(c.paymentId);
    if ((d.status === 'won') !== money.won) v.push(`c: ${c.disputeId} is ${d.status}, its notices leave the money at stage ${money.stage}`);
    if (p?.dispute?.stage !== money.stage)
      v.push(`d: ${c.paymentId} dispute at stage ${p?.dispute?.stage}, its notices say ${money.stage}`);
    if ((p?.dispute?.status === 'won') !== (d.status === 'won'))
      v.push(`c: ${c.disputeId} is ${d.status}, its payment's dispute ${p?.dispute?.status}`);
    if (d.status === 'lost' && !money.lost) v.push(`c: ${c.disputeId} lost, its notices did not end it`);
    // (d) each stage's money moved once.
    const es = entries.get(c.paymentId) ?? [];
    const debits = es.filter((e) => e.reason === 'chargeback');
    const credits = es.filter((e) => e.reason === 'chargeback_reversal');
    const want = { debits: money.stage === 0 ? 0 : money.stage === 3 ? 2 : 1, credits: money.stage >= 2 ? 1 : 0 };
    if (debits.length !== want.debits || credits.length !== want.credits)
      v.push(`d: ${c.paymentId} has ${debits.length} chargeback and ${credits.length} reversal entries, stage ${money.stage}`);
    for (const e of debits) if (Number(e.amount_minor) !== -c.amountMinor) v.push(`d: ${c.paymentId} chargeback of ${e.amount_minor}`);
    for (const e of credits) if (Number(e.amount_minor) !== c.amountMinor) v.push(`d: ${c.paymentId} reversal of ${e.amount_minor}`);
  }
  v.push(...balanceViolations(items, 'd'));
  const delivered = new Set(receiver.received.map((r) => String(r.headers['webhook-id'])));
  for (const e of items.filter((i) => String(i.PK).startsWith('EVENT#') && i.livemode === true))
    if (!delivered.has(e.event_id)) v.push(`e: event ${e.event_id} (${e.type}) never delivered`);
  v.push(...adyen.violations.map((x) => `f: adyen ${x}`));
  for (const c of cases.values())
    if (c.delivered < c.notices.length) v.push(`-: ${c.disputeId} has ${c.notices.length - c.delivered} notices unsent`);
  return v;
}

async function main(): Promise<number> {
  const started = Date.now();
  const stateDir = mkdtempSync(join(tmpdir(), 'disputes-proof-'));
  const port = await freePort();
  adyen = await startFakeAdyen({ hangMs: 4_000 });
  const providers = join(stateDir, 'providers.json');
  writeFileSync(providers, JSON.stringify({ adyen: adyen.adyenConfig({ timeouts: { connect_ms: 1000, total_ms: 2000 } }) }));
  const receiver = await startReceiver();
  const opts = livePayinStackOptions(providers, 10);
  log(`state dir ${stateDir}, port ${port}, kills ${KILLS}, phase ${PHASE_SECONDS} s`);
  stack = await startStack(0, stateDir, port, opts);
  await setNotificationUrl(stack, receiver.url);
  await merchantRepository(stack.db, () => stack.tableName).setRateLimits(
    stack.merchantId,
    { createDirectPayment: 100_000, getDispute: 100_000, stageDisputeEvidence: 100_000, submitDispute: 100_000, acceptDispute: 100_000 },
    new Date(),
  );
  adyen.setNotificationUrl(`${stack.baseUrl}/providers/adyen/notifications`);
  try {
    await underKills({
      kills: KILLS,
      phaseSeconds: PHASE_SECONDS,
      log,
      load: (phase) => load(phase, Date.now() + PHASE_SECONDS * 1000),
      current: () => stack,
      killWithin: [0.4, 0.8],
      kill: async (phase) => {
        counts.kills++;
        if (phase === 0) return killAtDefend(phase);
        log(`phase ${phase}: SIGKILL process group ${stack.pid}`);
        await stopStack(stack, 'SIGKILL', log);
      },
      restart: async (n) => {
        stack = await startStack(n, stateDir, port, opts);
        log(`stack ${n} restarted; ${unanswered.length} keyed requests without an answer so far`);
        for (const c of cases.values()) await deliver(c);
        await retryUnanswered();
      },
    });
    log(`load over: ${adyen.clearFaults()} scripted Adyen faults not met, dropped`);
    const deadline = Date.now() + SETTLE_SECONDS * 1000;
    let violations: string[] = [];
    for (;;) {
      for (const c of cases.values()) await deliver(c);
      await retryUnanswered();
      await sleep(1500);
      violations = check(await scanAll(stack), receiver);
      log(`waiting: ${outstandingSummary(violations)}; ${unanswered.length} keyed requests unanswered`);
      if ((violations.length === 0 && unanswered.length === 0) || Date.now() > deadline) break;
    }
    if (unanswered.length)
      violations.push(`-: ${unanswered.length} keyed requests never answered (${unanswered.map((u) => u.path).join(', ')})`);
    const held = [...cases.values()].map((c) => adyen.dispute(c.psp)!);
    log(`load: ${JSON.stringify(counts)}; faults ${JSON.stringify(faults)}; webhooks received ${receiver.received.length}`);
    const faultTotal = Object.values(faults).reduce((s, n) => s + n, 0);
    const defended = held.filter((d) => d.defendedWith).length;
    const acceptedAtAdyen = held.filter((d) => d.accepted).length;
    log(
      `summary: disputes ${counts.disputes}, submissions ${counts.submissions} (${defended} defended at Adyen), ` +
        `accepts ${counts.accepts} (${acceptedAtAdyen} accepted), faults ${faultTotal}, kills ${counts.kills}, ` +
        `${Math.round((Date.now() - started) / 1000)} s`,
    );
    return verdict(log, violations, stateDir);
  } finally {
    await stopStack(stack, 'SIGTERM', log);
    await receiver.stop();
    await adyen.close();
  }
}

runProof('disputes proof', main);
