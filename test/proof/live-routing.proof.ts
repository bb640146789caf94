/**
 * Routing crash proof (issue 42, DESIGN.md 9.2): `npm run proof:routing` (and part of `npm run proof`).
 *
 * The fake API Pix PSP (`api_pix`) and the fake Efí (`efi`) run in this process; the local live stage runs on them as a
 * child process group with the rule `pix: api_pix, efi`. Load: keyed live PIX payments; the first PSP fails at random
 * (connections refused for a while, a cob call answered 500 twice, hung, or carried out with its answer lost); each
 * code the service shows is paid at the PSP that showed it; some payments are refunded; some abandoned attempts land
 * late at the first PSP and are paid there (a request that was still in flight). The stack is SIGKILLed mid-load
 * PROOF_KILLS times and restarted on the same state dir; keyed creates with no answer are retried with their key.
 * Then the proof waits (bounded) until quiet, reads the table and checks:
 *   (a) no payment keeps money at two PSPs: of its charges paid at either PSP, at most one is not returned in full,
 *       and that one is its current attempt's (payment.provider);
 *   (b) a payment is success exactly when its current attempt's cob is paid with its amount, with one payment credit;
 *   (c) every late success undone: a paid cob of an abandoned attempt is returned in full (a devolução DEVOLVIDO);
 *   (d) every refund of ours went to the PSP that was paid (its devolução at that PSP for that Pix), none elsewhere;
 *   (e) ledger = balance (with the credits still to fold), never negative;
 *   (f) every committed event reached the merchant's receiver;
 *   (g) neither fake saw a request off its schemas; every payment answered 200 or 502 exists.
 * Exits 1 on a violation, 2 when the proof could not run. Knobs: PROOF_KILLS (default 2), PROOF_PHASE_SECONDS
 * (default 4), PROOF_SETTLE_SECONDS (default 150: an abandoned attempt is first read back 60 s after it was left).
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { apiPixConnectors } from '../../shared/adapters/providers/api-pix/api-pix.connector';
import { devolucaoIdOf, txidOf } from '../../shared/adapters/providers/api-pix/api-pix.transformers';
import { parseProvidersConfig } from '../../shared/adapters/providers/providers.config';
import { startFakeEfi, type FakeEfi } from '../support/fake-efi';
import { startFakePsp, type FakePsp } from '../support/fake-psp';
import { startReceiver, type Receiver } from '../support/receiver';
import { merchantRepository } from '../../shared/adapters/dynamodb/merchant.repository';
import { balanceViolations, outstandingSummary } from './balances';
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

const {
  kills: KILLS,
  phaseSeconds: PHASE_SECONDS,
  settleSeconds: SETTLE_SECONDS,
  log,
} = liveProofKnobs('routing', {
  settle: 150,
  minSettle: 75,
  guardExtra: 60,
});
const LOST_INTENT_SECONDS = 10;
const TOKEN = randomBytes(24).toString('base64url');
const EFI_TOKEN = randomBytes(24).toString('base64url');
const customer = { name: 'Ana Silva', email: 'ana@example.com', document: '52998224725' };
const cents = (v: string) => Math.round(Number(v) * 100);

const answered = new Set<string>();
const unanswered: Array<{ key: string; body: { amount: number } }> = [];
const counts = { creates: 0, ok: 0, unavailable: 0, noAnswer: 0, otherAnswers: 0, failedOver: 0, paid: 0, lateLanded: 0, refunds: 0 };
let stack: Stack;
let psp: FakePsp;
let efi: FakeEfi;

const post = (path: string, body: unknown, headers: Record<string, string> = {}) => postAs(stack, path, body, headers);

/** The PSP and txid of the attempt a payment's answer shows (its last attempt; attempts are numbered by calls made). */
function shownAt(id: string, attempts: Array<{ provider: string; outcome: string }>) {
  const called = attempts.filter((a) => a.outcome !== 'skipped');
  const last = called[called.length - 1];
  return last ? { fake: last.provider === 'efi' ? efi : psp, txid: txidOf(id, called.length) } : null;
}

/** The first request of an abandoned attempt lands after all (it was queued at the PSP), and someone pays that code. */
async function landLate(id: string, amount: number) {
  const late = apiPixConnectors(parseProvidersConfig({ api_pix: psp.apiPixConfig(TOKEN) }, 'proof').api_pix!);
  try {
    const now = new Date().toISOString();
    await late.pix.createCharge({
      paymentId: id,
      reference: txidOf(id, 1),
      amountMinor: Math.round(amount * 100),
      merchantName: 'Loja',
      createdAt: now,
      expiresAt: new Date(Date.now() + 600_000).toISOString(),
    });
    await psp.pay(txidOf(id, 1), { callback: Math.random() < 0.5 });
    counts.lateLanded++;
  } catch {
    // the PSP refusing connections right now: this one did not land
  } finally {
    late.client.close();
  }
}

async function settleAnswer(r: { status: number; body: Record<string, any> }, amount: number, lateCandidate: boolean) {
  const id = r.body.payment_id as string | undefined;
  if (r.status === 502 && id) {
    answered.add(id);
    counts.unavailable++;
    return;
  }
  if (r.status !== 200 || !id) return;
  answered.add(id);
  counts.ok++;
  const attempts = (r.body.provider_attempts ?? []) as Array<{ provider: string; outcome: string; failure_code?: string }>;
  if (attempts.some((a) => a.outcome === 'failed')) counts.failedOver++;
  if (lateCandidate && attempts.some((a) => a.provider === 'api_pix' && a.failure_code === 'provider_no_answer'))
    await landLate(id, amount);
  const shown = shownAt(id, attempts);
  if (!shown || Math.random() < 0.1) return;
  try {
    await shown.fake.pay(shown.txid, { callback: Math.random() < 0.7 });
    counts.paid++;
  } catch {
    return;
  }
  if (Math.random() < 0.3) {
    await sleep(300);
    await post(`/api/v1/payments/${id}/refunds`, { amount: 1 }).then(
      () => counts.refunds++,
      () => undefined,
    );
  }
}

async function chain() {
  const key = randomUUID();
  const amount = 10 + Math.floor(Math.random() * 90) + Math.floor(Math.random() * 100) / 100;
  const roll = Math.random();
  if (roll < 0.15) psp.failNext('putCob', { status: 500 }, 2);
  else if (roll < 0.2) psp.failNext('putCob', { hang: true });
  else if (roll < 0.27) psp.failNext('putCob', { lost: true });
  const body = { payment_method: 'pix', amount, currency: 'BRL', country: 'BRA', customer };
  counts.creates++;
  let r: { status: number; body: Record<string, any> };
  try {
    r = await post('/cashier/cashier/payment', body, { 'x-idempotency-key': key });
  } catch {
    counts.noAnswer++;
    unanswered.push({ key, body });
    return;
  }
  if (r.status !== 200 && r.status !== 502) counts.otherAnswers++;
  await settleAnswer(r, amount, roll < 0.2 && Math.random() < 0.5);
}

async function load(phase: number) {
  const end = Date.now() + PHASE_SECONDS * 1300;
  // The first PSP refusing connections for a while, now and then.
  const outages = (async () => {
    while (Date.now() < end && stack.alive) {
      await sleep(800 + Math.random() * 1500);
      await psp.outage('refuse');
      await sleep(500 + Math.random() * 1000);
      await psp.outage(null);
    }
  })();
  const runners = Array.from({ length: 5 }, async () => {
    while (Date.now() < end && stack.alive) await chain().catch(() => undefined);
  });
  await Promise.all([...runners, outages]);
  await psp.outage(null);
  log(`phase ${phase}: load stopped`);
}

/** Every paid cob of a payment at either PSP (its attempts 1 to 3), with whether it was returned in full. */
function paidCobs(paymentId: string, amountMinor: number) {
  const out: Array<{ provider: string; txid: string; exact: boolean; returned: boolean; e2e: string }> = [];
  for (const [provider, fake] of [
    ['api_pix', psp],
    ['efi', efi],
  ] as const) {
    for (let attempt = 1; attempt <= 3; attempt++) {
      const txid = txidOf(paymentId, attempt);
      const cob = fake.cob(txid);
      for (const pix of cob?.pix ?? []) {
        const back = (pix.devolucoes ?? []).filter((d) => d.status === 'DEVOLVIDO').reduce((s, d) => s + cents(d.valor), 0);
        out.push({ provider, txid, exact: cents(pix.valor) === amountMinor, returned: back >= cents(pix.valor), e2e: pix.endToEndId });
      }
    }
  }
  return out;
}

function check(items: Item[], receiver: Receiver): string[] {
  const v: string[] = [];
  const payments = items.filter((i) => String(i.PK).startsWith('PAYMENT#') && i.livemode === true);
  const refunds = items.filter((i) => String(i.PK).startsWith('REFUND#') && i.livemode === true);
  const credits = new Map<string, number>();
  for (const l of items.filter((i) => i.entity === 'ledger_entry' && i.mode === 'live'))
    if (l.reason === 'payment') credits.set(l.object_id, (credits.get(l.object_id) ?? 0) + 1);
  for (const p of payments) {
    const paid = paidCobs(p.payment_id, Number(p.amount_minor));
    const kept = paid.filter((c) => !c.returned);
    if (kept.length > 1) v.push(`a: ${p.payment_id} keeps money at ${kept.map((c) => `${c.provider}/${c.txid}`).join(' and ')}`);
    const current = p.provider as { name: string; reference: string } | undefined;
    const keptElsewhere = kept.filter((c) => c.provider !== current?.name || c.txid !== current?.reference);
    if (keptElsewhere.length) v.push(`c: ${p.payment_id} late success not returned at ${keptElsewhere.map((c) => c.provider).join(', ')}`);
    const paidHere = kept.some((c) => c.provider === current?.name && c.txid === current?.reference && c.exact);
    const success = p.status === 'success' || p.status === 'refunded';
    if (paidHere !== success) v.push(`b: ${p.payment_id} status=${p.status}, paid at its attempt: ${paidHere}`);
    if (success && credits.get(p.payment_id) !== 1) v.push(`b: ${p.payment_id} has ${credits.get(p.payment_id) ?? 0} payment credits`);
  }
  for (const r of refunds) {
    const p = payments.find((x) => x.payment_id === r.payment_id);
    const e2e = p?.provider?.details?.end_to_end_id;
    const id = devolucaoIdOf(r.refund_id);
    const at = (fake: FakePsp | FakeEfi) =>
      fake
        .cob(p?.provider?.reference ?? '')
        ?.pix?.find((x) => x.endToEndId === e2e)
        ?.devolucoes?.some((d) => d.id === id);
    const paidAt = p?.provider?.name === 'efi' ? efi : psp;
    const other = p?.provider?.name === 'efi' ? psp : efi;
    if (r.status !== 'failed' && !at(paidAt)) v.push(`d: refund ${r.refund_id} (${r.status}) not at ${p?.provider?.name}`);
    if (at(other)) v.push(`d: refund ${r.refund_id} sent to the PSP that was not paid`);
  }
  v.push(...balanceViolations(items, 'e'));
  const delivered = new Set(receiver.received.map((r) => String(r.headers['webhook-id'])));
  for (const e of items.filter((i) => String(i.PK).startsWith('EVENT#') && i.livemode === true))
    if (!delivered.has(e.event_id)) v.push(`f: event ${e.event_id} (${e.type}) never delivered`);
  v.push(...psp.violations.map((x) => `g: api_pix ${x}`), ...efi.violations.map((x) => `g: efi ${x}`));
  const ids = new Set(payments.map((p) => p.payment_id));
  for (const id of answered) if (!ids.has(id)) v.push(`g: ${id} answered but missing`);
  return v;
}

async function main(): Promise<number> {
  const stateDir = mkdtempSync(join(tmpdir(), 'routing-proof-'));
  const port = await freePort();
  [psp, efi] = await Promise.all([startFakePsp({ hangMs: 4_000 }), startFakeEfi({ hangMs: 4_000 })]);
  psp.setDevolucaoOutcome('DEVOLVIDO');
  efi.setDevolucaoOutcome('DEVOLVIDO');
  const timeouts = { connect_ms: 1000, total_ms: 2000 };
  const providers = join(stateDir, 'providers.json');
  writeFileSync(
    providers,
    JSON.stringify({
      api_pix: { ...psp.apiPixConfig(TOKEN), timeouts },
      efi: { ...efi.efiConfig(EFI_TOKEN), timeouts },
      routing: { pix: { '*': { providers: ['api_pix', 'efi'] } } },
    }),
  );
  const receiver = await startReceiver();
  const opts = livePayinStackOptions(providers, LOST_INTENT_SECONDS);
  log(`state dir ${stateDir}, port ${port}, kills ${KILLS}, phase ${PHASE_SECONDS} s`);
  stack = await startStack(0, stateDir, port, opts);
  await setNotificationUrl(stack, receiver.url);
  // Failovers answer fast: the load would meet the routes' default 100 a minute and prove little; a merchant's limits
  // set by ops (as `merchants limits` does) let every chain through.
  await merchantRepository(stack.db, () => stack.tableName).setRateLimits(
    stack.merchantId,
    { createDirectPayment: 100_000, createRefund: 100_000 },
    new Date(),
  );
  const ops = apiPixConnectors(parseProvidersConfig({ api_pix: psp.apiPixConfig(TOKEN) }, 'proof').api_pix!);
  await ops.webhooks.register(`${stack.baseUrl}/providers/api-pix/${TOKEN}`);
  ops.client.close();
  efi.setWebhookUrl(`${stack.baseUrl}/providers/efi/${EFI_TOKEN}`);
  try {
    await underKills({
      kills: KILLS,
      phaseSeconds: PHASE_SECONDS,
      log,
      current: () => stack,
      load,
      restart: async (n) => {
        stack = await startStack(n, stateDir, port, opts);
        log(`stack ${n} restarted; ${unanswered.length} keyed creates without an answer so far`);
      },
    });
    for (const u of unanswered.splice(0)) {
      const r = await post(
        '/cashier/cashier/payment',
        { payment_method: 'pix', currency: 'BRL', country: 'BRA', customer, ...u.body },
        {
          'x-idempotency-key': u.key,
        },
      ).catch(() => null);
      if (r) await settleAnswer(r, u.body.amount, false);
    }
    log(`load over: ${psp.clearFaults()} scripted PSP faults not met, dropped`);
    const deadline = Date.now() + SETTLE_SECONDS * 1000;
    let violations: string[] = [];
    for (;;) {
      await sleep(3000);
      violations = check(await scanAll(stack), receiver);
      log(`waiting: ${outstandingSummary(violations)}`);
      if (violations.length === 0 || Date.now() > deadline) break;
    }
    log(`load: ${JSON.stringify(counts)}; webhooks received ${receiver.received.length}`);
    return verdict(log, violations, stateDir);
  } finally {
    await stopStack(stack, 'SIGTERM', log);
    await receiver.stop();
    await Promise.all([psp.close(), efi.close()]);
  }
}

runProof('routing proof', main);
