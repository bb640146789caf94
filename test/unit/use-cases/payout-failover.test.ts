/**
 * Routed PIX payouts (DESIGN.md 9.2), against the in-memory ports and two scripted providers: a payout goes on to the
 * next provider only when its send certainly made nothing (never sent; a documented "not processed"), with the next
 * order prepared under its own reference and committed before it is sent; never on a timeout (a PIX sent cannot be
 * called back, so an unanswered send stays with its provider), never on another refusal, never without a rule.
 */
import type { Principal } from '../../../shared/application/access';
import { createPayout, type PayoutDeps } from '../../../shared/application/payouts';
import {
  ProviderRejected,
  ProviderUnavailable,
  type Connectors,
  type PayoutConnector,
  type ProviderOrderState,
} from '../../../shared/application/providers';
import { breakers } from '../../../shared/application/routing';
import {
  errorCode,
  ledgerSum,
  memoryMerchant,
  memoryPayoutDeps,
  memoryWorld,
  payoutInput,
  type MemoryWorld,
} from '../../support/in-memory';

/** A provider holding orders by reference; `next` scripts how its next register fails. */
function scripted(name: string) {
  const held = new Map<string, ProviderOrderState>();
  const sent: string[] = [];
  const prepared: Array<string | undefined> = [];
  let next: (() => never) | null = null;
  const connector: PayoutConnector = {
    provider: { name, reference: (id, attempt = 1) => `${name}-${attempt}-${id}` },
    prepare(req) {
      prepared.push(req.reference);
      const reference = req.reference ?? `${name}-1-${req.payoutId}`;
      return { order: { reference, summary: { amount: req.amountMinor }, sealed: `sealed:${reference}` } };
    },
    async register(order) {
      sent.push(order.reference);
      const fail = next;
      next = null;
      if (fail) fail();
      held.set(order.reference, { kind: 'pending', orderId: `o-${order.reference}` });
      return { orderId: `o-${order.reference}` };
    },
    async get(reference) {
      return held.get(reference) ?? { kind: 'not_found' };
    },
    returnWatchSeconds: 0,
  };
  return {
    connector,
    sent,
    prepared,
    failWith(e: Error) {
      next = () => {
        throw e;
      };
    },
  };
}

let w: MemoryWorld;
let deps: PayoutDeps;
let principal: Principal;
let efi: ReturnType<typeof scripted>;
let dlocal: ReturnType<typeof scripted>;
let rule: string[] | null;
const failovers: string[] = [];

beforeEach(async () => {
  breakers.reset();
  failovers.length = 0;
  w = memoryWorld();
  efi = scripted('efi');
  dlocal = scripted('dlocal');
  rule = ['efi', 'dlocal'];
  const live: Connectors = {
    pixPayouts: efi.connector,
    pixPayoutRails: [efi.connector, dlocal.connector],
    route: (kind) => (kind === 'pix_payout' ? rule : null),
  };
  deps = {
    ...memoryPayoutDeps(w),
    connectors: { forMode: async (l) => (l ? live : null) },
    attempts: {
      attempt: () => undefined,
      breakerChanged: () => undefined,
      lateSuccess: () => undefined,
      failedOver: (p, k, code) => void failovers.push(`${p}:${k}:${code}`),
    },
  };
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

let n = 0;
const newId = () => `po_${Buffer.from(String(++n).padStart(16, '0')).toString('base64url')}`;
const pay = (id = newId()) => createPayout(deps, principal, payoutInput({ amount: 50 }), id);
const stored = async (id: string) => (await deps.store.get(id))!;
const balance = () => ledgerSum(w, principal.merchant.merchant_id, 'BRL', 'live');

describe('a payout fails over only when its send certainly made nothing', () => {
  it('never sent (connection refused): the next provider pays it under its attempt-2 reference, committed first; paid once', async () => {
    efi.failWith(new ProviderUnavailable('efi', 'send', 'connection refused', true));
    const id = newId();
    const p = await pay(id);
    expect(p).toMatchObject({ status: 'processing', provider: { name: 'dlocal', reference: `dlocal-2-${id}`, attempt: 2 } });
    expect(dlocal.prepared).toEqual([`dlocal-2-${id}`]);
    expect(dlocal.sent).toEqual([`dlocal-2-${id}`]);
    expect((await stored(id)).ended_attempts).toEqual([
      expect.objectContaining({ provider: 'efi', outcome: 'failed', failure_code: 'provider_unreachable', reference: `efi-1-${id}` }),
    ]);
    expect(failovers).toEqual(['efi:pix_payout:provider_unreachable']);
    expect(balance()).toBe(1_000_000 - 5000);
  });

  it('a documented "not processed" refusal (our balance there): the next provider pays it', async () => {
    efi.failWith(new ProviderRejected('efi', 'send', 'provider_balance_insufficient', 422, true));
    const p = await pay();
    expect(p.provider?.name).toBe('dlocal');
  });

  it('no answer: never a failover (a PIX sent cannot be called back); 502, processing at the first provider', async () => {
    efi.failWith(new ProviderUnavailable('efi', 'send', 'no answer within 10000 ms'));
    const id = newId();
    expect(await errorCode(pay(id))).toBe('PROVIDER_UNAVAILABLE');
    expect(dlocal.sent).toEqual([]);
    expect(await stored(id)).toMatchObject({ status: 'processing', provider: { name: 'efi' } });
  });

  it('another refusal: the payout fails and is credited back; the next provider is never asked', async () => {
    efi.failWith(new ProviderRejected('efi', 'send', 'invalid_account', 422, false));
    const id = newId();
    expect(await errorCode(pay(id))).toBe('PROVIDER_REJECTED');
    expect(dlocal.sent).toEqual([]);
    expect(await stored(id)).toMatchObject({ status: 'failed' });
    expect(balance()).toBe(1_000_000);
  });

  it('no routing rule: the first provider alone, as before routing', async () => {
    rule = null;
    efi.failWith(new ProviderUnavailable('efi', 'send', 'connection refused', true));
    expect(await errorCode(pay())).toBe('PROVIDER_UNAVAILABLE');
    expect(dlocal.sent).toEqual([]);
  });

  it('both refusing: the last attempt ends as before (502, processing at the second, never sent twice anywhere)', async () => {
    efi.failWith(new ProviderUnavailable('efi', 'send', 'connection refused', true));
    dlocal.failWith(new ProviderUnavailable('dlocal', 'payouts', 'connection refused', true));
    const id = newId();
    expect(await errorCode(pay(id))).toBe('PROVIDER_UNAVAILABLE');
    expect(await stored(id)).toMatchObject({ status: 'processing', provider: { name: 'dlocal', attempt: 2 } });
    expect([...efi.sent, ...dlocal.sent]).toEqual([`efi-1-${id}`, `dlocal-2-${id}`]);
  });
});

describe('the breaker', () => {
  it('three sends without an answer pause the provider: the next payout starts at the second, the first shown skipped', async () => {
    for (let i = 0; i < 3; i++) {
      efi.failWith(new ProviderUnavailable('efi', 'send', 'connection refused', true));
      await pay();
    }
    const id = newId();
    const p = await pay(id);
    expect(efi.sent).toHaveLength(3);
    expect(p.provider).toMatchObject({ name: 'dlocal', reference: `dlocal-1-${id}` });
    expect((await stored(id)).ended_attempts).toEqual([
      expect.objectContaining({ provider: 'efi', outcome: 'skipped', failure_code: 'provider_paused' }),
    ]);
  });
});
