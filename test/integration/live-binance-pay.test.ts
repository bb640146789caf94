/**
 * Live crypto (USDT, svc-mt-4) through Binance Pay (issue 41), over real HTTP on the local engines against the fake
 * Binance Pay: a BRL session's order priced by Binance Pay's own quote (the payment keeps both amounts), paid and
 * settled only after its notification is verified and the order read back (balance, ledger, signed webhook); a
 * forged notification (401, nothing moves); a missed one found by the reconciliation job; an order paid with another
 * USDT amount recorded, never settled; an order expired at Binance; a refund returning USDT in proportion.
 */
import '../support/log-level-info';
import { reconcileHeldPayments } from '../../shared/application/rails';
import { merchantTradeNoOf } from '../../shared/adapters/providers/binance-pay/binance-pay.transformers';
import { paymentDeps } from '../../shared/wiring';
import { startFakeBinancePay, type FakeBinancePay } from '../support/fake-binance-pay';
import { verifyWebhook } from '../support/merchant-verify';
import { balanceMinorOf, expectLedgerEqualsBalance, startLiveStage, type LiveMerchant, type LiveStage } from '../support/live-stage';
import type { TestMerchant, TestStack } from '../support/test-stack';
import { payments } from '../support/payments';

let fake: FakeBinancePay;
let stack: TestStack;
let merchant: LiveMerchant;
let live: LiveStage;

beforeAll(async () => {
  fake = await startFakeBinancePay({ hangMs: 5_000 });
  fake.setRate('BRL', '5.00');
  live = await startLiveStage(
    { binance_pay: fake.binancePayConfig({ timeouts: { connect_ms: 1000, total_ms: 1500 } }) },
    { merchantName: 'Loja Cripto', receiver: true },
  );
  ({ stack, merchant } = live);
});

afterEach(() => {
  expect(fake.violations).toEqual([]);
  fake.clearFaults();
  fake.setWebhookMode('send');
});

afterAll(async () => {
  await live?.stop();
  await fake?.close();
});

const shopper = { name: 'Paula Souza', email: 'paula@example.com.br', document: '52998224725' };
const stored = async (id: string) => (await paymentDeps().store.getPayment(id))!;
const status = async (id: string) =>
  (await stack.request(`/cashier/cashier/status/${merchant.merchantId}/${id}`, { apiKey: merchant.apiKey })).body;
const balance = () => balanceMinorOf(stack, merchant.apiKey, 'BRL');
const later = (seconds: number) => new Date(Date.now() + seconds * 1000);

async function order(amount = 100) {
  const api = payments(stack, merchant as TestMerchant);
  const session = await api.createSession({ amount, currency: 'BRL', country: 'BRA' });
  expect(session.status).toBe(200);
  const r = await api.process(session.body.session_id as string, 'crypto', { customer: shopper });
  return { r, id: r.body.payment_id as string, sessionId: session.body.session_id as string };
}

async function until(what: string, cond: () => Promise<boolean> | boolean, timeoutMs = 15_000) {
  const end = Date.now() + timeoutMs;
  while (!(await cond())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('live crypto through Binance Pay', () => {
  it('offered live only with the binance_pay block: discovery lists svc-mt-4, the session offers crypto', async () => {
    const methods = (await stack.request('/api/v1/methods?country=BRA', { apiKey: merchant.apiKey })).body.methods as Array<{
      method_code: string;
    }>;
    expect(methods.map((m) => m.method_code)).toEqual(['svc-mt-4']);
  });

  it('a BRL order priced by Binance Pay (QR, checkout page, USDT quote): paid, verified, read back, settled once', async () => {
    const before = await balance();
    const { r, id } = await order(100);
    expect(r.status).toBe(200);
    const held = fake.order(merchantTradeNoOf(id))!;
    expect(held.request).toMatchObject({ fiatAmount: 100, fiatCurrency: 'BRL', merchantTradeNo: merchantTradeNoOf(id) });
    expect(r.body).toMatchObject({ status: 'pending', payment_method: 'crypto', crypto_currency: 'USDT', crypto_amount: '20' });
    expect(r.body.qr_code).toEqual(expect.any(String));
    expect(r.body.checkout_url).toMatch(/^https:\/\//);
    expect(fake.creates(merchantTradeNoOf(id))).toBe(1);
    const answer = await fake.pay(merchantTradeNoOf(id));
    expect(answer?.status).toBe(200);
    expect(JSON.parse(answer!.body)).toEqual({ returnCode: 'SUCCESS', returnMessage: null });
    expect((await stored(id)).status).toBe('success');
    expect(await status(id)).toMatchObject({
      status: 'success',
      amount: 100,
      currency: 'BRL',
      crypto_amount: '20',
      crypto_currency: 'USDT',
      provider_attempts: [{ provider: 'binance_pay', outcome: 'succeeded' }],
    });
    expect(await balance()).toBe(before + 100_00);
    const [hook] = await live.receiver.waitFor(1, 20_000, (h) => h.body?.event === 'payment.success' && h.body?.payment_id === id);
    expect(verifyWebhook(hook!.rawBody, hook!.headers as Record<string, string>, merchant.webhookSecret).ok).toBe(true);
    // A duplicate notification moves nothing.
    expect((await fake.notify(merchantTradeNoOf(id))).status).toBe(200);
    expect(await balance()).toBe(before + 100_00);
    await expectLedgerEqualsBalance(stack, merchant, 'BRL');
  });

  it('a forged notification is 401 and moves nothing', async () => {
    const before = await balance();
    const { id } = await order(40);
    fake.setWebhookMode('withhold');
    await fake.pay(merchantTradeNoOf(id));
    const forged = await fake.notify(merchantTradeNoOf(id), { sign: 'forged' });
    expect(forged.status).toBe(401);
    expect((await stored(id)).status).toBe('pending');
    expect(await balance()).toBe(before);
    // Only the read-back of the order Binance Pay holds settles it.
    await reconcileHeldPayments(paymentDeps(), later(15));
    expect((await stored(id)).status).toBe('success');
    expect(await balance()).toBe(before + 40_00);
  });

  it('a missed notification: the reconciliation job reads the paid order back and settles it', async () => {
    const before = await balance();
    const { id } = await order(60);
    fake.setWebhookMode('withhold');
    await fake.pay(merchantTradeNoOf(id));
    expect((await stored(id)).status).toBe('pending');
    await reconcileHeldPayments(paymentDeps(), later(15));
    expect((await stored(id)).status).toBe('success');
    expect(await balance()).toBe(before + 60_00);
    await expectLedgerEqualsBalance(stack, merchant, 'BRL');
  });

  it('paid with another USDT amount: recorded and alarmed, never settled', async () => {
    const before = await balance();
    const { id } = await order(80);
    await fake.pay(merchantTradeNoOf(id), { amount: '10' });
    expect((await stored(id)).status).not.toBe('success');
    expect(await balance()).toBe(before);
  });

  it('expired at Binance Pay: the payment expires here, nothing credited', async () => {
    const before = await balance();
    const { id } = await order(30);
    expect((await status(id)).provider_attempts).toEqual([{ provider: 'binance_pay', outcome: 'pending' }]);
    await fake.expire(merchantTradeNoOf(id));
    expect((await stored(id)).status).toBe('expired');
    expect((await status(id)).provider_attempts).toEqual([{ provider: 'binance_pay', outcome: 'failed', failure_code: 'expired' }]);
    expect(await balance()).toBe(before);
  });

  it('a partial refund returns USDT in proportion to what was paid; the balance and the ledger agree', async () => {
    const { id } = await order(100);
    await fake.pay(merchantTradeNoOf(id));
    const before = await balance();
    fake.nextRefund('REFUND_SUCCESS');
    const r = await stack.request(`/api/v1/payments/${id}/refunds`, {
      method: 'POST',
      apiKey: merchant.apiKey,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ amount: 25 }),
    });
    expect(r.status).toBe(200);
    const prepayId = fake.order(merchantTradeNoOf(id))!.prepayId;
    await until('the refund at Binance Pay', () => fake.refundsOf(prepayId).length > 0);
    const [held] = fake.refundsOf(prepayId);
    // 25 of 100 BRL paid as 20 USDT: 5 USDT (in units of 1e-8).
    expect(held!.amount).toBe(500_000_000n);
    expect(await balance()).toBe(before - 25_00);
    await expectLedgerEqualsBalance(stack, merchant, 'BRL');
  });
});
