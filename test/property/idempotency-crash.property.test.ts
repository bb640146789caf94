/**
 * Issue 31, lever 2: a keyed create's answer is written in the same transaction as its effect. Random sequences of
 * keyed requests (payouts single and batch, cancels, sandbox top-ups, direct card payments, refunds; a few keys,
 * sometimes the same key with another body, sometimes more than the balance holds or a declined card) go through
 * our idempotency runner and the real DynamoDB adapters on DynamoDB Local, with the process killed at a random
 * DynamoDB write of an attempt (before it is sent, or after it committed and before its answer is read): from then
 * on nothing more of that attempt reaches DynamoDB, no cleanup runs, and the client gets no answer even where our
 * code caught the failure and went on (a claim's release that fails is only logged). The client retries with the
 * same key and body (waiting out a 409 while the dead attempt's claim lasts) until it has an answer. Then:
 *   - never a second effect: the payouts, payments and refunds stored are exactly the ones the successful answers
 *     name, each moving the balance once (a cancel credits back once, each top-up credits once), balance = ledger;
 *   - a cancel that committed was answered 200 (its retry replays it, never "already cancelled");
 *   - never a lost answer: once a key has answered 200, every later request with that key and body gets the same
 *     body (replayed), and one with another body is 422 IDEMPOTENCY_KEY_REUSED.
 */
import fc from 'fast-check';
import { GetCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { idempotencyRecordEntity } from '../../shared/adapters/dynamodb/entities/idempotency-record.entity';
import { idempotencyRecords } from '../../shared/adapters/dynamodb/idempotency.store';
import { cancelPayout, createPayout, createPayoutBatch, topUpTestBalance, type BatchResult } from '../../shared/application/payouts';
import { createDirectPayment } from '../../shared/application/payins';
import type { BalanceView, QrCodes } from '../../shared/application/ports';
import { createRefund } from '../../shared/application/refunds';
import type { Payment } from '../../shared/domain/payments/payment';
import type { Refund } from '../../shared/domain/refunds/refund';
import { createRefundBody } from '../../shared/domain/refunds/refund.schemas';
import { directPaymentView } from '../../shared/http/views/payment.view';
import { refundView } from '../../shared/http/views/refund.view';
import { AppError } from '../../shared/domain/errors';
import type { Payout } from '../../shared/domain/payouts/payout';
import {
  deriveId,
  makeIdempotentRunner,
  recordIdOf,
  REPLAYED_HEADER,
  type IdempotencyScope,
} from '../../shared/http/middleware/idempotency';
import { balancesView, cancelledPayoutView, createdPayoutView, payoutBatchView } from '../../shared/http/views/payout.view';
import {
  card,
  CARDS,
  directInput,
  memoryMerchant,
  memoryPaymentDeps,
  memoryPayoutDeps,
  PAYOUT_DOCS,
  payoutInput,
  pixBeneficiary,
  speiBeneficiary,
} from '../support/in-memory';
import { dynamoBackend, dynamoConnection } from './backends';

// npm test runs 8 sequences; the proof (npm run proof, in CI) runs 30.
const NUM_RUNS = Number(process.env.PROPERTY_IDEMPOTENCY_RUNS ?? 8);
/** What a dead attempt's claim lasts (the function's timeout): a retry waits it out. */
const CLAIM_MS = 10_000;
const conn = dynamoConnection();
afterAll(() => conn.close());

/** Card answers draw no QR image. */
const noQr: QrCodes = { pngDataUri: async () => '', png: async () => Buffer.alloc(0) };

class Crash extends Error {
  override readonly name = 'Crash';
}

/** Where the next attempt dies: at its n-th DynamoDB write, before it is sent or after it took effect. */
interface CrashPoint {
  readonly at: number;
  readonly after: boolean;
}

/** The document client of one process: `restart` arms a crash point; once dead, every call fails unsent. */
function crashingClient(doc: DynamoDBDocumentClient) {
  let point: CrashPoint | null = null;
  let calls = 0;
  let dead = false;
  const send = async (command: Parameters<DynamoDBDocumentClient['send']>[0]) => {
    if (dead) throw new Crash('dead');
    const write = !/^(Get|Query|BatchGet)/.test(command.constructor.name);
    if (point && write && calls++ === point.at) {
      dead = true;
      if (point.after) await doc.send(command);
      throw new Crash(`killed at write ${point.at} (${point.after ? 'after' : 'before'} it)`);
    }
    return doc.send(command);
  };
  const client = new Proxy(doc, { get: (t, p, r) => (p === 'send' ? send : Reflect.get(t, p, r)) });
  return {
    client,
    /** Whether the process died: a death the code under test caught (a release's failure is logged) still ends it. */
    get dead() {
      return dead;
    },
    /** A new process: alive, dying at `next` (or never). */
    restart(next: CrashPoint | null) {
      point = next;
      calls = 0;
      dead = false;
    },
  };
}

type Route = 'createPayout' | 'createPayoutBatch' | 'cancelPayout' | 'topUpTestBalance' | 'createDirectPayment' | 'createRefund';
interface Op {
  readonly route: Route;
  readonly key: number;
  /**
   * 0 and 1: two bodies a key may carry (1: a single payout held pending, so it can be cancelled); 2: more than the
   * balance holds (single), a bad item (batch), another amount (top-up). A cancel's key k cancels create key k's payout.
   */
  readonly variant: number;
  readonly crashes: readonly CrashPoint[];
  /** The client gives up after its first attempt dies (and comes back, if ever, only with a later op). */
  readonly abandon: boolean;
}

const opArb: fc.Arbitrary<Op> = fc
  .record({
    route: fc.constantFrom<Route>(
      'createPayout',
      'createPayout',
      'createPayoutBatch',
      'cancelPayout',
      'topUpTestBalance',
      'createDirectPayment',
      'createRefund',
    ),
    key: fc.nat({ max: 2 }),
    variant: fc.nat({ max: 2 }),
    crashes: fc.array(fc.record({ at: fc.nat({ max: 4 }), after: fc.boolean() }), { maxLength: 2 }),
    abandon: fc.boolean(),
  })
  .map((op) => (op.route === 'cancelPayout' ? { ...op, variant: 0 } : op));

const brl = (amount: number, document: string = PAYOUT_DOCS.complete) => payoutInput({ amount, beneficiary: pixBeneficiary(document) });
const mxn = (amount: number) => payoutInput({ method_code: 'svc-mt-30', currency: 'MXN', amount, beneficiary: speiBeneficiary() });

/** The request body of an op: single payouts in BRL; batches of BRL and MXN payouts (two chunks, two debits). */
function bodyOf(op: Op): unknown {
  if (op.route === 'createPayout') return op.variant === 2 ? brl(900_000) : op.variant === 0 ? brl(20) : brl(35, PAYOUT_DOCS.hold);
  if (op.route === 'topUpTestBalance') return { currency: 'BRL', amount: 5 + 2 * op.variant };
  if (op.route === 'cancelPayout') return null;
  if (op.route === 'createRefund') return createRefundBody.parse({ amount: 5 + 2 * op.variant });
  if (op.route === 'createDirectPayment')
    return directInput({ payment_method: 'card', amount: 30 + op.variant, card: card(op.variant === 2 ? CARDS.decline : CARDS.approve) });
  const items: unknown[] = [brl(10), mxn(40), brl(op.variant === 1 ? 12 : 11), mxn(41)];
  return op.variant === 2 ? [...items, { method_code: 'svc-mt-5', amount: -1 }] : items;
}

interface Answer {
  readonly status: number;
  readonly body: string;
  readonly replayed: boolean;
  readonly code?: string;
}

it(
  `keyed creates with a crash between any two steps: never a second effect, never a lost answer (${NUM_RUNS} runs)`,
  async () => {
    let crashes = 0;
    let replays = 0;
    let abandoned = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(opArb, { minLength: 1, maxLength: 8 }), async (ops) => {
        const table = await conn.table();
        try {
          const proc = crashingClient(conn.doc);
          const backend = dynamoBackend(proc.client, table.name);
          const { world } = backend;
          const deps = memoryPayoutDeps(world);
          const { principal } = await memoryMerchant(world);
          const merchantId = principal.merchant.merchant_id;
          await topUpTestBalance(deps, merchantId, 'BRL', 1000);
          await topUpTestBalance(deps, merchantId, 'MXN', 1000);
          const payments = memoryPaymentDeps(world);
          // The payment the keyed refunds refund (paid by card, its credit folded into the balance before a debit).
          const paid = await createDirectPayment(
            payments,
            principal,
            directInput({ payment_method: 'card', amount: 500, card: card(CARDS.approve) }),
            'pi_paid',
          );
          const run = makeIdempotentRunner<{ statusCode: number; body: string; headers?: Record<string, string> }>(
            () => idempotencyRecords(proc.client, () => table.name),
            () => world.clock.now().getTime(),
          );

          /** The idempotency scope of an op's requests: its route and key, for this run's merchant. */
          const scopeOf = (op: Op): IdempotencyScope => ({ merchantId, mode: 'test', routeId: op.route, key: `k${op.key}` });
          const attempt = async (op: Op): Promise<Answer | 'crash'> => {
            const scope = scopeOf(op);
            const body = bodyOf(op);
            const target = deriveId('po_', { ...scope, routeId: 'createPayout' });
            const input = op.route === 'cancelPayout' ? { path: { payout_id: target } } : { body };
            try {
              const r = await run(scope, input, { getRemainingTimeInMillis: () => CLAIM_MS }, async (answering) => {
                if (op.route === 'cancelPayout') {
                  const view = (p: Payout) => ({ statusCode: 200, body: JSON.stringify(cancelledPayoutView(p)) });
                  return view(await cancelPayout(deps, principal, target, (p) => answering(view(p))));
                }
                if (op.route === 'createDirectPayment') {
                  const view = async (p: Payment) => ({ statusCode: 200, body: JSON.stringify(await directPaymentView({ qr: noQr }, p)) });
                  const input = body as ReturnType<typeof directInput>;
                  return view(
                    await createDirectPayment(payments, principal, input, deriveId('pi_', scope), async (p) => answering(await view(p))),
                  );
                }
                if (op.route === 'createRefund') {
                  const view = (r: Refund) => ({ statusCode: 200, body: JSON.stringify(refundView(r)) });
                  const input = body as ReturnType<typeof createRefundBody.parse>;
                  return view(
                    await createRefund(payments, principal, paid.payment_id, input, deriveId('re_', scope), (r) => answering(view(r))),
                  );
                }
                if (op.route === 'topUpTestBalance') {
                  const view = (list: BalanceView[]) => ({ statusCode: 200, body: JSON.stringify(balancesView(false, list)) });
                  const { amount } = body as { amount: number };
                  await topUpTestBalance(deps, merchantId, 'BRL', amount, (list) => answering(view(list)));
                  return view(await deps.store.balances(merchantId, 'test'));
                }
                if (op.route === 'createPayout') {
                  const view = (p: Payout) => ({ statusCode: 200, body: JSON.stringify(createdPayoutView(p)) });
                  const input = body as ReturnType<typeof brl>;
                  return view(await createPayout(deps, principal, input, deriveId('po_', scope), (p) => answering(view(p))));
                }
                const view = (b: BatchResult) => ({ statusCode: 200, body: JSON.stringify(payoutBatchView(b)) });
                const batch = await createPayoutBatch(deps, principal, body as unknown[], deriveId('pb_', scope), (b) =>
                  answering(view(b)),
                );
                return view(batch);
              });
              // A process that died answers nothing, even where the code caught the failure and went on.
              if (proc.dead) return 'crash';
              return { status: r.statusCode, body: r.body, replayed: r.headers?.[REPLAYED_HEADER] === 'true' };
            } catch (e) {
              if (e instanceof Crash || proc.dead) return 'crash';
              if (e instanceof AppError) return { status: e.status, body: '', replayed: false, code: e.code };
              throw e;
            }
          };

          /** The client: retries with the same key and body until it has an answer (a new process each time). */
          const request = async (op: Op): Promise<Answer> => {
            for (let i = 0; i < 10; i++) {
              proc.restart(op.crashes[i] ?? null);
              const a = await attempt(op);
              if (a === 'crash') {
                crashes++;
                continue;
              }
              if (a.code === 'IDEMPOTENCY_IN_PROGRESS') {
                world.clock.advance(CLAIM_MS + 1); // the dead attempt's claim runs out
                continue;
              }
              return a;
            }
            throw new Error('no answer after 10 attempts');
          };

          /** Per route and key: the body that holds it, and the answer it gave (null: its attempt died unanswered). */
          const holders = new Map<string, { variant: number; body: string | null }>();
          const check = (op: Op, a: Answer) => {
            const slot = `${op.route}#${op.key}`;
            const holder = holders.get(slot);
            if (holder && holder.variant !== op.variant) {
              expect(a.code).toBe('IDEMPOTENCY_KEY_REUSED');
            } else if (holder?.body) {
              expect({ status: a.status, body: a.body }).toEqual({ status: 200, body: holder.body });
              expect(a.replayed).toBe(true);
              replays++;
            } else {
              expect(a.code).not.toBe('IDEMPOTENCY_KEY_REUSED');
              if (a.status === 200) holders.set(slot, { variant: op.variant, body: a.body });
              else holders.delete(slot); // errors are not stored: the key is free again
            }
          };
          for (const op of ops) {
            const [first] = op.crashes;
            if (op.abandon && first) {
              proc.restart(first);
              const a = await attempt(op);
              if (a !== 'crash') check(op, a);
              else {
                crashes++;
                abandoned++;
                const slot = `${op.route}#${op.key}`;
                // The key is its body's from then on if its record stayed (it died after the claim and before a
                // release took effect); the record itself says so, as the next request will find it.
                const record = await conn.doc.send(
                  new GetCommand({
                    TableName: table.name,
                    Key: idempotencyRecordEntity.key(recordIdOf(scopeOf(op))),
                    ConsistentRead: true,
                  }),
                );
                if (record.Item && !holders.has(slot)) holders.set(slot, { variant: op.variant, body: null });
                world.clock.advance(CLAIM_MS + 1);
              }
              continue;
            }
            check(op, await request(op));
          }
          // The clients that gave up come back once, so every effect has its answer.
          for (const [slot, h] of [...holders]) {
            if (h.body !== null) continue;
            const [route, key] = slot.split('#') as [Route, string];
            const op: Op = { route, key: Number(key), variant: h.variant, crashes: [], abandon: false };
            check(op, await request(op));
          }

          // Effects: exactly the payouts the answers name, each debited once.
          proc.restart(null);
          const named = new Set<string>();
          let toppedUp = 0;
          for (const [slot, { body }] of holders) {
            const answer = JSON.parse(body ?? '{}') as { payout_id?: string; results?: { payout_id?: string }[] };
            if (slot.startsWith('createPayout#')) named.add(answer.payout_id!);
            if (slot.startsWith('createPayoutBatch#')) for (const r of answer.results ?? []) if (r.payout_id) named.add(r.payout_id);
            if (slot.startsWith('topUpTestBalance#')) toppedUp += 500 + 200 * holders.get(slot)!.variant;
          }
          const page = await deps.store.list(merchantId, 'test', { limit: 100, offset: 0 });
          expect(page.items.map((p) => p.payout_id).sort()).toEqual([...named].sort());
          expect(page.total).toBe(named.size);
          // A cancel that committed was answered: its key holds the 200 (never "already cancelled" on the retry).
          for (const p of page.items.filter((x) => x.status === 'cancelled')) {
            const key = [0, 1, 2].find(
              (k) => deriveId('po_', { merchantId, mode: 'test', routeId: 'createPayout', key: `k${k}` }) === p.payout_id,
            );
            expect(holders.get(`cancelPayout#${key}`)?.body).toContain('"status":"cancelled"');
          }
          // Payments and refunds: exactly the ones the successful answers name (a declined payment is answered with an error).
          const paidKeys = [0, 1, 2].map((k) =>
            deriveId('pi_', { merchantId, mode: 'test', routeId: 'createDirectPayment', key: `k${k}` }),
          );
          const succeeded: Payment[] = [paid];
          for (const [k, id] of paidKeys.entries()) {
            const p = await payments.store.getPayment(id);
            const holder = holders.get(`createDirectPayment#${k}`);
            if (p?.status === 'success') succeeded.push(p);
            expect(p?.status === 'success').toBe(Boolean(holder?.body));
          }
          const refunds = await payments.refunds.listByPayment(paid.payment_id);
          const refundIds = [...holders]
            .filter(([slot, h]) => slot.startsWith('createRefund#') && h.body)
            .map(([, h]) => (JSON.parse(h.body!) as { refund_id: string }).refund_id);
          expect(refunds.map((r) => r.refund_id).sort()).toEqual(refundIds.sort());
          const inMinor = succeeded.reduce((sum, p) => sum + p.amount_minor, 0) - refunds.reduce((sum, r) => sum + r.amount_minor, 0);
          for (const currency of ['BRL', 'MXN'] as const) {
            const out = page.items
              .filter((p) => p.currency === currency && p.status !== 'cancelled')
              .reduce((s, p) => s + p.amount_minor, 0);
            const balance = (await deps.store.balances(merchantId, 'test')).find((b) => b.currency === currency)?.available_minor;
            expect(balance).toBe(100_000 + (currency === 'BRL' ? toppedUp + inMinor : 0) - out);
            const ledger = await backend.ledger(merchantId, currency);
            expect(ledger.reduce((s, e) => s + Number(e.amount_minor), 0)).toBe(balance);
          }
        } finally {
          await table.drop();
        }
      }),
      {
        numRuns: NUM_RUNS,
        examples: [
          // Found by the proof in CI: the attempt dies at its claim's release after a 400; the next body must find the
          // key free once that claim has run out (a dead process answers nothing, so the client retried the 400 first).
          [
            [
              { route: 'createPayout', key: 0, variant: 2, crashes: [{ at: 1, after: false }], abandon: false },
              { route: 'createPayout', key: 0, variant: 0, crashes: [], abandon: false },
            ],
          ],
          // Always run once, whatever the random draws: a crash after the payout's commit, its replay, an abandoned top-up.
          [
            [
              { route: 'createPayout', key: 0, variant: 0, crashes: [{ at: 1, after: true }], abandon: false },
              { route: 'createPayout', key: 0, variant: 0, crashes: [], abandon: false },
              { route: 'topUpTestBalance', key: 1, variant: 0, crashes: [{ at: 0, after: true }], abandon: true },
            ],
          ],
        ],
      },
    );
    expect(crashes).toBeGreaterThan(0);
    expect(replays).toBeGreaterThan(0);
    expect(abandoned).toBeGreaterThan(0);
  },
  Math.max(180_000, NUM_RUNS * 20_000),
);
