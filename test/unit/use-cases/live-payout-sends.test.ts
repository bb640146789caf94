/**
 * One send per live payout, whatever races it: the creating request's send still in flight while the resume job
 * reads the order back, two settle steps of one payout at once (a message redelivered, the job run twice), and a
 * sender that died holding its claim. Against the in-memory ports and a provider that counts every registration
 * (a real one refuses a second order with one reference; here a second registration is the defect measured).
 */
import type { Principal } from '../../../shared/application/access';
import { createPayout, runSettlementStep, SEND_LEASE_SECONDS, type PayoutDeps } from '../../../shared/application/payouts';
import { ProviderUnavailable, type PayoutConnector, type ProviderOrderState } from '../../../shared/application/providers';
import { AppError } from '../../../shared/domain/errors';
import { ledgerSum, memoryMerchant, memoryPayoutDeps, memoryWorld, payoutInput, type MemoryWorld } from '../../support/in-memory';

/** A provider that holds orders by reference; `gate` holds the next read-backs until released. */
function countingProvider() {
  const held = new Map<string, ProviderOrderState>();
  const registrations: string[] = [];
  let failNext: 'unavailable' | 'never' | null = null;
  let gate: Promise<void> | null = null;
  let open: () => void = () => undefined;
  const connector: PayoutConnector = {
    provider: { name: 'counting', reference: (id) => `ref-${id}` },
    prepare: (req) => ({ order: { reference: `ref-${req.payoutId}`, summary: { amount: req.amountMinor }, sealed: 'sealed' } }),
    async register(order) {
      registrations.push(order.reference);
      const fault = failNext;
      failNext = null;
      if (fault === 'unavailable') throw new ProviderUnavailable('counting', 'register', 'timeout');
      if (fault === 'never') return new Promise(() => undefined);
      if (held.has(order.reference)) return { duplicate: true };
      held.set(order.reference, { kind: 'pending', orderId: `o-${order.reference}` });
      return { orderId: `o-${order.reference}` };
    },
    async get(reference) {
      if (gate) await gate;
      return held.get(reference) ?? { kind: 'not_found' };
    },
    returnWatchSeconds: 0,
  };
  return {
    connector,
    registrations,
    sends: (payoutId: string) => registrations.filter((r) => r === `ref-${payoutId}`).length,
    fail(how: 'unavailable' | 'never') {
      failNext = how;
    },
    holdReads() {
      gate = new Promise((resolve) => (open = resolve));
    },
    releaseReads() {
      gate = null;
      open();
    },
    /** A registration that never answered (its sender died) but reached the provider all the same. */
    hold(reference: string) {
      held.set(reference, { kind: 'pending', orderId: `o-${reference}` });
    },
  };
}

let w: MemoryWorld;
let deps: PayoutDeps;
let principal: Principal;
let provider: ReturnType<typeof countingProvider>;

beforeEach(async () => {
  w = memoryWorld();
  provider = countingProvider();
  deps = { ...memoryPayoutDeps(w), connectors: { forMode: async (live) => (live ? { pixPayouts: provider.connector } : null) } };
  ({ principal } = await memoryMerchant(w, {}, 'live'));
  await deps.store.topUp({
    merchantId: principal.merchant.merchant_id,
    livemode: true,
    currency: 'BRL',
    amountMinor: 1_000_000,
    entryId: 'le_funding',
    reason: 'test_top_up',
    now: w.clock.iso(),
  });
});

const create = async () => {
  const id = w.ids.newId('po_');
  try {
    await createPayout(deps, principal, payoutInput(), id);
  } catch (e) {
    if (!(e instanceof AppError) || e.code !== 'PROVIDER_UNAVAILABLE') throw e;
  }
  return id;
};
const settle = (id: string) => runSettlementStep(deps, id, 'settle');
const ledgerHolds = () => {
  const merchantId = principal.merchant.merchant_id;
  expect(ledgerSum(w, merchantId, 'BRL', 'live')).toBe(w.table.balanceOf(merchantId, 'live', 'BRL'));
};

describe('a live payout is sent once', () => {
  it('the creating request’s send still in flight: the resume step reads it back and does not send it again', async () => {
    provider.fail('never');
    const id = w.ids.newId('po_');
    void createPayout(deps, principal, payoutInput(), id);
    for (let i = 0; i < 20 && provider.sends(id) === 0; i++) await new Promise((r) => setImmediate(r));
    expect(provider.sends(id)).toBe(1);
    // The job finds it processing; the provider does not hold it yet (the request is still on its way).
    const p = await settle(id);
    expect(p?.status).toBe('processing');
    expect(provider.sends(id)).toBe(1);
    ledgerHolds();
  });

  it('two settle steps of one unanswered payout at once: one reads back under its claim and sends; the other sends nothing', async () => {
    provider.fail('unavailable');
    const id = await create();
    expect(provider.sends(id)).toBe(1);
    // The first send never reached the provider. Both steps read back "none" before either sends.
    provider.holdReads();
    const racing = [settle(id), settle(id)];
    await new Promise((r) => setImmediate(r));
    provider.releaseReads();
    await Promise.all(racing);
    expect(provider.sends(id)).toBe(2); // the creating send, then exactly one resend
    expect((await deps.store.get(id))?.status).toBe('processing');
    ledgerHolds();
  });

  it('a sender that died holding its claim: nobody sends until the lease lapses; then one read-back finds what it sent', async () => {
    provider.fail('never');
    const id = w.ids.newId('po_');
    void createPayout(deps, principal, payoutInput(), id);
    for (let i = 0; i < 20 && provider.sends(id) === 0; i++) await new Promise((r) => setImmediate(r));
    await settle(id);
    expect(provider.sends(id)).toBe(1);
    // Its request had reached the provider after all.
    provider.hold(`ref-${id}`);
    w.clock.advance((SEND_LEASE_SECONDS + 1) * 1000);
    await settle(id);
    expect(provider.sends(id)).toBe(1);
    expect((await deps.store.get(id))?.provider?.details.order_id).toBe(`o-ref-${id}`);
  });

  it('a sender that died before its request left: after the lease the resume step sends it once', async () => {
    provider.fail('never');
    const id = w.ids.newId('po_');
    void createPayout(deps, principal, payoutInput(), id);
    for (let i = 0; i < 20 && provider.sends(id) === 0; i++) await new Promise((r) => setImmediate(r));
    provider.registrations.length = 0; // that request never left the machine
    await settle(id);
    expect(provider.sends(id)).toBe(0);
    w.clock.advance((SEND_LEASE_SECONDS + 1) * 1000);
    await Promise.all([settle(id), settle(id)]);
    expect(provider.sends(id)).toBe(1);
    ledgerHolds();
  });
});
