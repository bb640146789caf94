/**
 * Live PIX held by a provider, against the in-memory ports and a scripted connector: the intent is committed
 * before the provider is called; no answer leaves it processing (502 naming it); a refusal fails it; what the
 * provider holds, read back, decides every later move, and only once.
 */
import { getPaymentStatus } from '../../../shared/application/payments';
import { createDirectPayment } from '../../../shared/application/payins';
import type { Principal } from '../../../shared/application/access';
import type { PaymentDeps } from '../../../shared/application/ports';
import {
  ProviderRejected,
  ProviderUnavailable,
  type Connectors,
  type PixChargeRequest,
  type PixChargeState,
  type PixConnector,
} from '../../../shared/application/providers';
import { applyChargeState } from '../../../shared/application/rails';
import {
  balanceOf,
  directInput,
  errorCode,
  memoryMerchant,
  memoryPaymentDeps,
  memoryWorld,
  publishedOf,
  type MemoryWorld,
} from '../../support/in-memory';

let w: MemoryWorld;
let deps: PaymentDeps;
let principal: Principal;
let n = 0;
const newPaymentId = () => `pi_${Buffer.from(String(++n).padStart(16, '0')).toString('base64url')}`;

/** A provider whose next answer each test scripts; every request it got is kept. */
class ScriptedPsp implements PixConnector {
  readonly provider = { name: 'scripted', reference: (id: string) => `ref${id.slice(3)}` };
  readonly requests: PixChargeRequest[] = [];
  next: () => Promise<{ pixCode: string; txid: string }> = async () => ({ pixCode: '000201...PSP', txid: 'tx' });
  async createCharge(req: PixChargeRequest) {
    this.requests.push(req);
    return this.next();
  }
}

let psp: ScriptedPsp;
beforeEach(async () => {
  w = memoryWorld();
  psp = new ScriptedPsp();
  const live: Connectors = { pixRails: [{ charges: psp }] };
  deps = { ...memoryPaymentDeps(w), connectors: { forMode: async (livemode) => (livemode ? live : null) } };
  ({ principal } = await memoryMerchant(w, {}, 'live'));
});

const pay = (id = newPaymentId()) => createDirectPayment(deps, principal, directInput({ payment_method: 'pix', amount: 50 }), id);
const stored = async (id: string) => (await deps.store.getPayment(id))!;
const charge = { pixCode: '000201...PSP', txid: 'tx', details: { location: 'psp/loc/1' } };

describe('the intent before the call', () => {
  it("the provider is called with the committed reference, and its code becomes the payment's: pending", async () => {
    const p = await pay();
    expect(p).toMatchObject({
      status: 'pending',
      artefact: { pix_code: '000201...PSP' },
      provider: { name: 'scripted', reference: `ref${p.payment_id.slice(3)}` },
    });
    expect(psp.requests[0]).toMatchObject({ paymentId: p.payment_id, amountMinor: 5000, debtor: { document: '52998224725' } });
  });

  it('no answer: 502 PROVIDER_UNAVAILABLE naming the payment, which stays processing with its reference', async () => {
    psp.next = async () => {
      throw new ProviderUnavailable('scripted', 'putCob', 'no answer within 10000 ms');
    };
    const id = newPaymentId();
    const e = await pay(id).catch((x: unknown) => x);
    expect(await errorCode(Promise.reject(e))).toBe('PROVIDER_UNAVAILABLE');
    expect((e as Error).message).toContain(id);
    expect(await stored(id)).toMatchObject({ status: 'processing', artefact: null, provider: { reference: `ref${id.slice(3)}` } });
    // A keyed retry repeats the same request and completes it.
    psp.next = async () => charge;
    const again = await pay(id);
    expect(again.status).toBe('pending');
    expect(psp.requests[1]).toEqual(psp.requests[0]);
  });

  it('a refusal fails the payment (PROVIDER_REJECTED, with payment.failed) and nothing stays open', async () => {
    psp.next = async () => {
      throw new ProviderRejected('scripted', 'putCob', 'cob_operacao_invalida', 400);
    };
    const id = newPaymentId();
    expect(await errorCode(pay(id))).toBe('PROVIDER_REJECTED');
    expect(await stored(id)).toMatchObject({ status: 'failed', failure_code: 'PROVIDER_REJECTED' });
    expect(publishedOf(w, id).map(([type]) => type)).toContain('payment.failed');
  });

  it('a status read past expires_at never expires a provider-held payment on our clock', async () => {
    const p = await pay();
    w.clock.advanceMinutes(31);
    expect((await getPaymentStatus(deps, principal, principal.merchant.merchant_id, p.payment_id)).status).toBe('pending');
  });
});

describe('what the provider holds decides', () => {
  const now = () => w.clock.now();
  const paid = (amountMinor: number, endToEndId = 'E1'): PixChargeState => ({
    kind: 'paid',
    charge,
    received: [{ endToEndId, amountMinor, paidAt: now().toISOString(), refunds: [], fraudReturns: [] }],
  });

  it('paid with the exact amount: success, one credit, once', async () => {
    const p = await pay();
    const before = balanceOf(w, principal.merchant.merchant_id, 'BRL', 'live');
    expect(await applyChargeState(deps, psp, await stored(p.payment_id), paid(5000), now(), { endToEndId: 'E1' })).toBe('settled');
    expect(await applyChargeState(deps, psp, await stored(p.payment_id), paid(5000), now(), { endToEndId: 'E1' })).toBe('closed');
    expect(await stored(p.payment_id)).toMatchObject({ status: 'success', provider: { details: { end_to_end_id: 'E1' } } });
    expect(balanceOf(w, principal.merchant.merchant_id, 'BRL', 'live')).toBe(before + 5000);
  });

  it('a callback naming another Pix than the one paid settles nothing', async () => {
    const p = await pay();
    expect(await applyChargeState(deps, psp, await stored(p.payment_id), paid(5000, 'E1'), now(), { endToEndId: 'FORGED' })).toBe(
      'waiting',
    );
    expect((await stored(p.payment_id)).status).toBe('pending');
  });

  it('a different amount is recorded, not settled; past its expiry the payment closes, the mismatch kept', async () => {
    const p = await pay();
    expect(await applyChargeState(deps, psp, await stored(p.payment_id), paid(4900), now())).toBe('mismatch');
    expect(await stored(p.payment_id)).toMatchObject({ status: 'pending', provider_mismatch_minor: 4900 });
    w.clock.advanceMinutes(31);
    expect(await applyChargeState(deps, psp, await stored(p.payment_id), paid(4900), now())).toBe('mismatch');
    expect(await stored(p.payment_id)).toMatchObject({ status: 'expired', provider_mismatch_minor: 4900 });
    expect(await applyChargeState(deps, psp, await stored(p.payment_id), paid(4900), now())).toBe('closed');
    expect(balanceOf(w, principal.merchant.merchant_id, 'BRL', 'live')).toBe(0);
  });

  it('a charge whose answer was lost is opened from the read-back; one never created fails after the grace', async () => {
    psp.next = async () => {
      throw new ProviderUnavailable('scripted', 'putCob', 'reset');
    };
    const a = newPaymentId();
    const b = newPaymentId();
    await errorCode(pay(a));
    await errorCode(pay(b));
    const open: PixChargeState = { kind: 'open', charge, expiresAt: new Date(now().getTime() + 600_000).toISOString() };
    expect(await applyChargeState(deps, psp, await stored(a), open, now())).toBe('opened');
    expect(await stored(a)).toMatchObject({ status: 'pending', artefact: { pix_code: charge.pixCode } });
    expect(await applyChargeState(deps, psp, await stored(b), { kind: 'not_found' }, now(), { lostIntentSeconds: 120 })).toBe('waiting');
    w.clock.advanceSeconds(121);
    expect(await applyChargeState(deps, psp, await stored(b), { kind: 'not_found' }, now(), { lostIntentSeconds: 120 })).toBe('failed');
    expect(await stored(b)).toMatchObject({ status: 'failed', failure_code: 'PROVIDER_UNAVAILABLE' });
  });

  it('removed at the provider: expired', async () => {
    const p = await pay();
    expect(await applyChargeState(deps, psp, await stored(p.payment_id), { kind: 'removed', received: [] }, now())).toBe('expired');
    expect((await stored(p.payment_id)).status).toBe('expired');
  });
});
