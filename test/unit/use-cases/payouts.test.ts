/**
 * Payouts against the in-memory ports: the create debits the balance in the same transaction (never below
 * zero, never twice for one id), cancel and failed/refunded settlements credit it back once, and every move
 * is one conditional transition with its event. The merchant observes balances, ledger, payouts and events.
 */
import type { Principal } from '../../../shared/application/access';
import {
  balances,
  cancelPayout,
  createPayout,
  getPayout,
  listPayouts,
  runSettlementStep,
  topUpTestBalance,
  type PayoutDeps,
} from '../../../shared/application/payouts';
import {
  balanceOf,
  errorCode,
  ledgerOf,
  ledgerSum,
  memoryMerchant,
  memoryPayoutDeps,
  memoryWorld,
  PAYOUT_DOCS,
  payoutInput,
  pixBeneficiary,
  publishedOf,
  speiBeneficiary,
  type MemoryWorld,
} from '../../support/in-memory';

let w: MemoryWorld;
let deps: PayoutDeps;
let principal: Principal;
let merchantId: string;

beforeEach(async () => {
  w = memoryWorld();
  deps = memoryPayoutDeps(w);
  ({ principal } = await memoryMerchant(w));
  merchantId = principal.merchant.merchant_id;
});

const topUp = (amount: number, currency: 'BRL' | 'MXN' = 'BRL') => topUpTestBalance(deps, merchantId, currency, amount);
const create = async (over: Record<string, unknown> = {}, id = w.ids.newId('po_')) => {
  await createPayout(deps, principal, payoutInput(over), id);
  return id;
};
const withDoc = (document: string, over: Record<string, unknown> = {}) => ({ beneficiary: pixBeneficiary(document), ...over });
const payout = async (id: string) => (await deps.store.get(id))!;
const types = (objectId?: string) => publishedOf(w, objectId).map(([t]) => t);

/** Runs every settlement step the rail scheduled, as the settlement worker would, until none is left. */
async function settleAll() {
  for (let steps = w.rails.drain(); steps.length > 0; steps = w.rails.drain()) {
    for (const s of steps) await runSettlementStep(deps, s.payoutId, s.step);
  }
}

describe('create', () => {
  it('debits the balance with a ledger entry, stores it processing, publishes payout.processing, schedules the settlement', async () => {
    await topUp(100);
    const id = await create({ amount: 40 });
    expect(await payout(id)).toMatchObject({ status: 'processing', amount_minor: 4000, currency: 'BRL', sandbox_outcome: 'complete' });
    expect((await payout(id)).beneficiary.document).not.toBe(PAYOUT_DOCS.complete);
    expect(balanceOf(w, merchantId)).toBe(6000);
    expect(ledgerOf(w, merchantId)).toEqual([
      ['test_top_up', 10000, merchantId],
      ['payout', -4000, id],
    ]);
    expect(types()).toEqual(['payout.processing']);
    expect(w.publisher.events[0]!.payload).toMatchObject({
      payout_id: id,
      status: 'processing',
      amount: 40,
      currency: 'BRL',
      method_code: 'svc-mt-5',
    });
    expect(w.rails.scheduled).toEqual([{ payoutId: id, step: 'settle' }]);
    expect(await balances(deps, principal)).toEqual([{ currency: 'BRL', available_minor: 6000, updated_at: w.clock.iso() }]);
  });

  it('a balance that covers it exactly goes to zero; one minor unit short is INSUFFICIENT_BALANCE with nothing written', async () => {
    await topUp(50);
    await create({ amount: 50 });
    expect(balanceOf(w, merchantId)).toBe(0);
    const commits = w.table.commits;
    const refused = w.ids.newId('po_');
    expect(await errorCode(create({ amount: 1 }, refused))).toBe('INSUFFICIENT_BALANCE');
    expect(await deps.store.get(refused)).toBeNull();
    expect(w.table.commits).toBe(commits);
    expect(balanceOf(w, merchantId)).toBe(0);
    expect(types()).toEqual(['payout.processing']);
  });

  it('no balance at all in that currency is INSUFFICIENT_BALANCE (a missing balance covers nothing)', async () => {
    await topUp(1000, 'BRL');
    expect(await errorCode(create({ method_code: 'svc-mt-30', currency: 'MXN', amount: 100, beneficiary: speiBeneficiary() }))).toBe(
      'INSUFFICIENT_BALANCE',
    );
    expect(balanceOf(w, merchantId, 'MXN')).toBe(0);
  });

  it('the same payout id twice (a keyed retry) answers with the first payout and debits once', async () => {
    await topUp(100);
    const id = await create({ amount: 30 });
    const again = await createPayout(deps, principal, payoutInput({ amount: 30 }), id);
    expect(again.payout_id).toBe(id);
    expect(balanceOf(w, merchantId)).toBe(7000);
    expect(ledgerOf(w, merchantId).filter(([reason]) => reason === 'payout')).toEqual([['payout', -3000, id]]);
    expect(types()).toEqual(['payout.processing']);
    expect(w.table.payoutCounters.get(`${merchantId}|test`)).toEqual({ total: 1, processing: 1 });
  });

  it('the same id racing twice: one payout, one debit', async () => {
    await topUp(100);
    const id = w.ids.newId('po_');
    const results = await Promise.allSettled([
      createPayout(deps, principal, payoutInput({ amount: 30 }), id),
      createPayout(deps, principal, payoutInput({ amount: 30 }), id),
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'fulfilled']);
    expect(balanceOf(w, merchantId)).toBe(7000);
    expect(ledgerSum(w, merchantId)).toBe(7000);
  });

  it('two payouts racing for a balance that covers only one: exactly one is debited', async () => {
    await topUp(50);
    const [a, b] = await Promise.allSettled([create({ amount: 40 }), create({ amount: 40 })]);
    expect([a.status, b.status].sort()).toEqual(['fulfilled', 'rejected']);
    expect(((a.status === 'rejected' ? a : b) as PromiseRejectedResult).reason).toMatchObject({ code: 'INSUFFICIENT_BALANCE' });
    expect(balanceOf(w, merchantId)).toBe(1000);
    expect(ledgerSum(w, merchantId)).toBe(1000);
  });

  it.each([
    ['a currency the method does not pay out in', { currency: 'PEN' }, 'VALIDATION_ERROR'],
    ['more than the method maximum', { amount: 50_001 }, 'AMOUNT_LIMIT_EXCEEDED'],
    ['less than the method minimum', { amount: 0.5 }, 'VALIDATION_ERROR'],
    ['a beneficiary whose CPF is invalid', withDoc('52998224724'), 'INVALID_BENEFICIARY'],
    ['an unknown method', { method_code: 'svc-mt-999' }, 'METHOD_NOT_AVAILABLE'],
  ])('%s is refused and nothing is debited', async (_, over, code) => {
    await topUp(100_000);
    expect(await errorCode(create(over))).toBe(code);
    expect(balanceOf(w, merchantId)).toBe(10_000_000);
    expect(w.table.payouts.size).toBe(0);
  });

  it('a live key has no live payout rail: METHOD_NOT_AVAILABLE before any debit', async () => {
    const live = (await memoryMerchant(w, {}, 'live')).principal;
    expect(await errorCode(createPayout(deps, live, payoutInput(), w.ids.newId('po_')))).toBe('METHOD_NOT_AVAILABLE');
    expect(w.table.ledger.size).toBe(0);
  });
});

describe('cancel', () => {
  it('a held (pending) payout: no event at create; cancel -> cancelled, credited back once, payout.cancelled', async () => {
    await topUp(100);
    const id = await create(withDoc(PAYOUT_DOCS.hold, { amount: 25 }));
    expect(await payout(id)).toMatchObject({ status: 'pending', sandbox_outcome: 'hold' });
    expect(types()).toEqual([]);
    expect(w.rails.scheduled).toEqual([]);
    expect(balanceOf(w, merchantId)).toBe(7500);
    expect((await cancelPayout(deps, principal, id)).status).toBe('cancelled');
    expect(balanceOf(w, merchantId)).toBe(10000);
    expect(ledgerOf(w, merchantId).slice(1)).toEqual([
      ['payout', -2500, id],
      ['payout_cancelled', 2500, id],
    ]);
    expect(types()).toEqual(['payout.cancelled']);
    expect(await errorCode(cancelPayout(deps, principal, id))).toBe('CANNOT_CANCEL');
    expect(balanceOf(w, merchantId)).toBe(10000);
  });

  it('a processing payout cannot be cancelled', async () => {
    await topUp(100);
    const id = await create();
    expect(await errorCode(cancelPayout(deps, principal, id))).toBe('CANNOT_CANCEL');
    expect((await payout(id)).status).toBe('processing');
  });

  it('a cancel that loses the race with the start step: CANNOT_CANCEL, no credit, the start stands', async () => {
    await topUp(100);
    const id = await create(withDoc(PAYOUT_DOCS.hold, { amount: 25 }));
    w.table.beforeNextTransaction(() => runSettlementStep(deps, id, 'start').then(() => undefined));
    expect(await errorCode(cancelPayout(deps, principal, id))).toBe('CANNOT_CANCEL');
    expect((await payout(id)).status).toBe('processing');
    expect(balanceOf(w, merchantId)).toBe(7500);
    expect(types()).toEqual(['payout.processing']);
  });

  it('another merchant cannot read or cancel it', async () => {
    await topUp(100);
    const id = await create(withDoc(PAYOUT_DOCS.hold));
    const other = (await memoryMerchant(w)).principal;
    expect(await errorCode(getPayout(deps, other, id))).toBe('PAYOUT_NOT_FOUND');
    expect(await errorCode(cancelPayout(deps, other, id))).toBe('PAYOUT_NOT_FOUND');
  });
});

describe('settlement steps', () => {
  it('complete: processing -> completed, the money stays out', async () => {
    await topUp(100);
    const id = await create({ amount: 10 });
    await settleAll();
    expect(await payout(id)).toMatchObject({ status: 'completed', completed_at: w.clock.iso() });
    expect(types(id)).toEqual(['payout.processing', 'payout.completed']);
    expect(balanceOf(w, merchantId)).toBe(9000);
  });

  it('fail: processing -> failed with a reason, credited back once', async () => {
    await topUp(100);
    const id = await create(withDoc(PAYOUT_DOCS.fail, { amount: 10 }));
    await settleAll();
    expect(await payout(id)).toMatchObject({ status: 'failed', failure_reason: 'invalid_account' });
    expect(types(id)).toEqual(['payout.processing', 'payout.failed']);
    expect(balanceOf(w, merchantId)).toBe(10000);
    expect(ledgerOf(w, merchantId).filter(([, , o]) => o === id)).toEqual([
      ['payout', -1000, id],
      ['payout_failed', 1000, id],
    ]);
  });

  it('complete then refund: completed, then refunded by the beneficiary bank and credited back', async () => {
    await topUp(100);
    const id = await create(withDoc(PAYOUT_DOCS.completeThenRefund, { amount: 10 }));
    await settleAll();
    expect(await payout(id)).toMatchObject({ status: 'refunded', failure_reason: 'returned_by_beneficiary_bank' });
    expect(types(id)).toEqual(['payout.processing', 'payout.completed', 'payout.refunded']);
    expect(balanceOf(w, merchantId)).toBe(10000);
  });

  it('held: start moves it to processing (payout.processing) and schedules the settle', async () => {
    await topUp(100);
    const id = await create(withDoc(PAYOUT_DOCS.hold, { amount: 10 }));
    await runSettlementStep(deps, id, 'start');
    expect((await payout(id)).status).toBe('processing');
    expect(w.rails.scheduled).toEqual([{ payoutId: id, step: 'settle' }]);
    await settleAll();
    expect(types(id)).toEqual(['payout.processing', 'payout.completed']);
  });

  it('duplicate and out-of-order steps change nothing: a second settle, refund of a processing payout, start once settled', async () => {
    await topUp(100);
    const failing = await create(withDoc(PAYOUT_DOCS.fail, { amount: 10 }));
    expect((await runSettlementStep(deps, failing, 'refund'))?.status).toBe('processing');
    await runSettlementStep(deps, failing, 'settle');
    await runSettlementStep(deps, failing, 'settle');
    await runSettlementStep(deps, failing, 'start');
    await runSettlementStep(deps, failing, 'refund');
    expect((await payout(failing)).status).toBe('failed');
    expect(types(failing)).toEqual(['payout.processing', 'payout.failed']);
    expect(balanceOf(w, merchantId)).toBe(10000);
    expect(await runSettlementStep(deps, w.ids.newId('po_'), 'settle')).toBeNull();
  });

  it('two settle messages racing: one failed transition, one credit-back', async () => {
    await topUp(100);
    const id = await create(withDoc(PAYOUT_DOCS.fail, { amount: 10 }));
    await Promise.all([runSettlementStep(deps, id, 'settle'), runSettlementStep(deps, id, 'settle')]);
    expect(types(id)).toEqual(['payout.processing', 'payout.failed']);
    expect(ledgerOf(w, merchantId).filter(([r]) => r === 'payout_failed')).toHaveLength(1);
    expect(balanceOf(w, merchantId)).toBe(10000);
  });
});

describe('list and balances', () => {
  it('totals come from the counters kept in each transaction, per status', async () => {
    await topUp(1000);
    await create({ amount: 10 });
    await create(withDoc(PAYOUT_DOCS.fail, { amount: 10 }));
    const held = await create(withDoc(PAYOUT_DOCS.hold, { amount: 10 }));
    await settleAll();
    await cancelPayout(deps, principal, held);
    expect((await listPayouts(deps, principal, { limit: 10, offset: 0 })).total).toBe(3);
    expect((await listPayouts(deps, principal, { status: 'failed', limit: 10, offset: 0 })).total).toBe(1);
    expect((await listPayouts(deps, principal, { status: 'cancelled', limit: 10, offset: 0 })).items.map((p) => p.payout_id)).toEqual([
      held,
    ]);
    expect(w.table.payoutCounters.get(`${merchantId}|test`)).toEqual({
      total: 3,
      processing: 0,
      pending: 0,
      completed: 1,
      failed: 1,
      cancelled: 1,
    });
    expect(balanceOf(w, merchantId)).toBe(ledgerSum(w, merchantId));
    expect(balanceOf(w, merchantId)).toBe(99000);
  });

  it('balances are per currency and per mode', async () => {
    await topUp(10, 'BRL');
    await topUp(20, 'MXN');
    expect((await balances(deps, principal)).map((b) => [b.currency, b.available_minor])).toEqual([
      ['BRL', 1000],
      ['MXN', 2000],
    ]);
    const live = (await memoryMerchant(w, {}, 'live')).principal;
    expect(await balances(deps, live)).toEqual([]);
  });
});
