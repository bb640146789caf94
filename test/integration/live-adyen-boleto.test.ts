/**
 * Live boleto through Adyen (issue 23), over real HTTP against the fake Adyen: the hosted checkout's boleto is
 * registered with the payer's CPF and billing address (`boletobancario`); Adyen's typeable line replaces the
 * sandbox's artefact; AUTHORISATION settles it. Without an address: a 400 naming billing_address, nothing written.
 */
import { isValidTypeableLine, typeableLineToBarcode } from '../../shared/domain/payments/boleto';
import { paymentReferenceOf } from '../../shared/adapters/providers/adyen/adyen.transformers';
import { startFakeAdyen, type FakeAdyen } from '../support/fake-adyen';
import { customer, ledger } from '../support/payments';
import { balanceMinorOf, startLiveStage, type LiveMerchant, type LiveStage } from '../support/live-stage';
import type { TestStack } from '../support/test-stack';
import { SESSION_BODY } from '../support/sample-data';

let adyen: FakeAdyen;
let stack: TestStack;
let merchant: LiveMerchant;
let live: LiveStage;

beforeAll(async () => {
  adyen = await startFakeAdyen();
  live = await startLiveStage({ adyen: adyen.adyenConfig() }, { merchantName: 'Loja Boleto' });
  ({ stack, merchant } = live);
  adyen.setNotificationUrl(`${stack.baseUrl}/providers/adyen/notifications`);
});

afterAll(async () => {
  await live?.stop();
  await adyen?.close();
});

const address = { postal_code: '01310-100', street: 'Avenida Paulista', number: '1578', city: 'São Paulo', state: 'SP' };
async function session(amount = 180): Promise<string> {
  const r = await stack.request('/api/v1/checkout', {
    method: 'POST',
    apiKey: merchant.apiKey,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ ...SESSION_BODY, amount }),
  });
  expect(r.status).toBe(200);
  return r.body.session_id as string;
}
const processBoleto = (sessionId: string, extra: Record<string, unknown>) =>
  stack.request('/api/v1/checkout/process', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ session_id: sessionId, payment_method: 'boleto', customer, ...extra }),
  });
const balance = () => balanceMinorOf(stack, merchant.apiKey, 'BRL');

describe('live boleto through Adyen', () => {
  it('discovery offers boleto in Brazil once Adyen is configured', async () => {
    const r = await stack.request('/api/v1/methods?country=BRA', { apiKey: merchant.apiKey });
    expect((r.body.methods as Array<{ method_code: string }>).map((m) => m.method_code).sort()).toEqual(['svc-mt-2', 'svc-mt-8']);
  });

  it('registered with CPF and address; Adyen’s typeable line is the artefact; AUTHORISATION settles it', async () => {
    const before = await balance();
    const r = await processBoleto(await session(), { billing_address: address });
    expect(r.status).toBe(200);
    const id = r.body.payment_id as string;
    const sent = [...adyen.requests].reverse().find((q) => q.path === '/payments');
    expect(sent?.body).toMatchObject({
      reference: paymentReferenceOf(id),
      paymentMethod: { type: 'boletobancario' },
      amount: { currency: 'BRL', value: 18000 },
      socialSecurityNumber: customer.document.replace(/\D/g, ''),
      billingAddress: {
        street: 'Avenida Paulista',
        houseNumberOrName: '1578',
        postalCode: '01310100',
        city: 'São Paulo',
        stateOrProvince: 'SP',
        country: 'BR',
      },
      shopperName: { lastName: expect.any(String) },
      deliveryDate: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/),
    });
    const line = r.body.boleto_line as string;
    expect(r.body).toMatchObject({ status: 'pending', boleto_line: expect.stringMatching(/^\d{47}$/), due_date: expect.any(String) });
    expect(isValidTypeableLine(line)).toBe(true);
    expect(r.body.boleto_barcode).toBe(typeableLineToBarcode(line));

    await adyen.notify([adyen.item({ eventCode: 'AUTHORISATION', merchantReference: paymentReferenceOf(id) })]);
    const status = await stack.request(`/cashier/cashier/status/${merchant.merchantId}/${id}`, { apiKey: merchant.apiKey });
    expect(status.body.status).toBe('success');
    expect(await balance()).toBe(before + 18000);
    const sum = (await ledger(merchant, 'BRL', 'live')).reduce((s, e) => s + Number(e.amount_minor), 0);
    expect(sum).toBe(await balance());
  });

  it('without a billing address, or with a bad CEP or state: 400 naming the field, nothing sent or written', async () => {
    const calls = adyen.requests.length;
    const sessionId = await session();
    const missing = await processBoleto(sessionId, {});
    expect(missing.status).toBe(400);
    expect(JSON.stringify(missing.body)).toContain('billing_address');
    const bad = await processBoleto(sessionId, { billing_address: { ...address, postal_code: '1310', state: 'XX' } });
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.body)).toContain('billing_address.postal_code');
    expect(adyen.requests.length).toBe(calls);
    const s = await stack.request(`/api/v1/checkout/${sessionId}`, { apiKey: merchant.apiKey });
    expect(s.body).toMatchObject({ status: 'pending' });
    expect(adyen.violations).toEqual([]);
  });
});
