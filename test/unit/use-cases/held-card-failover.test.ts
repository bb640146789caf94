/**
 * Routing and failover of live cards (DESIGN.md 9.2), against the in-memory ports and scripted card providers (an
 * `adyen` that cannot be read back, a `dlocal` that can): a payment goes on to the next provider only when its
 * attempt certainly moved nothing (never sent, a documented "not processed" that is not about the payer, or no
 * answer and a read-back that finds nothing), or once on a soft decline; never on a hard decline, a 3-D Secure
 * redirect, a timeout at a provider without read-back, nor without a routing rule. An abandoned attempt found later
 * is cancelled, or its money refunded in full, and pages; the job settles a payment by its own attempt's provider.
 */
import { createDirectPayment } from '../../../shared/application/payins';
import type { Principal } from '../../../shared/application/access';
import type { AttemptObserver, PaymentDeps } from '../../../shared/application/ports';
import {
  ProviderRejected,
  ProviderUnavailable,
  type CardRail,
  type Connectors,
  type HeldCardConnector,
  type HeldCardOutcome,
  type HeldCardReadBack,
  type HeldCardRequest,
  type LocalRefundConnector,
} from '../../../shared/application/providers';
import { heldCheck, reconcileHeldPayments } from '../../../shared/application/rails';
import { attemptsOfPayment, breakers } from '../../../shared/application/routing';
import { providerAttemptsOf } from '../../../shared/domain/payments/provider-attempts';
import { card, directInput, errorCode, memoryMerchant, memoryPaymentDeps, memoryWorld, type MemoryWorld } from '../../support/in-memory';

let w: MemoryWorld;
let deps: PaymentDeps;
let principal: Principal;
let n = 0;
const newPaymentId = () => `pi_${Buffer.from(String(++n).padStart(16, '0')).toString('base64url')}`;
const approved = (psp: string): HeldCardOutcome => ({ kind: 'approved', authorizationCode: `auth-${psp}`, pspReference: psp });
const declined = (soft: boolean): HeldCardOutcome => ({
  kind: 'declined',
  code: 'CARD_DECLINED',
  message: 'The card was declined.',
  providerCode: soft ? 'acquirer_error' : 'do_not_honor',
  ...(soft ? { soft: true as const } : {}),
});

/** A card provider whose answers are scripted, holding what it decided per reference (for read-backs and cancels). */
class ScriptedCards implements HeldCardConnector {
  readonly provider: HeldCardConnector['provider'];
  readonly cancelAfterSeconds = 600;
  readonly requests: HeldCardRequest[] = [];
  readonly cancels: string[] = [];
  readonly held = new Map<string, HeldCardReadBack>();
  answer: (req: HeldCardRequest) => Promise<HeldCardOutcome> = async (req) => approved(`${this.name}-${req.reference}`);
  readBackFails = false;
  readBack?: HeldCardConnector['readBack'];
  /** As dLocal's: its 3-D Secure page is a plain GET the shopper is sent to directly. */
  readonly redirectsDirectly: boolean;
  constructor(
    readonly name: string,
    readable: boolean,
  ) {
    this.provider = { name, reference: (id: string, attempt = 1) => `${name}-${attempt}-${id}` };
    this.redirectsDirectly = readable;
    if (readable)
      this.readBack = async (_id, o) => {
        if (this.readBackFails) throw new ProviderUnavailable(name, 'order', 'no answer');
        return this.held.get(o?.reference ?? '') ?? { kind: 'not_found' };
      };
  }
  async authorize(req: HeldCardRequest) {
    this.requests.push(req);
    const o = await this.answer(req);
    this.held.set(req.reference!, o);
    return o;
  }
  async completeRedirect(req: { paymentId: string; reference?: string }): Promise<HeldCardOutcome> {
    const s = this.held.get(req.reference ?? '');
    return s && s.kind !== 'not_found' ? s : { kind: 'pending' };
  }
  async cancelByReference(_id: string, o: { reference?: string } = {}) {
    const ref = o.reference ?? '';
    this.cancels.push(ref);
    const s = this.held.get(ref);
    if (s?.kind === 'approved') throw new ProviderRejected(this.name, 'cancel', 'paid_refund_required', 0);
    if (s && s.kind !== 'not_found') this.held.set(ref, declined(false));
  }
}

/** dLocal-like refunds: read back by our refund first, then sent; answered at once. */
class ScriptedRefunds implements LocalRefundConnector {
  readonly sent: Array<{ providerPaymentId: string; refundId: string; amountMinor: number }> = [];
  readonly provider = { name: 'dlocal', reference: (id: string) => id };
  async get(req: { refundId: string }) {
    return this.sent.some((s) => s.refundId === req.refundId) ? ({ refundId: req.refundId, kind: 'succeeded', at: 'x' } as const) : null;
  }
  async send(req: { providerPaymentId: string; refundId: string; amountMinor: number }) {
    this.sent.push(req);
    return { refundId: req.refundId, kind: 'pending' as const };
  }
}

const unreachable = (name: string) => new ProviderUnavailable(name, 'payments', 'connection refused', true);
const timeout = (name: string) => new ProviderUnavailable(name, 'payments', 'no answer within 10000 ms');
const fail = (e: Error) => async (): Promise<HeldCardOutcome> => {
  throw e;
};

let adyen: ScriptedCards;
let dlocal: ScriptedCards;
let third: ScriptedCards;
let refunds: ScriptedRefunds;
let rails: CardRail[];
let rule: string[] | null;
const seen: string[] = [];
const observer: AttemptObserver = {
  attempt: (p, _k, r) => void seen.push(`${p}:${r}`),
  breakerChanged: (p, _k, to) => void seen.push(`${p}:breaker:${to}`),
  failedOver: (p, _k, code) => void seen.push(`${p}:failover:${code}`),
  lateSuccess: (p, _k, how) => void seen.push(`${p}:late:${how}`),
};

beforeEach(async () => {
  breakers.reset();
  seen.length = 0;
  w = memoryWorld();
  adyen = new ScriptedCards('adyen', false);
  dlocal = new ScriptedCards('dlocal', true);
  third = new ScriptedCards('acquirer3', true);
  refunds = new ScriptedRefunds();
  rule = ['adyen', 'dlocal'];
  rails = [{ cards: adyen }, { cards: dlocal, refunds, routedOnly: true }, { cards: third, routedOnly: true }];
  const live = (): Connectors => ({ cardRails: rails, route: (kind) => (kind === 'card' ? rule : null) });
  deps = { ...memoryPaymentDeps(w), attempts: observer, connectors: { forMode: async (livemode) => (livemode ? live() : null) } };
  ({ principal } = await memoryMerchant(w, {}, 'live'));
});

const pay = (id = newPaymentId()) =>
  createDirectPayment(deps, principal, directInput({ payment_method: 'card', amount: 50, card: card('4111111111111111') }), id);
const stored = async (id: string) => (await deps.store.getPayment(id))!;

describe('fails over only when the attempt certainly moved nothing', () => {
  it('never sent (connection refused): dLocal serves as attempt 2, with the payer’s document; both attempts shown', async () => {
    adyen.answer = fail(unreachable('adyen'));
    const p = await pay();
    expect(p).toMatchObject({ status: 'success', provider: { name: 'dlocal', reference: `dlocal-2-${p.payment_id}`, attempt: 2 } });
    expect(dlocal.requests[0]).toMatchObject({ reference: `dlocal-2-${p.payment_id}`, payer: { document: expect.any(String) } });
    expect(dlocal.requests[0]?.notificationUrl).toMatch(/\/providers\/dlocal\/notifications$/);
    expect(providerAttemptsOf(await stored(p.payment_id))).toEqual([
      { provider: 'adyen', outcome: 'failed', failure_code: 'provider_unreachable' },
      { provider: 'dlocal', outcome: 'succeeded' },
    ]);
    expect(seen).toEqual(['adyen:no_answer', 'adyen:failover:provider_unreachable', 'dlocal:approved']);
  });

  it('a documented "not processed" refusal: the next provider serves; one about the payer fails the payment there', async () => {
    adyen.answer = fail(new ProviderRejected('adyen', 'payments', 'invalid_request', 422, true));
    expect((await pay()).provider?.name).toBe('dlocal');
    rule = ['dlocal', 'adyen'];
    dlocal.answer = fail(new ProviderRejected('dlocal', 'payments', 'payer_not_allowed', 400, true, true));
    const id = newPaymentId();
    expect(await errorCode(pay(id))).toBe('PROVIDER_REJECTED');
    expect(await stored(id)).toMatchObject({ status: 'failed', provider: { name: 'dlocal' } });
    expect(adyen.requests).toHaveLength(1);
  });

  it('a soft decline goes to the next acquirer once per payment; a second soft decline fails the payment', async () => {
    rule = ['dlocal', 'adyen', 'acquirer3'];
    dlocal.answer = async () => declined(true);
    adyen.answer = async () => declined(true);
    const id = newPaymentId();
    expect(await errorCode(pay(id))).toBe('CARD_DECLINED');
    const p = await stored(id);
    expect(p).toMatchObject({ status: 'failed', failure_code: 'CARD_DECLINED', provider: { name: 'adyen', attempt: 2 } });
    expect(third.requests).toHaveLength(0);
    expect(providerAttemptsOf(p)).toEqual([
      { provider: 'dlocal', outcome: 'failed', failure_code: 'soft_decline' },
      { provider: 'adyen', outcome: 'failed', failure_code: 'card_declined' },
    ]);
    adyen.answer = async (req) => approved(`adyen-${req.reference}`);
    const ok = await pay();
    expect(ok.provider).toMatchObject({ name: 'adyen', attempt: 2 });
    // `providers stats`: the soft decline counts as dLocal's decline, each call with its latency.
    expect(attemptsOfPayment(await stored(ok.payment_id))).toEqual([
      { provider: 'dlocal', kind: 'card', result: 'declined', latencyMs: expect.any(Number) },
      { provider: 'adyen', kind: 'card', result: 'approved', latencyMs: expect.any(Number) },
    ]);
  });

  it('a hard decline: the payment fails there, the next provider is never called', async () => {
    adyen.answer = async () => declined(false);
    const id = newPaymentId();
    expect(await errorCode(pay(id))).toBe('CARD_DECLINED');
    const p = await stored(id);
    expect(p).toMatchObject({ status: 'failed', failure_code: 'CARD_DECLINED', provider: { name: 'adyen' } });
    expect(dlocal.requests).toHaveLength(0);
  });

  it('a 3-D Secure redirect: the shopper is sent there, never to another provider', async () => {
    const redirect = { url: 'https://acs.example/3ds', method: 'GET' as const, data: {} };
    adyen.answer = async () => ({ kind: 'redirect', redirect, pspReference: 'PSP1' });
    const p = await pay();
    expect(p).toMatchObject({ status: 'pending_3ds', provider: { name: 'adyen' } });
    expect(p.redirect_url).toMatch(/\/providers\/adyen\/3ds\//);
    expect(dlocal.requests).toHaveLength(0);
    // dLocal's page is a plain GET: the shopper is sent to it directly.
    rule = ['dlocal'];
    dlocal.answer = async () => ({ kind: 'redirect', redirect, pspReference: 'D-1' });
    expect((await pay()).redirect_url).toBe('https://acs.example/3ds');
  });

  it('an Adyen timeout (no read-back to prove nothing happened): 502, processing at Adyen, no failover', async () => {
    adyen.answer = fail(timeout('adyen'));
    const id = newPaymentId();
    expect(await errorCode(pay(id))).toBe('PROVIDER_UNAVAILABLE');
    expect(dlocal.requests).toHaveLength(0);
    expect(await stored(id)).toMatchObject({ status: 'processing', provider: { name: 'adyen', reference: `adyen-1-${id}` } });
  });

  it('a dLocal timeout whose read-back finds the payment: no failover, it goes on with what was found', async () => {
    rule = ['dlocal', 'adyen'];
    dlocal.answer = async (req) => {
      dlocal.held.set(req.reference!, approved('D-9'));
      throw timeout('dlocal');
    };
    const p = await pay();
    expect(p).toMatchObject({ status: 'success', provider: { name: 'dlocal', details: { psp_reference: 'D-9' } } });
    expect(adyen.requests).toHaveLength(0);
  });

  it('no routing rule: Adyen alone, as before routing; dLocal alone serves only when a rule names it', async () => {
    rule = null;
    adyen.answer = fail(unreachable('adyen'));
    expect(await errorCode(pay())).toBe('PROVIDER_UNAVAILABLE');
    expect(dlocal.requests).toHaveLength(0);
    rails = rails.filter((r) => r.cards !== adyen);
    expect(await errorCode(pay())).toBe('METHOD_NOT_AVAILABLE');
    rule = ['dlocal'];
    expect((await pay()).provider?.name).toBe('dlocal');
  });

  it('a keyed retry of an unanswered payment repeats its current attempt, never a new one elsewhere', async () => {
    adyen.answer = fail(unreachable('adyen'));
    dlocal.answer = fail(timeout('dlocal'));
    dlocal.readBackFails = true;
    const id = newPaymentId();
    expect(await errorCode(pay(id))).toBe('PROVIDER_UNAVAILABLE');
    dlocal.answer = async () => approved('D-2');
    const again = await pay(id);
    expect(again).toMatchObject({ status: 'success', provider: { name: 'dlocal', attempt: 2 } });
    expect(dlocal.requests.map((r) => r.reference)).toEqual([`dlocal-2-${id}`, `dlocal-2-${id}`]);
    expect(adyen.requests).toHaveLength(1);
  });
});

describe('the breaker', () => {
  it('three no-answers in a row pause Adyen: the next payment skips it (shown as skipped) and starts at dLocal', async () => {
    adyen.answer = fail(unreachable('adyen'));
    for (let i = 0; i < 3; i++) await pay();
    expect(seen).toContain('adyen:breaker:open');
    const calls = adyen.requests.length;
    const p = await pay();
    expect(adyen.requests).toHaveLength(calls);
    expect(p.provider).toMatchObject({ name: 'dlocal', reference: `dlocal-1-${p.payment_id}` });
    expect(providerAttemptsOf(p)).toEqual([
      { provider: 'adyen', outcome: 'skipped', failure_code: 'provider_paused' },
      { provider: 'dlocal', outcome: 'succeeded' },
    ]);
  });
});

describe('an abandoned attempt (dLocal timeout, read-back found nothing) is watched', () => {
  const failOverAfterTimeout = async () => {
    rule = ['dlocal', 'adyen'];
    let late: HeldCardRequest | undefined;
    dlocal.answer = async (req) => {
      late = req;
      throw timeout('dlocal');
    };
    const p = await pay();
    expect(p).toMatchObject({ status: 'success', provider: { name: 'adyen', attempt: 2 } });
    expect(providerAttemptsOf(p)[0]).toEqual({ provider: 'dlocal', outcome: 'failed', failure_code: 'provider_no_answer' });
    return { p, late: late!.reference! };
  };

  it('paid there after all: refunded in full through dLocal, once, and pages; the payment stays at Adyen', async () => {
    const { p, late } = await failOverAfterTimeout();
    dlocal.held.set(late, approved('D-LATE'));
    w.clock.advanceMinutes(2);
    expect(await reconcileHeldPayments(deps, w.clock.now())).toMatchObject({ watched: 1 });
    expect(refunds.sent).toEqual([expect.objectContaining({ providerPaymentId: 'D-LATE', amountMinor: 5000 })]);
    expect(seen).toContain('dlocal:late:refunded');
    w.clock.advanceMinutes(5);
    expect(await reconcileHeldPayments(deps, w.clock.now())).toMatchObject({ watched: 1, undone: 1 });
    w.clock.advanceMinutes(30);
    expect(await reconcileHeldPayments(deps, w.clock.now())).toMatchObject({ watched: 0 });
    expect(refunds.sent).toHaveLength(1);
    expect((await stored(p.payment_id)).provider?.name).toBe('adyen');
  });

  it('open there (pending, 3-D Secure unfinished): cancelled by its reference, and pages', async () => {
    const { late } = await failOverAfterTimeout();
    dlocal.held.set(late, { kind: 'pending', pspReference: 'D-OPEN' });
    w.clock.advanceMinutes(2);
    expect(await reconcileHeldPayments(deps, w.clock.now())).toMatchObject({ watched: 1, undone: 1 });
    expect(dlocal.cancels).toEqual([late]);
    expect(seen).toContain('dlocal:late:cancelled');
  });

  it('nothing there through the window: the watch ends without touching anything', async () => {
    await failOverAfterTimeout();
    for (let i = 0; i < 5; i++) {
      w.clock.advanceMinutes(5);
      await reconcileHeldPayments(deps, w.clock.now());
    }
    expect(await deps.store.dueAttemptWatches(new Date(w.clock.now().getTime() + 86_400_000).toISOString(), 10)).toEqual([]);
    expect(refunds.sent).toHaveLength(0);
    expect(dlocal.cancels).toHaveLength(0);
  });
});

describe('the job follows the payment’s own attempt', () => {
  // The memory store keeps no work index: the job's step for one payment (held.ts's card row), as the job runs it.
  const check = async (id: string) => heldCheck(await deps.connectors.forMode(true), id, await stored(id))!(deps, w.clock.now(), {});

  it('a dLocal payment left processing is read back and settled; an Adyen one is cancelled by its attempt’s reference', async () => {
    rule = ['dlocal'];
    dlocal.answer = fail(timeout('dlocal'));
    const id = newPaymentId();
    expect(await errorCode(pay(id))).toBe('PROVIDER_UNAVAILABLE');
    w.clock.advanceMinutes(1);
    expect(await check(id)).toBe('waiting');
    dlocal.held.set(`dlocal-1-${id}`, approved('D-5'));
    expect(await check(id)).toBe('settled');
    expect(await stored(id)).toMatchObject({ status: 'success', provider: { name: 'dlocal' } });

    rule = ['adyen'];
    adyen.answer = fail(timeout('adyen'));
    const aid = newPaymentId();
    await errorCode(pay(aid));
    expect(await check(aid)).toBe('waiting');
    expect(adyen.cancels).toEqual([]);
    w.clock.advanceMinutes(11);
    expect(await check(aid)).toBe('failed');
    expect(adyen.cancels).toEqual([`adyen-1-${aid}`]);
    expect(await stored(aid)).toMatchObject({ status: 'failed', failure_code: 'PROVIDER_UNAVAILABLE' });
  });
});
