/** Direct payments (SPEC.md 2.4, 3.1, 4.2) over HTTP: each test card, PIX, status, errors, isolation. */
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient } from '../../shared/adapters/aws-clients';
import { config } from '../../shared/config';
import type { TestMerchant, TestStack } from '../support/test-stack';
import { balanceMinor, card, events, listed, payments, paymentsSuite } from '../support/payments';

const suite = paymentsSuite();
let stack: TestStack;
let m: TestMerchant;
let api: ReturnType<typeof payments>;
beforeAll(() => {
  ({ stack, m, api } = suite);
});

describe('POST /cashier/cashier/payment', () => {
  it('PIX: 200 pending with pix_code, a PNG data-URI QR and a 30-minute expiry', async () => {
    const before = Date.now();
    const r = await api.direct({ amount: 19.9 });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ status: 'pending', payment_method: 'pix', amount: 19.9, currency: 'BRL' });
    expect(r.body.pix_code).toMatch(/^000201/);
    expect(r.body.pix_code).toContain('540519.90');
    expect(r.body.pix_qr_code_base64).toMatch(/^data:image\/png;base64,/);
    const minutes = (Date.parse(r.body.expires_at) - before) / 60_000;
    expect(minutes).toBeGreaterThan(29.9);
    expect(minutes).toBeLessThan(30.1);
  });

  it.each([
    ['4242424242424242', 'visa', '4242'],
    ['5555555555554444', 'mastercard', '4444'],
  ])('card %s: success with brand, last four and authorization code, and a balance credit', async (number, brand, last4) => {
    const before = await balanceMinor(m);
    const r = await api.direct({ payment_method: 'card', amount: 50, card: { ...card(number), installments: 3 } });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      status: 'success',
      card_brand: brand,
      card_last_four: last4,
      authorization_code: expect.stringMatching(/^[A-Z0-9]{6}$/),
    });
    expect(await balanceMinor(m)).toBe(before + 5000);
  });

  it('card needing 3DS: pending_3ds with redirect_url and return_url; authenticating completes it', async () => {
    const r = await api.direct({ payment_method: 'card', card: card('4000000000003220'), return_url: 'https://shop.example/return' });
    expect(r.body).toMatchObject({
      status: 'pending_3ds',
      redirect_url: `${stack.baseUrl}/sandbox/3ds/${r.body.payment_id}`,
      return_url: 'https://shop.example/return',
    });
    const evs = await events(m);
    expect(evs.some((e) => e.type === 'payment.pending_3ds' && e.object_id === r.body.payment_id)).toBe(true);
    const done = await api.page('3ds', r.body.payment_id, 'success');
    expect(done.headers.get('location')).toBe(`https://shop.example/return?payment_id=${r.body.payment_id}&status=success`);
    expect((await api.status(r.body.payment_id)).body.status).toBe('success');
  });

  it.each([
    ['4000000000000002', 'card_declined'],
    ['4000000000009995', 'insufficient_funds'],
    ['4000000000000069', 'expired_card'],
    ['4000000000000127', 'incorrect_cvc'],
  ])('card %s: 422 %s with the failed payment’s id, and no credit', async (number, code) => {
    const before = await balanceMinor(m);
    const r = await api.direct({ payment_method: 'card', card: card(number) });
    expect(r.status).toBe(422);
    expect(r.body).toEqual({ detail: expect.any(String), error_code: code, payment_id: expect.stringMatching(/^pi_/) });
    expect((await api.status(r.body.payment_id)).body.status).toBe('failed');
    expect(await balanceMinor(m)).toBe(before);
  });

  it.each([
    [{ card: { ...card('4242424242424242'), installments: 0 } }, 'card.installments'],
    [{ card: { ...card('4242424242424242'), installments: 13 } }, 'card.installments'],
    [{}, 'card'],
    [{ card: card('4242424242424242', '99') }, 'card.cvv'],
    [{ customer: { name: 'A', email: 'x', document: '1' } }, 'customer.email'],
    [{ amount: 0 }, 'amount'],
    [{ card: card('4242424242424242'), notification_url: 'http://192.168.0.10/hook' }, 'notification_url'],
  ])('rejects bad card payment input #%# with 400 invalid_request naming the field', async (over, field) => {
    const fresh = await stack.createMerchant();
    const r = await payments(stack, fresh).direct({ payment_method: 'card', ...over });
    expect(r.status).toBe(400);
    expect(r.body.error_code).toBe('invalid_request');
    expect(r.body.detail).toContain(field);
    expect(await listed(fresh, 'PAYMENT')).toHaveLength(0);
  });

  it('refuses card payments outside the method bounds and methods in countries without them', async () => {
    expect((await api.direct({ amount: 75_000, payment_method: 'card', card: card('4242424242424242') })).status).toBe(400);
    const mx = await api.direct({
      payment_method: 'pix',
      country: 'MEX',
      currency: 'MXN',
      customer: { name: 'Ana', email: 'a@b.co', document: 'GODE561231HDFRRN00' },
    });
    expect(mx.status).toBe(400);
    expect(mx.body.detail).toContain('pix');
  });

  it('never stores the card number or CVV; keeps brand and last four', async () => {
    const r = await api.direct({ payment_method: 'card', card: card('4242424242424242', '987') });
    const all = await documentClient().send(new ScanCommand({ TableName: config.tableName }));
    const dump = JSON.stringify(all.Items);
    expect(dump).not.toContain('4242424242424242');
    expect(dump).not.toMatch(/"cvv"/);
    expect(dump).not.toContain('52998224725');
    const item = all.Items!.find((i) => i.payment_id === r.body.payment_id && i.entity === 'payment');
    expect(item?.card).toEqual({ brand: 'visa', last_four: '4242' });
    expect(item?.customer.document_masked).toBe('***725');
  });
});

describe('GET /cashier/cashier/status/{merchant_id}/{payment_id}', () => {
  it('returns the status record', async () => {
    const p = await api.direct();
    const r = await api.status(p.body.payment_id);
    expect(r.status).toBe(200);
    expect(Object.keys(r.body).sort()).toEqual([
      'amount',
      'created_at',
      'currency',
      'merchant_id',
      'paid_at',
      'payment_id',
      'payment_method',
      'provider_attempts',
      'refunded_amount',
      'status',
    ]);
    expect(r.body).toMatchObject({
      payment_id: p.body.payment_id,
      merchant_id: m.merchantId,
      status: 'pending',
      paid_at: null,
      refunded_amount: 0,
      // The sandbox moves no money at any provider.
      provider_attempts: [],
    });
  });

  it('answers 404 when the path merchant is not the key’s merchant, or the payment is another merchant’s', async () => {
    const p = await api.direct();
    const other = await stack.createMerchant();
    expect((await api.status(p.body.payment_id, other.merchantId)).body).toEqual({
      detail: expect.any(String),
      error_code: 'not_found',
      payment_id: null,
    });
    expect((await payments(stack, other).status(p.body.payment_id, other.merchantId)).status).toBe(404);
    expect((await payments(stack, other).simulate(p.body.payment_id, 'success')).status).toBe(404);
  });
});

describe('sandbox simulate', () => {
  it('completes a pending PIX to success once, and refuses to flip a final payment', async () => {
    const p = await api.direct({ amount: 10 });
    const before = await balanceMinor(m);
    const r = await api.simulate(p.body.payment_id, 'success');
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ status: 'success', paid_at: expect.any(String) });
    expect((await api.simulate(p.body.payment_id, 'success')).status).toBe(200);
    expect(await balanceMinor(m)).toBe(before + 1000);
    const flip = await api.simulate(p.body.payment_id, 'failed');
    expect(flip.status).toBe(409);
    expect(flip.body.error.code).toBe('PAYMENT_STATE_CONFLICT');
  });

  it('fails a pending payment and writes payment.failed', async () => {
    const p = await api.direct();
    expect((await api.simulate(p.body.payment_id, 'failed')).body.status).toBe('failed');
    expect((await events(m)).some((e) => e.type === 'payment.failed' && e.object_id === p.body.payment_id)).toBe(true);
  });

  it('rejects a bad outcome with 400', async () => {
    const p = await api.direct();
    const r = await api.json('POST', `/api/v1/sandbox/payments/${p.body.payment_id}/simulate`, { outcome: 'maybe' });
    expect(r.status).toBe(400);
  });
});

describe('live mode', () => {
  const saved = process.env.ALLOWED_KEY_MODES;
  beforeAll(() => {
    process.env.ALLOWED_KEY_MODES = 'test,live';
  });
  afterAll(() => {
    if (saved === undefined) delete process.env.ALLOWED_KEY_MODES;
    else process.env.ALLOWED_KEY_MODES = saved;
  });

  it('answers METHOD_NOT_AVAILABLE without a live connector and never pretends', async () => {
    const live = await stack.admin.createKey(m.merchantId, 'live');
    const r = await stack.request('/cashier/cashier/payment', {
      method: 'POST',
      apiKey: live.secret,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        payment_method: 'card',
        amount: 10,
        currency: 'BRL',
        country: 'BRA',
        customer: { name: 'Ana Silva', email: 'a@b.co', document: '52998224725' },
        card: card('4242424242424242'),
      }),
    });
    expect(r.status).toBe(400);
    expect(r.body.detail).toMatch(/live/);
  });

  it('refuses the sandbox simulator to a live key with 403', async () => {
    const live = await stack.admin.createKey(m.merchantId, 'live');
    const p = await api.direct();
    const r = await stack.request(`/api/v1/sandbox/payments/${p.body.payment_id}/simulate`, {
      method: 'POST',
      apiKey: live.secret,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ outcome: 'success' }),
    });
    expect(r.status).toBe(403);
  });
});
