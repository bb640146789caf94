/**
 * The last SPEC codes in the sandbox (issue 41): crypto (svc-mt-4) paid and refunded like every other kind, priced
 * by the simulated provider's quote and showing both amounts; `method_code` choosing between two codes of one kind
 * (Colombia's Bre-B and PSE); `wallet` choosing Brazil's wallet by name. A bad field is a 400 naming it and writes
 * nothing.
 */
import type { TestMerchant, TestStack } from '../support/test-stack';
import { balanceMinor, ledger, listed, payments, paymentsSuite } from '../support/payments';
import { refunds } from '../support/refunds';
import { sandboxUsdtQuote } from '../../shared/adapters/connectors/sandbox.connector';

const suite = paymentsSuite();
let stack: TestStack;
let m: TestMerchant;
let api: ReturnType<typeof payments>;
beforeAll(() => {
  ({ stack, m, api } = suite);
});

const colombian = { name: 'Ana Gómez', email: 'ana@example.co', document: '1020304050' };

async function session(over: Record<string, unknown> = {}, merchant = m) {
  const r = await payments(stack, merchant).createSession(over);
  expect(r.status).toBe(200);
  return r.body.session_id as string;
}

const sum = (entries: Record<string, unknown>[]) => entries.reduce((t, e) => t + Number(e.amount_minor), 0);

describe('crypto (USDT, svc-mt-4) in the sandbox', () => {
  it('every session offers it; the order shows a QR, the simulated provider page and its USDT quote beside the BRL amount', async () => {
    const id = await session({ amount: 250 });
    const offered = (await api.getSession(id)).body.available_methods as Array<Record<string, unknown>>;
    expect(offered.find((x) => x.id === 'crypto')).toMatchObject({ type: 'crypto', method_code: 'svc-mt-4', enabled: true });
    const r = await api.process(id, 'crypto');
    expect(r.status).toBe(200);
    const paymentId = r.body.payment_id as string;
    expect(r.body).toMatchObject({
      success: true,
      status: 'pending',
      payment_method: 'crypto',
      crypto_currency: 'USDT',
      crypto_amount: sandboxUsdtQuote(250_00, 'BRL'),
      checkout_url: `${stack.baseUrl}/sandbox/pay/${paymentId}`,
      qr_code: `${stack.baseUrl}/sandbox/pay/${paymentId}`,
      qr_code_image: `${stack.baseUrl}/checkout/pix-qr/${paymentId}`,
    });
    expect(r.body.crypto_amount).toBe('50.00');
    const png = await fetch(r.body.qr_code_image);
    expect(png.status).toBe(200);
    expect(png.headers.get('content-type')).toBe('image/png');
    const status = await api.status(paymentId);
    expect(status.body).toMatchObject({ status: 'pending', amount: 250, currency: 'BRL', crypto_amount: '50.00', crypto_currency: 'USDT' });
  });

  it('paid on the simulated page: success, the BRL amount credited once (ledger = balance); refunded in full', async () => {
    const fresh = await stack.createMerchant();
    const own = payments(stack, fresh);
    const r = await own.process(await session({ amount: 120 }, fresh), 'crypto');
    const paymentId = r.body.payment_id as string;
    const before = await balanceMinor(fresh);
    const done = await own.page('pay', paymentId, 'success');
    expect(done.status).toBe(303);
    expect((await own.status(paymentId)).body).toMatchObject({ status: 'success', crypto_amount: '24.00', crypto_currency: 'USDT' });
    expect(await balanceMinor(fresh)).toBe(before + 120_00);
    const refund = await refunds(stack, fresh).refundOf(paymentId, { reason: 'requested_by_customer' });
    expect(refund.status).toBe(200);
    expect(refund.body).toMatchObject({ status: expect.stringMatching(/^(pending|succeeded)$/), amount: 120 });
    expect(sum(await ledger(fresh))).toBe(await balanceMinor(fresh));
  });

  it('failed on the simulated page: failed, nothing credited', async () => {
    const fresh = await stack.createMerchant();
    const own = payments(stack, fresh);
    const r = await own.process(await session({ amount: 60 }, fresh), 'crypto');
    await own.page('pay', r.body.payment_id, 'failed');
    expect((await own.status(r.body.payment_id)).body.status).toBe('failed');
    expect(await balanceMinor(fresh)).toBe(0);
    expect(await ledger(fresh)).toHaveLength(0);
  });
});

describe('method_code: two codes of one kind in Colombia (Bre-B and PSE)', () => {
  const col = { country: 'COL', currency: 'COP', amount: 50_000 };

  it('the session offers both by their own names; bank_transfer alone is Bre-B, with method_code svc-mt-14 it is PSE', async () => {
    const id = await session(col);
    const offered = (await api.getSession(id)).body.available_methods as Array<Record<string, unknown>>;
    expect(offered.filter((x) => x.type === 'bank_transfer').map((x) => [x.id, x.method_code, x.name])).toEqual([
      ['pse', 'svc-mt-14', 'PSE'],
      ['bank_transfer', 'svc-mt-17', 'Bre-B'],
    ]);
    const breB = await api.process(id, 'bank_transfer', { customer: colombian });
    expect(breB.status).toBe(200);
    expect(breB.body.payment_method).toBe('bank_transfer');
    const pse = await api.process(await session(col), 'bank_transfer', { customer: colombian, method_code: 'svc-mt-14' });
    expect(pse.status).toBe(200);
    expect(pse.body).toMatchObject({ payment_method: 'pse', redirect_url: `${stack.baseUrl}/sandbox/wallet/${pse.body.payment_id}` });
  });

  it.each([
    [{ method_code: 'svc-mt-1' }, 'method_code'],
    [{ method_code: 'svc-mt-15' }, 'method_code'],
    [{ method_code: 'pse' }, 'method_code'],
    [{ wallet: 'picpay' }, 'wallet'],
  ])('refuses %j with a 400 naming the field, and writes nothing', async (extra, field) => {
    const fresh = await stack.createMerchant();
    const id = await session(col, fresh);
    const r = await payments(stack, fresh).process(id, 'bank_transfer', { customer: colombian, ...extra });
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ success: false, error_code: 'VALIDATION_ERROR' });
    expect(r.body.details.map((d: { field: string }) => d.field)).toEqual([field]);
    expect(await listed(fresh, 'PAYMENT')).toHaveLength(0);
  });
});

describe('wallet: Brazil’s wallets chosen by name', () => {
  it('the session lists the three wallets; the chosen one is kept with the payment', async () => {
    const id = await session();
    const offered = (await api.getSession(id)).body.available_methods as Array<Record<string, unknown>>;
    expect(offered.find((x) => x.id === 'wallet')).toMatchObject({ method_code: 'svc-mt-9', wallets: ['mercado_pago', 'picpay', 'nupay'] });
    const r = await api.process(id, 'wallet', { wallet: 'picpay' });
    expect(r.status).toBe(200);
    expect(r.body.status).toBe('pending');
  });

  it('a wallet outside the list is a 400 naming wallet, and writes nothing', async () => {
    const fresh = await stack.createMerchant();
    const r = await payments(stack, fresh).process(await session({}, fresh), 'wallet', { wallet: 'paypal' });
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ success: false, error_code: 'VALIDATION_ERROR' });
    expect(r.body.details.map((d: { field: string }) => d.field)).toEqual(['wallet']);
    expect(await listed(fresh, 'PAYMENT')).toHaveLength(0);
  });
});
