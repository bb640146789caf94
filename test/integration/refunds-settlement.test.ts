/**
 * Refund settlement as a merchant sees it (issue 11): signed refund.created / refund.succeeded / payment.refunded
 * webhooks with refunded_amount, the sandbox .13 decline crediting the money back, voucher-paid payments refunded to
 * a beneficiary checked with the payout rules of their country, and the duplicate-payment auto-refund.
 */
import { startTestStack, type TestMerchant, type TestStack } from '../support/test-stack';
import { balanceMinor, customer, events, payments } from '../support/payments';
import { startReceiver, type Receiver } from '../support/receiver';
import { ledgerReasons, ledgerSum, pixBeneficiary, refunds } from '../support/refunds';
import { expectGenuine } from '../support/signatures';

jest.setTimeout(60_000);

let stack: TestStack;
let receiver: Receiver;

beforeAll(async () => {
  Object.assign(process.env, { REFUND_SETTLEMENT_DELAY_SECONDS: '1', WEBHOOK_ALLOW_LOOPBACK: 'true', WEBHOOK_RETRY_SCHEDULE: '0,1' });
  stack = await startTestStack({ workers: true });
  receiver = await startReceiver();
});
afterAll(async () => {
  await receiver.stop();
  await stack.stop();
});

async function merchant() {
  const m: TestMerchant = await stack.createMerchant({ notification_url: receiver.url });
  return { m, f: refunds(stack, m) };
}
const hooksOf = (count: number, pred: (body: any) => boolean) => receiver.waitFor(count, 15_000, (h) => pred(h.body));

describe('webhooks', () => {
  it('refund.created, refund.succeeded and payment.refunded arrive signed, with refunded_amount', async () => {
    const { m, f } = await merchant();
    const id = await f.paid('pix', { reference_id: 'INV-42', metadata: { order: 'A1' } });
    const part = (await f.refundOf(id, { amount: 10, metadata: { ticket: 'T-9' } })).body;
    await f.settled(part.refund_id);
    const rest = (await f.refundOf(id)).body;
    await f.settled(rest.refund_id);
    const got = await hooksOf(5, (b) => b?.payment_id === id && /^(refund\.|payment\.refunded)/.test(String(b.event)));
    const of = (event: string, refundId?: string) =>
      got.find((h) => h.body.event === event && (!refundId || h.body.refund_id === refundId))!;
    const common = { payment_id: id, currency: 'BRL', reference_id: 'INV-42' };
    expect(of('refund.created', part.refund_id).body).toMatchObject({
      ...common,
      refund_id: part.refund_id,
      amount: 10,
      status: 'pending',
      reason: 'requested_by_customer',
      refunded_amount: 10,
      metadata: { ticket: 'T-9' },
    });
    expect(of('refund.succeeded', part.refund_id).body).toMatchObject({ ...common, status: 'succeeded', refunded_amount: 10 });
    expect(of('refund.created', rest.refund_id).body).toMatchObject({ ...common, amount: 15, refunded_amount: 25 });
    expect(of('refund.succeeded', rest.refund_id).body).toMatchObject({
      ...common,
      amount: 15,
      status: 'succeeded',
      refunded_amount: 25,
      completed_at: expect.any(String),
    });
    expect(of('payment.refunded').body).toMatchObject({
      ...common,
      status: 'refunded',
      amount: 25,
      refunded_amount: 25,
      metadata: { order: 'A1' },
    });
    for (const h of got) {
      expect(h.headers['webhook-id']).toBe(h.body.event_id);
      expect(h.headers['x-webhook-signature']).toBeUndefined();
      expectGenuine(h, m.webhookSecret);
    }
  });
});

describe('sandbox decline (amounts ending in .13)', () => {
  it('fails with declined_by_bank, credits the balance back with a ledger entry, refund.failed; the payment stays success', async () => {
    const { m, f } = await merchant();
    const id = await f.paid('pix');
    const first = (await f.refundOf(id, { amount: 5 })).body;
    await f.settled(first.refund_id);
    const declined = await f.refundOf(id, { amount: 10.13 });
    expect(declined.body).toMatchObject({ status: 'pending', amount: 10.13 });
    expect(await balanceMinor(m)).toBe(2500 - 500 - 1013);
    expect((await f.api.status(id)).body.refunded_amount).toBe(15.13);
    const failed = await f.settled(declined.body.refund_id, 'failed');
    expect(failed).toMatchObject({ status: 'failed', failure_reason: 'declined_by_bank', completed_at: null });
    expect(await balanceMinor(m)).toBe(2000);
    expect(await ledgerSum(m)).toBe(2000);
    expect(await ledgerReasons(m)).toEqual(['payment', 'refund', 'refund', 'refund_failed']);
    expect((await f.api.status(id)).body).toMatchObject({ status: 'success', refunded_amount: 5 });
    expect((await f.list(id)).body).toMatchObject({ payment_status: 'success', refunded_amount: 5 });
    const [hook] = await hooksOf(1, (b) => b?.event === 'refund.failed' && b.refund_id === declined.body.refund_id);
    expect(hook!.body).toMatchObject({ status: 'failed', amount: 10.13, failure_reason: 'declined_by_bank', refunded_amount: 5 });
    expectGenuine(hook!, m.webhookSecret);
    // What the decline gave back can be refunded again.
    const rest = (await f.refundOf(id)).body;
    expect(rest.amount).toBe(20);
    await f.settled(rest.refund_id);
    await f.paymentBecomes(id, 'refunded');
    expect(await balanceMinor(m)).toBe(0);
    expect(await ledgerSum(m)).toBe(0);
  });
});

const bank = (name: string, document: string, document_type: string, bank_code: string, account_number: string) => ({
  name,
  document,
  document_type,
  bank_code,
  account_number,
  account_type: 'savings',
});
const clabe = (key: string) => ({
  name: 'Juan Perez',
  document: 'GODE561231HDFRRN00',
  document_type: 'CURP',
  instant_transfer_key: key,
  instant_transfer_type: 'clabe',
});
// method, session, the shopper's document, a valid beneficiary, one the payout rules refuse, and the field it names.
const VOUCHERS: Array<[string, Record<string, unknown>, string, Record<string, unknown>, Record<string, unknown>, string]> = [
  ['boleto', {}, '52998224725', pixBeneficiary, { ...pixBeneficiary, instant_transfer_type: undefined }, 'instant_transfer_type'],
  [
    'spei',
    { country: 'MEX', currency: 'MXN', amount: 100 },
    'GODE561231HDFRRN00',
    clabe('646180157000000004'),
    clabe('646180157000000005'),
    'instant_transfer_key',
  ],
  [
    'cash',
    { country: 'COL', currency: 'COP', amount: 50000 },
    '1020304050',
    bank('Carlos Ruiz', '1020304050', 'CC', '007', '12345678901'),
    bank('Carlos Ruiz', '1020304050', 'CC', '007', '12-34'),
    'account_number',
  ],
  [
    'cip',
    { country: 'PER', currency: 'PEN', amount: 100 },
    '12345678',
    bank('Rosa Diaz', '12345678', 'DNI', '002', '1912345678901'),
    { ...bank('Rosa Diaz', '12345678', 'DNI', '002', '1912345678901'), account_type: undefined },
    'account_type',
  ],
  ['bank_transfer', {}, '52998224725', pixBeneficiary, { ...pixBeneficiary, document: '52998224724' }, 'document'],
  // PSE is a bank transfer: its refund goes to a Colombian bank account, as Colombia's other bank-paid methods.
  [
    'pse',
    { country: 'COL', currency: 'COP', amount: 50000 },
    '1020304050',
    bank('Camila Rojas', '1020304050', 'CC', '007', '12345678901'),
    { ...bank('Camila Rojas', '1020304050', 'CC', '007', '12345678901'), bank_code: undefined },
    'bank_code',
  ],
  // Peru's online banking is a bank transfer: its refund goes to a Peruvian bank account, as the CIP's does.
  [
    'payin',
    { country: 'PER', currency: 'PEN', amount: 100 },
    '12345678',
    bank('Lucia Quispe', '12345678', 'DNI', '002', '1912345678901'),
    { ...bank('Lucia Quispe', '12345678', 'DNI', '002', '1912345678901'), account_type: undefined },
    'account_type',
  ],
  // Chile and Ecuador have no payout method: their refunds go to a bank account on a refund-only rail (RUT, cédula).
  [
    'cash',
    { country: 'CHL', currency: 'CLP', amount: 20000 },
    '12.345.678-5',
    bank('Josefa Muñoz', '12.345.678-5', 'RUT', '012', '00123456789'),
    bank('Josefa Muñoz', '12.345.678-5', 'RUT', '012', '0012-3456'),
    'account_number',
  ],
  [
    'bank_transfer',
    { country: 'CHL', currency: 'CLP', amount: 35000 },
    '12.345.678-5',
    bank('Josefa Muñoz', '12.345.678-5', 'RUT', '037', '7012345678'),
    bank('Josefa Muñoz', '12.345.678-4', 'RUT', '037', '7012345678'),
    'document',
  ],
  [
    'bank_transfer',
    { country: 'ECU', currency: 'USD', amount: 80 },
    '1710034065',
    bank('Andrea Mora', '1710034065', 'CI', '010', '2200123456'),
    { ...bank('Andrea Mora', '1710034065', 'CI', '010', '2200123456'), account_type: 'vista' },
    'account_type',
  ],
];

describe('voucher-paid payments go to a beneficiary', () => {
  it.each(VOUCHERS)(
    '%s in %j: a valid beneficiary is refunded (masked); none or an invalid one is 400',
    async (method, session, doc, good, bad) => {
      const { m, f } = await merchant();
      const currency = String(session.currency ?? 'BRL');
      const { paymentId } = await f.paidCheckout(method, session, { customer: { ...customer, document: doc } });
      const before = await balanceMinor(m, currency);
      for (const body of [{}, { beneficiary: bad }]) {
        const res = await f.refundOf(paymentId, body);
        expect(res.status).toBe(400);
        expect(res.body.error.code).toBe('VALIDATION_ERROR');
        expect(res.body.error.details.length).toBeGreaterThan(0);
      }
      // Without one, the answer names beneficiary and the fields the country's rail requires.
      const required = Object.keys(good).join(', ');
      expect((await f.refundOf(paymentId)).body.error.details).toEqual([
        expect.objectContaining({ field: 'beneficiary', message: expect.stringContaining(required) }),
      ]);
      // Nothing was written: no refund, no debit.
      expect((await f.list(paymentId)).body).toMatchObject({ payment_status: 'success', refunded_amount: 0, data: [] });
      expect(await balanceMinor(m, currency)).toBe(before);
      const ok = await f.refundOf(paymentId, { beneficiary: good });
      expect(ok.status).toBe(200);
      expect(ok.body).toMatchObject({ status: 'pending', currency, beneficiary: expect.objectContaining({ name: good.name }) });
      expect(ok.text).not.toContain(String(good.document));
      if (typeof good.account_number === 'string') {
        expect(ok.body.beneficiary.account_number).toBe(`${'*'.repeat(good.account_number.length - 4)}${good.account_number.slice(-4)}`);
        expect(ok.text).not.toContain(good.account_number);
      }
      await f.settled(ok.body.refund_id);
      await f.paymentBecomes(paymentId, 'refunded');
      expect(await balanceMinor(m, currency)).toBe(0);
      expect(await ledgerSum(m, currency)).toBe(0);
    },
  );

  it('a beneficiary the request schema refuses is 400 naming beneficiary.<field>', async () => {
    const { f } = await merchant();
    const { paymentId } = await f.paidCheckout('boleto', {}, {});
    const res = await f.refundOf(paymentId, { beneficiary: { ...pixBeneficiary, document_type: 'PASSPORT' } });
    expect(res.status).toBe(400);
    expect(res.body.error.details.map((d: { field: string }) => d.field)).toEqual(['beneficiary.document_type']);
  });

  // The payout rules' errors already name beneficiary.<field>; the refund answers them as they are.
  it.each(VOUCHERS)('%s in %j: the payout rules’ refusal names beneficiary.<field>', async (method, session, doc, _good, bad, field) => {
    const { f } = await merchant();
    const { paymentId } = await f.paidCheckout(method, session, { customer: { ...customer, document: doc } });
    const res = await f.refundOf(paymentId, { beneficiary: bad });
    expect(res.body.error.details.map((d: { field: string }) => d.field)).toEqual([`beneficiary.${field}`]);
  });

  it('a Chilean refund takes Chile’s bank account, not another country’s (a PIX beneficiary is 400 naming its fields)', async () => {
    const { m, f } = await merchant();
    const { paymentId } = await f.paidCheckout(
      'cash',
      { country: 'CHL', currency: 'CLP', amount: 20000 },
      { customer: { ...customer, document: '12.345.678-5' } },
    );
    const res = await f.refundOf(paymentId, { beneficiary: pixBeneficiary });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('VALIDATION_ERROR');
    expect(res.body.error.details.map((d: { field: string }) => d.field)).toEqual([
      'beneficiary.document_type',
      'beneficiary.bank_code',
      'beneficiary.account_number',
      'beneficiary.account_type',
    ]);
    expect(await balanceMinor(m, 'CLP')).toBe(20000);
  });
});

describe('a shopper who paid twice', () => {
  it('the later payment of a completed session is refunded in full as a duplicate and becomes refunded', async () => {
    const { m, f } = await merchant();
    const api = payments(stack, m);
    const s = (await api.createSession()).body.session_id;
    const first = (await api.process(s, 'pix')).body.payment_id;
    const second = (await api.process(s, 'wallet', { customer: { ...customer, phone: '+5511999990000' } })).body.payment_id;
    expect((await api.simulate(first, 'success')).status).toBe(200);
    expect((await api.simulate(second, 'success')).status).toBe(200);
    const list = await f.list(second);
    expect(list.body.data).toEqual([expect.objectContaining({ reason: 'duplicate', amount: 100.5, currency: 'BRL' })]);
    const dup = list.body.data[0].refund_id as string;
    expect(await f.settled(dup)).toMatchObject({ status: 'succeeded', reason: 'duplicate' });
    expect(await f.paymentBecomes(second, 'refunded')).toMatchObject({ refunded_amount: 100.5 });
    expect((await api.getSession(s)).body).toMatchObject({ status: 'success', payment_id: first, refunded_amount: 0 });
    expect((await f.api.status(first)).body).toMatchObject({ status: 'success', refunded_amount: 0 });
    expect(await balanceMinor(m)).toBe(10050);
    expect(await ledgerReasons(m)).toEqual(['payment', 'payment', 'refund']);
    expect(await ledgerSum(m)).toBe(10050);
    const hooks = await hooksOf(3, (b) => b?.payment_id === second && /^(refund\.|payment\.refunded)/.test(String(b.event)));
    expect(hooks.map((h) => h.body.event).sort()).toEqual(['payment.refunded', 'refund.created', 'refund.succeeded']);
    for (const h of hooks) expectGenuine(h, m.webhookSecret);
    expect((await events(m)).filter((e) => e.type === 'payment.success')).toHaveLength(2);
  });
});
