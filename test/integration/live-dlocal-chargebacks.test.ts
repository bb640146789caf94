/**
 * Chargebacks of live card payments paid at dLocal (issue 42), over real HTTP on the local engines against the fake
 * dLocal and the fake Adyen, with the rule `card.*: [dlocal, adyen]`. dLocal posts the chargeback to the merchant's
 * chargeback URL (POST /providers/dlocal/chargebacks); it is verified, read back (GET /chargebacks/{id}) and moves the
 * payment's dispute as Adyen's notices do: COMPLETED debits (`chargeback`, payment.disputed), REVERSAL credits back
 * (`chargeback_reversal`, payment.dispute_won), once per chargeback and status whatever the order or the repeats.
 * A forged notice is 401 and moves nothing; a chargeback of a payment Adyen holds, of a chargeback dLocal does not
 * hold, or for another amount, moves nothing. After every step the live ledger equals the balance.
 */
import '../support/log-level-info';
import { cardOrderIdOf } from '../../shared/adapters/providers/dlocal/dlocal.card-transformers';
import { breakers } from '../../shared/application/routing';
import { paymentDeps } from '../../shared/wiring';
import { startFakeAdyen, type FakeAdyen } from '../support/fake-adyen';
import { FAKE_CARDS, startFakeDlocal, type FakeDlocal } from '../support/fake-dlocal';
import { verifyWebhook } from '../support/merchant-verify';
import { customer } from '../support/payments';
import {
  balanceMinorOf,
  captureLogs,
  expectLedgerEqualsBalance,
  startLiveStage,
  type LiveMerchant,
  type LiveStage,
} from '../support/live-stage';
import type { Receiver } from '../support/receiver';
import type { TestStack } from '../support/test-stack';

let adyen: FakeAdyen;
let dlocal: FakeDlocal;
let stack: TestStack;
let receiver: Receiver;
let merchant: LiveMerchant;
let live: LiveStage;

beforeAll(async () => {
  [adyen, dlocal] = await Promise.all([startFakeAdyen(), startFakeDlocal()]);
  live = await startLiveStage(
    { adyen: adyen.adyenConfig(), dlocal: dlocal.dlocalConfig(), routing: { card: { '*': { providers: ['dlocal', 'adyen'] } } } },
    { merchantName: 'Loja Estornos', receiver: true },
  );
  ({ stack, merchant, receiver } = live);
  adyen.setNotificationUrl(`${stack.baseUrl}/providers/adyen/notifications`);
  // The merchant's chargeback URL is registered with dLocal (no card payment request carries it).
  dlocal.chargebacks.setUrl(`${stack.baseUrl}/providers/dlocal/chargebacks`);
});

beforeEach(() => breakers.reset());

afterEach(async () => {
  expect(adyen.violations).toEqual([]);
  expect(dlocal.violations).toEqual([]);
  dlocal.chargebacks.minimalReads = false;
  await ledger();
});

afterAll(async () => {
  await live?.stop();
  await Promise.all([adyen?.close(), dlocal?.close()]);
});

const year = String(new Date().getUTCFullYear() + 3);
async function paidCard(number: string = FAKE_CARDS.approve, amount = 120): Promise<string> {
  const r = await stack.request('/cashier/cashier/payment', {
    method: 'POST',
    apiKey: merchant.apiKey,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      payment_method: 'card',
      amount,
      currency: 'BRL',
      country: 'BRA',
      customer,
      card: { number, holder_name: 'ANA SILVA', cvv: '737', expiry_month: '03', expiry_year: year },
    }),
  });
  expect(r.body).toMatchObject({ status: 'success' });
  return r.body.payment_id as string;
}
const stored = async (id: string) => (await paymentDeps().store.getPayment(id))!;
const balance = () => balanceMinorOf(stack, merchant.apiKey, 'BRL');
const ledger = () => expectLedgerEqualsBalance(stack, merchant, 'BRL');
const reads = () => dlocal.requests.filter((q) => q.path.startsWith('/chargebacks/')).length;
const hooksFor = (id: string) => receiver.received.filter((r) => r.body?.payment_id === id).map((r) => r.body?.event as string);
const hook = async (id: string, event: string) => {
  const [h] = await receiver.waitFor(1, 15_000, (r) => r.body?.event === event && r.body?.payment_id === id);
  expect(verifyWebhook(h!.rawBody, h!.headers as Record<string, string>, merchant.webhookSecret).ok).toBe(true);
  return h!.body as Record<string, unknown>;
};
const ok = { status: 200, body: JSON.stringify({ received: 1 }) };

describe('dLocal chargebacks of a card paid at dLocal', () => {
  it('pending moves nothing; executed debits once (repeats and stale copies move nothing); won credits it back', async () => {
    const id = await paidCard();
    const orderId = cardOrderIdOf(id);
    expect(await stored(id)).toMatchObject({ provider: { name: 'dlocal', reference: orderId } });
    const before = await balance();

    const cb = dlocal.chargebacks.open(orderId, { status: 'PENDING' });
    expect(await dlocal.chargebacks.notify(cb.id)).toEqual(ok);
    expect(await balance()).toBe(before);
    expect((await stored(id)).dispute).toBeUndefined();
    await ledger();

    dlocal.chargebacks.setStatus(cb.id, 'COMPLETED');
    expect(await dlocal.chargebacks.notify(cb.id)).toEqual(ok);
    expect(await balance()).toBe(before - 12_000);
    expect(await hook(id, 'payment.disputed')).toMatchObject({ status: 'success', dispute: { status: 'open', amount: 120 } });
    expect((await stored(id)).dispute).toMatchObject({ status: 'open', stage: 1, amount_minor: 12_000, provider_reference: cb.id });
    await ledger();

    // The same notice again, and a stale PENDING copy (read back: COMPLETED, already applied): nothing moves.
    expect(await dlocal.chargebacks.notify(cb.id)).toEqual(ok);
    expect(await dlocal.chargebacks.notify(cb.id, { status: 'PENDING' })).toEqual(ok);
    expect(await balance()).toBe(before - 12_000);
    await ledger();

    dlocal.chargebacks.setStatus(cb.id, 'REVERSAL');
    expect(await dlocal.chargebacks.notify(cb.id)).toEqual(ok);
    expect(await balance()).toBe(before);
    expect(await hook(id, 'payment.dispute_won')).toMatchObject({ dispute: { status: 'won' } });
    await ledger();

    // Late copies of COMPLETED and REVERSAL: read back as REVERSAL, applied once already.
    expect(await dlocal.chargebacks.notify(cb.id, { status: 'COMPLETED' })).toEqual(ok);
    expect(await dlocal.chargebacks.notify(cb.id)).toEqual(ok);
    expect(await balance()).toBe(before);
    expect(hooksFor(id).filter((e) => e === 'payment.disputed' || e === 'payment.dispute_won')).toEqual([
      'payment.disputed',
      'payment.dispute_won',
    ]);
    expect((await stored(id)).dispute).toMatchObject({ status: 'won', stage: 2 });
  });

  it('out of order: the reversal first writes both movements (net zero); the late COMPLETED notice moves nothing', async () => {
    const id = await paidCard(FAKE_CARDS.approve, 80);
    const before = await balance();
    // dLocal's older read answers only id and status: the signed notice supplies the payment, amount and currency.
    dlocal.chargebacks.minimalReads = true;
    const cb = dlocal.chargebacks.open(cardOrderIdOf(id), { status: 'REVERSAL' });
    expect(await dlocal.chargebacks.notify(cb.id)).toEqual(ok);
    expect(await balance()).toBe(before);
    await hook(id, 'payment.disputed');
    await hook(id, 'payment.dispute_won');
    expect(
      hooksFor(id)
        .filter((e) => e.startsWith('payment.disput'))
        .sort(),
    ).toEqual(['payment.dispute_won', 'payment.disputed']);
    const { data } = (await stack.request(`/api/v1/balance/transactions?currency=BRL`, { apiKey: merchant.apiKey })).body as {
      data: Array<{ type: string; source_id: string; amount: number }>;
    };
    expect(data.filter((t) => t.source_id === id && t.type.startsWith('chargeback')).map((t) => [t.type, t.amount])).toEqual(
      expect.arrayContaining([
        ['chargeback', -80],
        ['chargeback_reversal', 80],
      ]),
    );
    await ledger();
    expect(await dlocal.chargebacks.notify(cb.id, { status: 'COMPLETED' })).toEqual(ok);
    expect(await balance()).toBe(before);
  });

  it('a forged notice is 401: nothing is read back, nothing moves', async () => {
    const id = await paidCard();
    const before = await balance();
    const readsBefore = reads();
    const cb = dlocal.chargebacks.open(cardOrderIdOf(id));
    expect(await dlocal.chargebacks.notify(cb.id, { sign: 'forged' })).toMatchObject({ status: 401 });
    expect(await dlocal.chargebacks.notify(cb.id, { sign: 'none' })).toMatchObject({ status: 401 });
    expect(reads()).toBe(readsBefore);
    expect(await balance()).toBe(before);
    expect((await stored(id)).dispute).toBeUndefined();
  });

  it('another amount than the payment’s is recorded, never applied', async () => {
    const id = await paidCard();
    const before = await balance();
    const cb = dlocal.chargebacks.open(cardOrderIdOf(id), { amount: 500 });
    const logs = captureLogs();
    try {
      expect(await dlocal.chargebacks.notify(cb.id)).toEqual(ok);
    } finally {
      logs.restore();
    }
    // Paged as Adyen's mismatches are (ProviderAmountMismatch, published beside it), with one ERROR line naming dLocal.
    const errors = logs.lines
      .join('')
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .filter((l) => l.level === 'ERROR');
    expect(errors).toEqual([expect.objectContaining({ provider: 'dlocal', status: 'COMPLETED' })]);
    expect(await balance()).toBe(before);
    expect((await stored(id)).dispute).toBeUndefined();
  });
});

describe('dLocal chargebacks that are not of a payment dLocal holds', () => {
  it('a payment Adyen holds (dLocal unreachable, then holding a paid payment for its order): 200, nothing moves', async () => {
    await dlocal.refuseConnections('closed');
    const id = await paidCard().finally(() => dlocal.refuseConnections(null));
    expect(await stored(id)).toMatchObject({ provider: { name: 'adyen', attempt: 2 } });
    const before = await balance();
    // dLocal comes to hold a paid card payment under the payment's first order (as if the call had got through).
    dlocal.cards.create({
      amount: 120,
      currency: 'BRL',
      country: 'BR',
      payment_method_id: 'CARD',
      payment_method_flow: 'DIRECT',
      payer: { name: 'ANA SILVA', email: customer.email, document: customer.document },
      card: {
        holder_name: 'ANA SILVA',
        number: FAKE_CARDS.approve,
        cvv: '737',
        expiration_month: 3,
        expiration_year: Number(year),
        capture: true,
      },
      order_id: cardOrderIdOf(id),
      callback_url: `${stack.baseUrl}/providers/dlocal/return/${id}`,
    });
    const cb = dlocal.chargebacks.open(cardOrderIdOf(id));
    expect(await dlocal.chargebacks.notify(cb.id)).toEqual(ok);
    expect(await balance()).toBe(before);
    expect((await stored(id)).dispute).toBeUndefined();
  });

  it('a chargeback dLocal does not hold (its read-back is not found): 200, nothing moves', async () => {
    const before = await balance();
    const body = JSON.stringify({ id: 'CHAR-none', payment_id: 'D-4-none', amount: 10, currency: 'BRL', status: 'COMPLETED' });
    const r = await fetch(`${stack.baseUrl}/providers/dlocal/chargebacks`, {
      method: 'POST',
      headers: dlocal.signedNotificationHeaders(body),
      body,
    });
    expect(r.status).toBe(200);
    expect(await balance()).toBe(before);
  });
});
