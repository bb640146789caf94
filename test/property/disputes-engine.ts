/**
 * Disputes on the real local engines (DESIGN.md 9.4): random sequences of Adyen's dispute notices for a few live card
 * payments, over real HTTP into the service on DynamoDB Local, signed by the fake Adyen: NOTIFICATION_OF_CHARGEBACK,
 * CHARGEBACK (without disputeStatus, Undefended, Pending, Lost, Accepted), CHARGEBACK_REVERSED, SECOND_CHARGEBACK,
 * PREARBITRATION_WON / LOST, DISPUTE_DEFENSE_PERIOD_ENDED and REQUEST_FOR_INFORMATION (logged only), repeated, resent
 * byte for byte (Adyen's retry), batched, out of order, some sent at once for the same payment (Promise.all), with the
 * merchant's POST /api/v1/disputes/{id}/accept among them. Each run is a new merchant with 2 or 3 paid card payments.
 *
 * After each sequence, for every payment:
 *   - its money dispute (stage, status) is one the notices sent can reach: an independent model of the stages
 *     (withdrawn 1, returned 2, withdrawn again 3, lost final) and of the notification log (a key, pspReference +
 *     eventCode, applies once when its notices come one after another; sent at once, either may apply), over every
 *     order the concurrent ones could commit in;
 *   - its ledger entries are its credit and exactly one movement per stage reached (chargeback, chargeback_reversal,
 *     chargeback), the live balance equals the ledger's sum, and both equal the model's amount;
 *   - exactly one DISPUTE# item (a Scan of the table) exists when a notice opened a case, none otherwise, and the
 *     listing (GET /api/v1/disputes, per status too) shows the same;
 *   - the case agrees with the money: won iff the money is won; accepted iff an accept was answered 200 (and the money
 *     is not won); lost when the money is lost and it was not accepted; needs_response while open; closed_at iff closed;
 *     funds_withdrawn iff the money is out (stage 1 or 3);
 *   - its events (GET /api/v1/events?object_id=): one dispute.created, dispute.won iff returned, dispute.lost iff the
 *     case is lost (at most one when accepted: a loss told while the accept was at Adyen); one payment.disputed,
 *     payment.dispute_won iff returned, payment.dispute_lost iff lost.
 * No answer is a 500: a notice is answered 200 `[accepted]` (or 503 busy, then resent as Adyen does); an accept 200, or
 * 400 DISPUTE_NOT_OPEN (closed), 404 (no case yet), 422 PROVIDER_REJECTED (Adyen's dispute ended) or 503 (busy).
 *
 * With `conflicts`, the service reaches DynamoDB Local through the conflict proxy (DynamoDB's TransactionConflict,
 * which DynamoDB Local never shows), and the fold of pending credits runs beside the sequence: the notices' own
 * transactions, the merchant's and the fold's meet on the payment, the case and the balance item; the retries
 * (transact.ts, commitDisputeStep) must still converge to the same invariants.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import fc from 'fast-check';
import { documentClient } from '../../shared/adapters/aws-clients';
import type { Principal } from '../../shared/application/access';
import type { NotificationItem } from '../../shared/adapters/providers/adyen/adyen.schemas';
import { paymentReferenceOf } from '../../shared/adapters/providers/adyen/adyen.transformers';
import { config } from '../../shared/config';
import { disputeIdOf, DISPUTE_CASE_STATUSES, type DisputeCase } from '../../shared/domain/disputes/dispute-case';
import type { Payment } from '../../shared/domain/payments/payment';
import { paymentDeps } from '../../shared/wiring';
import { startFakeAdyen, type FakeAdyen, type FakeDispute } from '../support/fake-adyen';
import { balanceMinorOf } from '../support/live-stage';
import { customer, ledger } from '../support/payments';
import { startTestStack, type TestStack } from '../support/test-stack';

// ---------------------------------------------------------------------------------------------------------------
// The sequences
// ---------------------------------------------------------------------------------------------------------------

export const EVENT_CODES = [
  'NOTIFICATION_OF_CHARGEBACK',
  'CHARGEBACK',
  'CHARGEBACK_REVERSED',
  'SECOND_CHARGEBACK',
  'PREARBITRATION_WON',
  'PREARBITRATION_LOST',
  'DISPUTE_DEFENSE_PERIOD_ENDED',
  'REQUEST_FOR_INFORMATION',
] as const;
type EventCode = (typeof EVENT_CODES)[number];
/** How often each code is drawn: lost is final, so the codes that lose are drawn less (else most runs end there early). */
const CODE_WEIGHTS: ReadonlyArray<readonly [EventCode, number]> = [
  ['NOTIFICATION_OF_CHARGEBACK', 2],
  ['CHARGEBACK', 4],
  ['CHARGEBACK_REVERSED', 2],
  ['SECOND_CHARGEBACK', 1],
  ['PREARBITRATION_WON', 1],
  ['PREARBITRATION_LOST', 1],
  ['DISPUTE_DEFENSE_PERIOD_ENDED', 1],
  ['REQUEST_FOR_INFORMATION', 1],
];
/** A CHARGEBACK's disputeStatus: mostly absent (Adyen omits it for Brazil), else one Adyen sends (Lost, Accepted: lost). */
const chargebackStatus = fc.oneof(
  { weight: 3, arbitrary: fc.constant(undefined) },
  { weight: 1, arbitrary: fc.constantFrom('Undefended', 'Pending') },
  { weight: 1, arbitrary: fc.constantFrom('Lost', 'Accepted') },
);

interface Notice {
  readonly p: number;
  readonly code: EventCode;
  readonly status?: string;
}
type Act = { readonly k: 'notice'; readonly n: Notice } | { readonly k: 'accept'; readonly p: number };
export type Step =
  /** One notice, alone in its notification. */
  | { readonly k: 'one'; readonly act: Act }
  /** Several items in one notification (applied in order, in one request). */
  | { readonly k: 'batch'; readonly notices: readonly Notice[] }
  /** An earlier notification again, byte for byte (Adyen's retry): `back` counts from the last sent. */
  | { readonly k: 'resend'; readonly back: number }
  /** Notices and accepts at once (Promise.all), each after its delay (ms). */
  | { readonly k: 'together'; readonly acts: readonly Act[]; readonly delays: readonly number[] };

const payment = fc.nat({ max: 2 });
const notice: fc.Arbitrary<Notice> = fc
  .record({
    p: payment,
    code: fc.oneof(...CODE_WEIGHTS.map(([c, weight]) => ({ weight, arbitrary: fc.constant(c) }))),
    status: chargebackStatus,
  })
  .map(({ p, code, status }) => ({ p, code, ...(code === 'CHARGEBACK' && status ? { status } : {}) }));
const act: fc.Arbitrary<Act> = fc.oneof(
  { weight: 5, arbitrary: notice.map((n) => ({ k: 'notice' as const, n })) },
  { weight: 1, arbitrary: payment.map((p) => ({ k: 'accept' as const, p })) },
);
/** Acts at once, mostly on one payment (where they meet): 2 to 4, with their delays. */
const together: fc.Arbitrary<Step> = fc
  .tuple(payment, fc.array(fc.tuple(act, fc.nat({ max: 4 }), fc.boolean()), { minLength: 2, maxLength: 4 }))
  .map(([p, xs]) => ({
    k: 'together' as const,
    // Most go to the group's payment, some elsewhere.
    acts: xs.map(([a, , same]) => (same ? (a.k === 'notice' ? { ...a, n: { ...a.n, p } } : { ...a, p }) : a)),
    delays: xs.map(([, d]) => d),
  }));

export const steps = (maxLength: number): fc.Arbitrary<Step[]> =>
  fc.array(
    fc.oneof(
      { weight: 5, arbitrary: act.map((a) => ({ k: 'one' as const, act: a })) },
      { weight: 1, arbitrary: fc.array(notice, { minLength: 2, maxLength: 3 }).map((notices) => ({ k: 'batch' as const, notices })) },
      { weight: 1, arbitrary: fc.nat({ max: 3 }).map((back) => ({ k: 'resend' as const, back })) },
      { weight: 3, arbitrary: together },
    ),
    { minLength: 3, maxLength },
  );

export const runArbitrary = (maxSteps: number) =>
  fc.record({
    // 2 or 3 payments, in reais; each disputed for all of it or a part (the same amount in every notice of its case).
    amounts: fc.array(fc.integer({ min: 10, max: 900 }), { minLength: 2, maxLength: 3 }),
    disputedPercent: fc.array(fc.constantFrom(100, 100, 60, 25), { minLength: 3, maxLength: 3 }),
    steps: steps(maxSteps),
  });
export type RunInput = ReturnType<typeof runArbitrary> extends fc.Arbitrary<infer T> ? T : never;

/** Run first by both files (fast-check's example): notices of one payment at once, and an accept meeting notices. */
export const SEEDED: RunInput = {
  amounts: [120, 45],
  disputedPercent: [100, 60, 100],
  steps: [
    { k: 'one', act: { k: 'notice', n: { p: 0, code: 'NOTIFICATION_OF_CHARGEBACK' } } },
    {
      k: 'together',
      acts: [
        { k: 'notice', n: { p: 0, code: 'CHARGEBACK' } },
        { k: 'notice', n: { p: 0, code: 'CHARGEBACK', status: 'Undefended' } },
        { k: 'notice', n: { p: 0, code: 'CHARGEBACK_REVERSED' } },
        { k: 'notice', n: { p: 1, code: 'CHARGEBACK' } },
      ],
      delays: [0, 0, 1, 0],
    },
    {
      k: 'together',
      acts: [
        { k: 'accept', p: 1 },
        { k: 'notice', n: { p: 1, code: 'DISPUTE_DEFENSE_PERIOD_ENDED' } },
        { k: 'notice', n: { p: 0, code: 'SECOND_CHARGEBACK' } },
      ],
      delays: [0, 1, 0],
    },
    { k: 'resend', back: 1 },
    {
      k: 'batch',
      notices: [
        { p: 1, code: 'PREARBITRATION_WON' },
        { p: 1, code: 'CHARGEBACK', status: 'Lost' },
      ],
    },
  ],
};

// ---------------------------------------------------------------------------------------------------------------
// The model: money stages and the notification log, over every order the concurrent notices may commit in
// ---------------------------------------------------------------------------------------------------------------

type Signal = 'notified' | 'withdrawn' | 'won' | 'lost';
export interface Money {
  readonly stage: 0 | 1 | 2 | 3;
  readonly status: 'open' | 'won' | 'lost';
}

/** Adyen's event codes in our words (written here again: the model does not borrow the parser it checks). */
export function signalOf(code: string, disputeStatus: string | undefined): Signal | null {
  if (code === 'NOTIFICATION_OF_CHARGEBACK' || code === 'DISPUTE_DEFENSE_PERIOD_ENDED') return 'notified';
  if (code === 'CHARGEBACK') return disputeStatus === 'Lost' || disputeStatus === 'Accepted' ? 'lost' : 'withdrawn';
  if (code === 'CHARGEBACK_REVERSED' || code === 'PREARBITRATION_WON') return 'won';
  if (code === 'SECOND_CHARGEBACK' || code === 'PREARBITRATION_LOST') return 'lost';
  return null;
}

/** The stages: withdrawn (1), returned (2), withdrawn again (3); lost is final; a notice only announces (0). */
export function moneyAfter(m: Money | null, s: Signal | null): Money | null {
  if (s === null || m?.status === 'lost') return m;
  const stage = m?.stage ?? 0;
  switch (s) {
    case 'notified':
      return m ?? { stage: 0, status: 'open' };
    case 'withdrawn':
      return stage >= 1 ? m : { stage: 1, status: 'open' };
    case 'won':
      return stage >= 2 ? m : { stage: 2, status: 'won' };
    case 'lost':
      return { stage: stage === 2 ? 3 : 1, status: 'lost' };
  }
}

/** What each stage moved, in order: the ledger's dispute entries of a payment at that stage. */
export const movementsOf = (m: Money | null, amountMinor: number): Array<[string, number]> =>
  (
    [
      ['chargeback', -amountMinor],
      ['chargeback_reversal', amountMinor],
      ['chargeback', -amountMinor],
    ] as Array<[string, number]>
  ).slice(0, m?.stage ?? 0);

interface Sent {
  readonly key: string;
  readonly signal: Signal | null;
}
interface ModelState {
  readonly money: Money | null;
  readonly done: ReadonlySet<string>;
}
const stateKey = (s: ModelState) => JSON.stringify([s.money, [...s.done].sort()]);
const dedupe = (xs: ModelState[]) => [...new Map(xs.map((s) => [stateKey(s), s])).values()];

/** One notification's items, in order: a key the log finished before is a duplicate. */
function sequential(states: readonly ModelState[], items: readonly Sent[]): ModelState[] {
  return dedupe(
    states.map((s) => {
      let { money } = s;
      const done = new Set(s.done);
      for (const i of items) {
        if (done.has(i.key)) continue;
        money = moneyAfter(money, i.signal);
        done.add(i.key);
      }
      return { money, done };
    }),
  );
}

function permutations<T>(xs: readonly T[]): T[][] {
  if (xs.length <= 1) return [[...xs]];
  return xs.flatMap((x, i) => permutations([...xs.slice(0, i), ...xs.slice(i + 1)]).map((rest) => [x, ...rest]));
}

/**
 * Notifications sent at once: they commit in some order; a key finished before them is a duplicate, and of two with
 * the same key among them the later may find the first finished (a duplicate) or not (both decided: the second then
 * changes nothing or what its own signal says).
 */
function concurrent(states: readonly ModelState[], items: readonly Sent[]): ModelState[] {
  const out: ModelState[] = [];
  for (const s of states) {
    for (const order of permutations(items)) {
      let branches: Array<{ money: Money | null; seen: Set<string> }> = [{ money: s.money, seen: new Set() }];
      for (const i of order) {
        if (s.done.has(i.key)) continue;
        branches = branches.flatMap((b) => {
          const applied = { money: moneyAfter(b.money, i.signal), seen: new Set([...b.seen, i.key]) };
          return b.seen.has(i.key) ? [b, applied] : [applied];
        });
      }
      for (const b of branches) out.push({ money: b.money, done: new Set([...s.done, ...items.map((i) => i.key)]) });
    }
  }
  return dedupe(out);
}

// ---------------------------------------------------------------------------------------------------------------
// The run
// ---------------------------------------------------------------------------------------------------------------

interface Paid {
  readonly id: string;
  readonly amountMinor: number;
  readonly disputedMinor: number;
  readonly dispute: FakeDispute;
  /** The model's states (the set of what may be stored now). */
  states: ModelState[];
  /** Some accept was answered 200. */
  accepted: boolean;
  concurrent: boolean;
}

export interface Figures {
  runs: number;
  steps: number;
  notices: number;
  accepts: Record<string, number>;
  /** Notices answered other than 200 and sent again (503 busy). */
  resent: number;
  concurrentGroups: number;
  /** Final money states across runs, e.g. `lost@3`. */
  outcomes: Record<string, number>;
  caseStatuses: Record<string, number>;
}

export interface EngineRig {
  readonly stack: TestStack;
  readonly adyen: FakeAdyen;
  readonly figures: Figures;
  stop(): Promise<void>;
}

/** The live stage (Adyen only: the fake) on a stack of its own, with the fold of pending credits running beside it. */
export async function startEngineRig(opts: { conflicts?: { latencyMs: number } } = {}): Promise<EngineRig> {
  const adyen = await startFakeAdyen();
  const file = join(mkdtempSync(join(tmpdir(), 'providers-')), 'providers.json');
  writeFileSync(file, JSON.stringify({ adyen: adyen.adyenConfig() }));
  Object.assign(process.env, { STAGE: 'live', PROVIDERS_FILE: file });
  const stack = await startTestStack({ streams: true, ...(opts.conflicts ? { conflicts: opts.conflicts } : {}) });
  adyen.setNotificationUrl(`${stack.baseUrl}/providers/adyen/notifications`);
  return {
    stack,
    adyen,
    figures: { runs: 0, steps: 0, notices: 0, accepts: {}, resent: 0, concurrentGroups: 0, outcomes: {}, caseStatuses: {} },
    async stop() {
      try {
        await stack.stop();
      } finally {
        await adyen.close();
        process.env.STAGE = 'sandbox';
        delete process.env.PROVIDERS_FILE;
      }
    },
  };
}

const year = String(new Date().getUTCFullYear() + 3);
const card = { number: '4111111145551142', holder_name: 'ANA SILVA', cvv: '737', expiry_month: '03', expiry_year: year };
const count = (r: Record<string, number>, k: string) => (r[k] = (r[k] ?? 0) + 1);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Every case item (PK DISPUTE#…, SK DISPUTE) of the merchant in the table: a Scan, so a stray one is seen too. */
async function caseItems(merchantId: string): Promise<DisputeCase[]> {
  const out: DisputeCase[] = [];
  let ExclusiveStartKey: Record<string, unknown> | undefined;
  do {
    const r = await documentClient().send(
      new ScanCommand({
        TableName: config.tableName,
        FilterExpression: 'begins_with(PK, :pk) AND SK = :sk AND merchant_id = :m',
        ExpressionAttributeValues: { ':pk': 'DISPUTE#', ':sk': 'DISPUTE', ':m': merchantId },
        ConsistentRead: true,
        ExclusiveStartKey,
      }),
    );
    out.push(...((r.Items ?? []) as DisputeCase[]));
    ExclusiveStartKey = r.LastEvaluatedKey;
  } while (ExclusiveStartKey);
  return out;
}

/** A new merchant with a live key: its principal (for a use case called directly) and `call`, its API over HTTP. */
export async function liveMerchant(rig: EngineRig) {
  const { stack } = rig;
  const created = await stack.admin.createMerchant({ name: 'Loja Disputas Engine' });
  const merchantId = created.merchant.merchant_id;
  const key = await stack.admin.createKey(merchantId, 'live');
  const principal: Principal = { merchant: created.merchant, key: key.key, mode: 'live', livemode: true };
  const call = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
    stack.request(path, {
      method,
      apiKey: key.secret,
      headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  return { merchantId, apiKey: key.secret, principal, call };
}

/** A live card payment paid at the fake Adyen (amount in reais): its id and the pspReference its disputes name. */
export async function paidCard(rig: EngineRig, call: Awaited<ReturnType<typeof liveMerchant>>['call'], amount: number) {
  const r = await call('POST', '/cashier/cashier/payment', {
    payment_method: 'card',
    amount,
    currency: 'BRL',
    country: 'BRA',
    customer,
    card,
  });
  if (r.body?.status !== 'success') throw new Error(`card payment not paid: ${r.status} ${r.text}`);
  const id = r.body.payment_id as string;
  return { id, psp: rig.adyen.payment(paymentReferenceOf(id))!.pspReference };
}

/** Runs one sequence for a new merchant and checks everything; throws naming every invariant it broke. */
export async function runDisputeSequence(rig: EngineRig, input: RunInput): Promise<void> {
  const { stack, adyen, figures } = rig;
  const { merchantId, apiKey, call } = await liveMerchant(rig);
  const problems: string[] = [];

  // The payments, each paid by card at the fake Adyen, and its dispute opened there (notices name it).
  const paid: Paid[] = [];
  for (const [i, amount] of input.amounts.entries()) {
    const { id, psp } = await paidCard(rig, call, amount);
    const amountMinor = amount * 100;
    paid.push({
      id,
      amountMinor,
      disputedMinor: Math.max(1, Math.floor((amountMinor * input.disputedPercent[i]!) / 100)),
      dispute: adyen.openDispute({ paymentPspReference: psp, reasonCode: i % 2 ? '4853' : '10.4' }),
      states: [{ money: null, done: new Set() }],
      accepted: false,
      concurrent: false,
    });
  }
  const of = (p: number) => paid[p % paid.length]!;

  /** A notice as Adyen would build it now (an accepted dispute's CHARGEBACK says Accepted unless told otherwise). */
  const build = (n: Notice): { item: NotificationItem; paid: Paid; sent: Sent } => {
    const x = of(n.p);
    const item = adyen.disputeItem(x.dispute.pspReference, n.code, {
      amount: { currency: 'BRL', value: x.disputedMinor },
      ...(n.status ? { additionalData: { disputeStatus: n.status } } : {}),
    });
    return {
      item,
      paid: x,
      sent: { key: `${item.pspReference}:${item.eventCode}`, signal: signalOf(item.eventCode, item.additionalData?.disputeStatus) },
    };
  };

  const history: NotificationItem[][] = [];
  /** Sends one notification until it is acknowledged (Adyen resends what is not): 503 busy is resent, anything else is wrong. */
  const notify = async (items: NotificationItem[]) => {
    history.push(items);
    figures.notices += items.length;
    for (let attempt = 1; ; attempt++) {
      const r = await adyen.notify(items);
      if (r.status === 200 && r.body === '[accepted]') return;
      if (r.status !== 503 || attempt >= 20) {
        problems.push(`notification ${items.map((i) => i.eventCode).join(',')} answered ${r.status} ${r.body}`);
        return;
      }
      figures.resent++;
      await sleep(20 * attempt);
    }
  };
  /** What an accept may answer besides 200: no case yet, closed, Adyen's refusal (its dispute ended), busy. */
  const ACCEPT_REFUSALS: Record<number, string> = {
    400: 'DISPUTE_NOT_OPEN',
    404: 'DISPUTE_NOT_FOUND',
    422: 'PROVIDER_REJECTED',
    503: 'BUSY_RETRY_SAME_KEY',
  };
  const accept = async (p: number) => {
    const x = of(p);
    const r = await call('POST', `/api/v1/disputes/${disputeIdOf(x.id)}/accept`, undefined, { 'x-idempotency-key': randomUUID() });
    count(figures.accepts, String(r.status));
    if (r.status !== 200 && r.body?.error?.code !== ACCEPT_REFUSALS[r.status])
      problems.push(`accept of ${x.id} answered ${r.status} ${r.text}`);
    if (r.status === 200) {
      x.accepted = true;
      // Won meanwhile (a reversal committed during the accept): it stays won.
      if (r.body.status !== 'accepted' && r.body.status !== 'won')
        problems.push(`accept of ${x.id} answered 200 with status ${r.body.status}`);
    }
  };

  for (const step of input.steps) {
    figures.steps++;
    if (step.k === 'one' && step.act.k === 'accept') await accept(step.act.p);
    else if (step.k === 'one' || step.k === 'batch') {
      const built = (step.k === 'one' ? [(step.act as { n: Notice }).n] : step.notices).map(build);
      await notify(built.map((b) => b.item));
      for (const x of paid) {
        const mine = built.filter((b) => b.paid === x).map((b) => b.sent);
        if (mine.length) x.states = sequential(x.states, mine);
      }
    } else if (step.k === 'resend') {
      const items = history[history.length - 1 - (step.back % Math.max(1, history.length))];
      if (!items) continue;
      await notify(items);
      for (const x of paid) {
        const mine = items
          .filter((i) => i.pspReference === x.dispute.pspReference)
          .map((i) => ({ key: `${i.pspReference}:${i.eventCode}`, signal: signalOf(i.eventCode, i.additionalData?.disputeStatus) }));
        if (mine.length) x.states = sequential(x.states, mine);
      }
    } else {
      figures.concurrentGroups++;
      // Every notice is built before any is sent: an accept among them changes only what later notices say.
      const built = step.acts.map((a) => (a.k === 'notice' ? build(a.n) : null));
      await Promise.all(
        step.acts.map(async (a, i) => {
          await sleep(step.delays[i] ?? 0);
          if (a.k === 'accept') await accept(a.p);
          else await notify([built[i]!.item]);
        }),
      );
      for (const x of paid) {
        const mine = built.filter((b) => b?.paid === x).map((b) => b!.sent);
        if (step.acts.filter((a) => of(a.k === 'accept' ? a.p : a.n.p) === x).length > 1) x.concurrent = true;
        if (mine.length) x.states = concurrent(x.states, mine);
      }
    }
  }

  // --- The checks ---
  const cases = await caseItems(merchantId);
  const byId = new Map<string, DisputeCase[]>();
  for (const c of cases) byId.set(c.dispute_id, [...(byId.get(c.dispute_id) ?? []), c]);
  const entries = await ledger({ merchantId }, 'BRL', 'live');
  let expectedBalance = 0;
  const expectedStatuses: Record<string, number> = {};

  for (const x of paid) {
    const stored = (await paymentDeps().store.getPayment(x.id)) as Payment;
    const d = stored.dispute ?? null;
    const money: Money | null = d ? { stage: d.stage, status: d.status } : null;
    const where = `${x.id} (${x.concurrent ? 'concurrent' : 'sequential'})`;
    if (!x.states.some((s) => JSON.stringify(s.money) === JSON.stringify(money)))
      problems.push(`${where}: money ${JSON.stringify(money)}, the notices reach only ${JSON.stringify(x.states.map((s) => s.money))}`);
    if (d && d.amount_minor !== x.disputedMinor) problems.push(`${where}: disputed ${d.amount_minor}, notices said ${x.disputedMinor}`);
    count(figures.outcomes, money ? `${money.status}@${money.stage}` : 'none');

    // The ledger: the payment's credit and one movement per stage, in order.
    const mine = entries
      .filter((e) => e.object_id === x.id)
      .sort((a, b) => String(a.created_at).localeCompare(String(b.created_at)) || String(a.SK).localeCompare(String(b.SK)));
    const got = mine.map((e) => [String(e.reason), Number(e.amount_minor)] as [string, number]);
    const wanted: Array<[string, number]> = [['payment', x.amountMinor], ...movementsOf(money, x.disputedMinor)];
    const sorted = (xs: Array<[string, number]>) => JSON.stringify([...xs].sort());
    if (sorted(got) !== sorted(wanted))
      problems.push(`${where}: ledger ${JSON.stringify(got)}, for ${JSON.stringify(money)} ${JSON.stringify(wanted)}`);
    expectedBalance += wanted.reduce((s, [, a]) => s + a, 0);

    // The case: one item when any notice opened it, none otherwise, agreeing with the money and the accepts.
    const items = byId.get(disputeIdOf(x.id)) ?? [];
    byId.delete(disputeIdOf(x.id));
    if (!money) {
      if (items.length) problems.push(`${where}: no money dispute, yet ${items.length} case item(s)`);
      if (x.accepted) problems.push(`${where}: an accept answered 200 with no case`);
      continue;
    }
    if (items.length !== 1) {
      problems.push(`${where}: ${items.length} case items`);
      continue;
    }
    const c = items[0]!;
    const status = money.status === 'won' ? 'won' : x.accepted ? 'accepted' : money.status === 'lost' ? 'lost' : 'needs_response';
    count(expectedStatuses, status);
    count(figures.caseStatuses, c.status);
    if (c.status !== status)
      problems.push(`${where}: case ${c.status}, money ${JSON.stringify(money)}${x.accepted ? ', accepted' : ''}: expected ${status}`);
    if ((c.accepted_at !== null) !== x.accepted) problems.push(`${where}: accepted_at ${c.accepted_at}, accepted ${x.accepted}`);
    if ((c.closed_at !== null) !== ['won', 'lost', 'accepted'].includes(c.status))
      problems.push(`${where}: ${c.status} closed_at ${c.closed_at}`);
    if (c.funds_withdrawn !== (money.stage === 1 || money.stage === 3))
      problems.push(`${where}: funds_withdrawn ${c.funds_withdrawn} at ${JSON.stringify(money)}`);
    if (
      c.amount_minor !== d!.amount_minor ||
      c.payment_id !== x.id ||
      c.provider_reference !== x.dispute.pspReference ||
      c.provider !== 'adyen'
    )
      problems.push(`${where}: case ${JSON.stringify(c)} does not follow its payment's dispute ${JSON.stringify(d)}`);
    if (c.last_action?.state === 'pending') problems.push(`${where}: an ${c.last_action.action} left pending`);

    // The events, as the merchant lists them.
    const typesOf = async (objectId: string) => {
      const r = await call('GET', `/api/v1/events?object_id=${objectId}&limit=100`);
      if (r.status !== 200 || r.body.has_more) problems.push(`events of ${objectId}: ${r.status} has_more ${r.body?.has_more}`);
      return ((r.body?.data ?? []) as Array<{ type: string }>).map((e) => e.type);
    };
    const n = (types: string[], t: string) => types.filter((x) => x === t).length;
    const caseEvents = await typesOf(c.dispute_id);
    const paymentEvents = await typesOf(x.id);
    const returned = money.stage >= 2;
    const expectEvents = {
      'dispute.created': 1,
      'dispute.won': returned ? 1 : 0,
      // Accepted: a lost notice that committed while the accept was at Adyen told dispute.lost first.
      'dispute.lost': c.status === 'lost' ? 1 : c.status === 'accepted' ? Math.min(1, n(caseEvents, 'dispute.lost')) : 0,
      'payment.disputed': 1,
      'payment.dispute_won': returned ? 1 : 0,
      'payment.dispute_lost': money.status === 'lost' ? 1 : 0,
    };
    for (const [type, times] of Object.entries(expectEvents)) {
      const seen = n(type.startsWith('dispute.') ? caseEvents : paymentEvents, type);
      if (seen !== times) problems.push(`${where}: ${seen} ${type} (${JSON.stringify(money)}, case ${c.status}), expected ${times}`);
    }
  }
  if (byId.size) problems.push(`case items of no payment of the run: ${[...byId.keys()].join(', ')}`);

  // The listing: every case once, and each status's count.
  const list = await call('GET', '/api/v1/disputes?limit=100');
  const listed = ((list.body?.data ?? []) as Array<{ dispute_id: string }>).map((x) => x.dispute_id);
  if (listed.length !== new Set(listed).size || listed.length !== cases.length || list.body?.pagination?.total !== cases.length)
    problems.push(`listing: ${JSON.stringify(listed)} (total ${list.body?.pagination?.total}), ${cases.length} cases`);
  for (const status of DISPUTE_CASE_STATUSES) {
    const r = await call('GET', `/api/v1/disputes?status=${status}&limit=1`);
    if ((r.body?.pagination?.total ?? -1) !== (expectedStatuses[status] ?? 0))
      problems.push(`listing ?status=${status}: total ${r.body?.pagination?.total}, expected ${expectedStatuses[status] ?? 0}`);
  }

  // Ledger = balance (credits pending their fold included), and both what the model says.
  let [sum, balance] = [0, 0];
  for (let i = 0; i < 50; i++) {
    sum = (await ledger({ merchantId }, 'BRL', 'live')).reduce((s, e) => s + Number(e.amount_minor), 0);
    balance = await balanceMinorOf(stack, apiKey, 'BRL');
    if (sum === balance) break;
    await sleep(100);
  }
  if (sum !== balance || sum !== expectedBalance) problems.push(`ledger sum ${sum}, balance ${balance}, expected ${expectedBalance}`);
  if (adyen.violations.length) problems.push(`fake Adyen violations: ${adyen.violations.join('; ')}`);

  figures.runs++;
  if (problems.length) throw new Error(`${problems.length} broken:\n  ${problems.join('\n  ')}`);
}
