/**
 * Routing and failover of live PIX (DESIGN.md 9.2), against the in-memory ports and two scripted PSPs: a payment
 * goes on to the next PSP only when its attempt certainly moved nothing (never sent, a documented "not processed",
 * or no answer and a read-back that finds nothing), each attempt with its own reference committed before its call;
 * never on a timeout whose read-back finds the charge, never on another refusal, never without a routing rule; a PSP
 * that keeps not answering is skipped; an abandoned attempt found later is removed, or its money returned.
 */
import { createDirectPayment } from '../../../shared/application/payins';
import type { Principal } from '../../../shared/application/access';
import type { AttemptObserver, PaymentDeps } from '../../../shared/application/ports';
import {
  ProviderRejected,
  ProviderUnavailable,
  type Connectors,
  type PixChargeRequest,
  type PixChargeState,
  type PixConnector,
  type PixRefundConnector,
  type ProviderRefundState,
} from '../../../shared/application/providers';
import { reconcileHeldPayments } from '../../../shared/application/rails';
import { breakers } from '../../../shared/application/routing';
import { providerAttemptsOf } from '../../../shared/domain/payments/provider-attempts';
import { directInput, errorCode, memoryMerchant, memoryPaymentDeps, memoryWorld, type MemoryWorld } from '../../support/in-memory';

let w: MemoryWorld;
let deps: PaymentDeps;
let principal: Principal;
let n = 0;
const newPaymentId = () => `pi_${Buffer.from(String(++n).padStart(16, '0')).toString('base64url')}`;
const charge = (txid: string) => ({ pixCode: `000201...${txid}`, txid });

/** A PSP whose create answers are scripted, holding what it created (or what a lost answer left) for read-backs. */
class ScriptedPsp implements PixConnector {
  readonly provider: NonNullable<PixConnector['provider']>;
  readonly requests: PixChargeRequest[] = [];
  readonly held = new Map<string, PixChargeState>();
  create: (req: PixChargeRequest) => Promise<void> = async () => {};
  readBackFails = false;
  constructor(readonly name: string) {
    this.provider = { name, reference: (id: string, attempt = 1) => `${name}-${attempt}-${id}` };
  }
  async createCharge(req: PixChargeRequest) {
    this.requests.push(req);
    await this.create(req);
    const ref = req.reference ?? this.provider.reference(req.paymentId);
    this.held.set(ref, { kind: 'open', charge: charge(ref), expiresAt: req.expiresAt });
    return charge(ref);
  }
  async getCharge(reference: string): Promise<PixChargeState> {
    if (this.readBackFails) throw new ProviderUnavailable(this.name, 'getCob', 'no answer');
    return this.held.get(reference) ?? { kind: 'not_found' };
  }
  async removeCharge(reference: string): Promise<PixChargeState> {
    const s = this.held.get(reference);
    if (s?.kind !== 'open') return s ?? { kind: 'not_found' };
    this.held.set(reference, { kind: 'removed', received: [] });
    return { kind: 'removed', received: [] };
  }
}

class ScriptedRefunds implements PixRefundConnector {
  readonly sent: Array<{ endToEndId: string; refundId: string; amountMinor: number }> = [];
  constructor(readonly provider: PixRefundConnector['provider']) {}
  async send(req: { endToEndId: string; refundId: string; amountMinor: number }): Promise<ProviderRefundState> {
    this.sent.push(req);
    return { refundId: req.refundId, kind: 'succeeded', at: '2026-01-01T00:00:00Z' };
  }
  async get(req: { refundId: string }) {
    return this.sent.some((s) => s.refundId === req.refundId) ? ({ refundId: req.refundId, kind: 'succeeded', at: 'x' } as const) : null;
  }
}

const unreachable = (name: string) => new ProviderUnavailable(name, 'putCob', 'connection refused', true);
const timeout = (name: string) => new ProviderUnavailable(name, 'putCob', 'no answer within 10000 ms');

let a: ScriptedPsp;
let b: ScriptedPsp;
let refundsA: ScriptedRefunds;
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
  a = new ScriptedPsp('api_pix');
  b = new ScriptedPsp('efi');
  refundsA = new ScriptedRefunds({ name: 'api_pix', reference: (id) => id });
  rule = ['api_pix', 'efi'];
  const live: Connectors = {
    pixRails: [{ charges: a, refunds: refundsA }, { charges: b }],
    route: (kind) => (kind === 'pix' ? rule : null),
  };
  deps = { ...memoryPaymentDeps(w), attempts: observer, connectors: { forMode: async (livemode) => (livemode ? live : null) } };
  ({ principal } = await memoryMerchant(w, {}, 'live'));
});

const pay = (id = newPaymentId()) => createDirectPayment(deps, principal, directInput({ payment_method: 'pix', amount: 50 }), id);
const stored = async (id: string) => (await deps.store.getPayment(id))!;

describe('fails over only when the attempt certainly moved nothing', () => {
  it('connection refused before sending: the next PSP serves, with attempt 2 reference; both attempts shown', async () => {
    a.create = async () => {
      throw unreachable('api_pix');
    };
    const p = await pay();
    expect(p).toMatchObject({ status: 'pending', provider: { name: 'efi', reference: `efi-2-${p.payment_id}`, attempt: 2 } });
    expect(b.requests[0]?.reference).toBe(`efi-2-${p.payment_id}`);
    expect(providerAttemptsOf(await stored(p.payment_id))).toEqual([
      { provider: 'api_pix', outcome: 'failed', failure_code: 'provider_unreachable' },
      { provider: 'efi', outcome: 'pending' },
    ]);
    expect(seen).toEqual(['api_pix:no_answer', 'api_pix:failover:provider_unreachable', 'efi:pending']);
  });

  it('a documented "not processed" refusal: the next PSP serves', async () => {
    a.create = async () => {
      throw new ProviderRejected('api_pix', 'putCob', 'cob_operacao_invalida', 400, true);
    };
    const p = await pay();
    expect(p.provider?.name).toBe('efi');
  });

  it('a refusal not documented as "not processed": the payment fails, the next PSP is never called', async () => {
    a.create = async () => {
      throw new ProviderRejected('api_pix', 'putCob', 'txid_in_use', 409, false);
    };
    const id = newPaymentId();
    expect(await errorCode(pay(id))).toBe('PROVIDER_REJECTED');
    expect(b.requests).toHaveLength(0);
    expect(await stored(id)).toMatchObject({ status: 'failed', provider: { name: 'api_pix' } });
  });

  it('a timeout whose read-back finds the charge: no failover, the payment goes on with the charge found', async () => {
    a.create = async (req) => {
      a.held.set(req.reference!, { kind: 'open', charge: charge(req.reference!), expiresAt: req.expiresAt });
      throw timeout('api_pix');
    };
    const p = await pay();
    expect(p).toMatchObject({
      status: 'pending',
      provider: { name: 'api_pix' },
      artefact: { pix_code: `000201...api_pix-1-${p.payment_id}` },
    });
    expect(b.requests).toHaveLength(0);
  });

  it('a timeout whose read-back finds the charge paid: no failover (the paid attempt is the payment)', async () => {
    a.create = async (req) => {
      a.held.set(req.reference!, {
        kind: 'paid',
        charge: charge(req.reference!),
        received: [{ endToEndId: 'E1', amountMinor: 5000, paidAt: w.clock.now().toISOString(), refunds: [], fraudReturns: [] }],
      });
      throw timeout('api_pix');
    };
    const p = await pay();
    expect(p.provider?.name).toBe('api_pix');
    expect(b.requests).toHaveLength(0);
  });

  it('a timeout whose read-back cannot be made: no failover (502, processing at the first PSP)', async () => {
    a.create = async () => {
      throw timeout('api_pix');
    };
    a.readBackFails = true;
    const id = newPaymentId();
    expect(await errorCode(pay(id))).toBe('PROVIDER_UNAVAILABLE');
    expect(b.requests).toHaveLength(0);
    expect(await stored(id)).toMatchObject({ status: 'processing', provider: { name: 'api_pix' } });
  });

  it('no routing rule: the first configured PSP alone, as before routing (502, no failover)', async () => {
    rule = null;
    a.create = async () => {
      throw unreachable('api_pix');
    };
    expect(await errorCode(pay())).toBe('PROVIDER_UNAVAILABLE');
    expect(b.requests).toHaveLength(0);
  });

  it('the last provider failing too ends the payment as before (502, processing at the last attempt)', async () => {
    a.create = async () => {
      throw unreachable('api_pix');
    };
    b.create = async () => {
      throw unreachable('efi');
    };
    const id = newPaymentId();
    expect(await errorCode(pay(id))).toBe('PROVIDER_UNAVAILABLE');
    expect(await stored(id)).toMatchObject({ status: 'processing', provider: { name: 'efi', attempt: 2 } });
  });

  it('a keyed retry of an unanswered payment repeats its current attempt, never a new one elsewhere', async () => {
    a.create = async () => {
      throw unreachable('api_pix');
    };
    b.create = async () => {
      throw timeout('efi');
    };
    b.readBackFails = true;
    const id = newPaymentId();
    expect(await errorCode(pay(id))).toBe('PROVIDER_UNAVAILABLE');
    b.create = async () => {};
    b.readBackFails = false;
    const again = await pay(id);
    expect(again).toMatchObject({ status: 'pending', provider: { name: 'efi', attempt: 2 } });
    expect(b.requests.map((r) => r.reference)).toEqual([`efi-2-${id}`, `efi-2-${id}`]);
    expect(a.requests).toHaveLength(1);
  });
});

describe('the breaker', () => {
  it('three no-answers in a row pause the PSP: the next payment skips it (shown as skipped) and starts at the next', async () => {
    a.create = async () => {
      throw unreachable('api_pix');
    };
    for (let i = 0; i < 3; i++) await pay();
    expect(seen).toContain('api_pix:breaker:open');
    const calls = a.requests.length;
    const p = await pay();
    expect(a.requests).toHaveLength(calls);
    expect(p.provider).toMatchObject({ name: 'efi', reference: `efi-1-${p.payment_id}` });
    expect(providerAttemptsOf(p)).toEqual([
      { provider: 'api_pix', outcome: 'skipped', failure_code: 'provider_paused' },
      { provider: 'efi', outcome: 'pending' },
    ]);
    // After the pause one payment probes it; an answer closes the breaker.
    w.clock.advanceMinutes(1);
    a.create = async () => {};
    expect((await pay()).provider?.name).toBe('api_pix');
    expect(seen).toContain('api_pix:breaker:closed');
  });
});

describe('a late success on an abandoned attempt', () => {
  const failOverAfterTimeout = async () => {
    let late: PixChargeRequest | undefined;
    a.create = async (req) => {
      late = req;
      throw timeout('api_pix');
    };
    const p = await pay();
    expect(p.provider?.name).toBe('efi');
    return { p, late: late! };
  };

  it('a charge that lands after the failover is removed by the watch', async () => {
    const { p, late } = await failOverAfterTimeout();
    a.held.set(late.reference!, { kind: 'open', charge: charge(late.reference!), expiresAt: late.expiresAt });
    w.clock.advanceMinutes(2);
    const r = await reconcileHeldPayments(deps, w.clock.now());
    expect(r).toMatchObject({ watched: 1, undone: 1 });
    expect(a.held.get(late.reference!)?.kind).toBe('removed');
    expect((await stored(p.payment_id)).provider?.name).toBe('efi');
  });

  it('money received there is returned in full, once, and pages', async () => {
    const { late } = await failOverAfterTimeout();
    a.held.set(late.reference!, {
      kind: 'paid',
      charge: charge(late.reference!),
      received: [{ endToEndId: 'E9', amountMinor: 5000, paidAt: w.clock.now().toISOString(), refunds: [], fraudReturns: [] }],
    });
    w.clock.advanceMinutes(2);
    expect(await reconcileHeldPayments(deps, w.clock.now())).toMatchObject({ watched: 1, undone: 1 });
    expect(refundsA.sent).toEqual([expect.objectContaining({ endToEndId: 'E9', amountMinor: 5000 })]);
    expect(seen).toContain('api_pix:late:refunded');
    w.clock.advanceMinutes(20);
    expect(await reconcileHeldPayments(deps, w.clock.now())).toMatchObject({ watched: 0 });
    expect(refundsA.sent).toHaveLength(1);
  });

  it('nothing there through the window: the watch ends without touching anything', async () => {
    await failOverAfterTimeout();
    for (let i = 0; i < 5; i++) {
      w.clock.advanceMinutes(5);
      await reconcileHeldPayments(deps, w.clock.now());
    }
    expect(await deps.store.dueAttemptWatches(new Date(Date.parse(w.clock.now().toISOString()) + 86_400_000).toISOString(), 10)).toEqual(
      [],
    );
    expect(refundsA.sent).toHaveLength(0);
  });
});
