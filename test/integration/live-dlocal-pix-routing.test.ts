/**
 * Live PIX through dLocal as a third PIX rail (issue 42, DESIGN.md 9.2), on the local engines (DynamoDB Local, fauxqs)
 * over real HTTP against the fake API Pix PSP (`api_pix`) and the fake dLocal: with the rule
 * `{"pix": {"BRA": {"providers": ["api_pix", "dlocal"]}}}` and the PSP refusing connections, the payment is created at
 * dLocal under its attempt-2 order_id (committed first), shown with dLocal's BR Code, paid there, settled by dLocal's
 * signed notification (read back first), and refunded through dLocal by its payment id, the refund settled by dLocal's
 * refund notification. A notification naming a charge of ours that dLocal does not hold for that payment moves nothing.
 * With dLocal first, a 5xx whose read-back finds nothing fails over to the PSP; the order landing late at dLocal and
 * paid is found by the watch and refunded at dLocal by its payment id, once.
 * A stage with only the dlocal block serves PIX through dLocal, and a charge still open at the payment's own expiry is
 * cancelled at dLocal by the reconciliation job (dLocal takes no expiry). Ledger = balance throughout.
 */
import { randomBytes } from 'node:crypto';
import { txidOf } from '../../shared/adapters/providers/api-pix/api-pix.transformers';
import { dlocalConnectors } from '../../shared/adapters/providers/dlocal/dlocal.connector';
import { parseProvidersConfig } from '../../shared/adapters/providers/providers.config';
import { pixOrderIdOf } from '../../shared/adapters/providers/dlocal/dlocal.pix-payin-transformers';
import { refundReferenceOf } from '../../shared/adapters/providers/dlocal/dlocal.transformers';
import { reconcileHeldPayments } from '../../shared/application/rails';
import { breakers } from '../../shared/application/routing';
import { paymentDeps } from '../../shared/wiring';
import { startFakeDlocal, type FakeDlocal } from '../support/fake-dlocal';
import { startFakePsp, type FakePsp } from '../support/fake-psp';
import { callAs, expectLedgerEqualsBalance, startLiveStage, until, type LiveMerchant, type LiveStage } from '../support/live-stage';
import { verifyWebhook } from '../support/merchant-verify';
import { customer } from '../support/payments';
import type { Receiver } from '../support/receiver';
import type { TestStack } from '../support/test-stack';

const TOKEN = randomBytes(24).toString('base64url');
let psp: FakePsp;
let fake: FakeDlocal;
let live: LiveStage;
let stack: TestStack;
let receiver: Receiver;
let merchant: LiveMerchant;

const timeouts = { connect_ms: 1000, total_ms: 1500 };
const providers = () => ({
  api_pix: { ...psp.apiPixConfig(TOKEN), timeouts },
  dlocal: { ...fake.dlocalConfig(), timeouts },
  routing: { pix: { BRA: { providers: ['api_pix', 'dlocal'] } } },
});

beforeAll(async () => {
  [psp, fake] = await Promise.all([startFakePsp({ hangMs: 5_000 }), startFakeDlocal({ hangMs: 5_000 })]);
  live = await startLiveStage(providers(), { merchantName: 'Loja Tres Trilhos', receiver: true });
  ({ stack, receiver, merchant } = live);
});

beforeEach(() => breakers.reset());

afterEach(async () => {
  await psp.outage(null);
  psp.clearFaults();
  expect(psp.violations).toEqual([]);
  expect(fake.violations).toEqual([]);
});

afterAll(async () => {
  await live?.stop();
  await Promise.all([psp?.close(), fake?.close()]);
});

const direct = (amount: number) =>
  callAs(stack, merchant.apiKey, 'POST', '/cashier/cashier/payment', {
    payment_method: 'pix',
    amount,
    currency: 'BRL',
    country: 'BRA',
    customer,
  });
const status = (id: string) => callAs(stack, merchant.apiKey, 'GET', `/cashier/cashier/status/${merchant.merchantId}/${id}`);
const stored = async (id: string) => (await paymentDeps().store.getPayment(id))!;
const hook = (pred: (b: Record<string, unknown>) => boolean) => receiver.waitFor(1, 20_000, (r) => Boolean(r.body && pred(r.body)));

describe('["api_pix", "dlocal"] with the API Pix PSP refusing connections', () => {
  it('made at dLocal under attempt 2, shown with its BR Code, paid, settled by its notification, refunded through dLocal', async () => {
    await psp.outage('refuse');
    const r = await direct(25);
    expect(r.status).toBe(200);
    const id = r.body.payment_id as string;
    const ref = pixOrderIdOf(id, 2);
    expect(ref).toMatch(/^dq[0-9a-f]{32}a2$/);
    const held = fake.payment(ref)!;
    expect(held.request).toMatchObject({
      payment_method_id: 'PQ',
      payment_method_flow: 'DIRECT',
      amount: 25,
      currency: 'BRL',
      country: 'BR',
    });
    expect(held.request.notification_url).toBe(`${stack.baseUrl}/providers/dlocal/notifications`);
    expect(r.body).toMatchObject({
      status: 'pending',
      pix_code: fake.pixPayIns.code(ref),
      provider_attempts: [
        { provider: 'api_pix', outcome: 'failed', failure_code: 'provider_unreachable' },
        { provider: 'dlocal', outcome: 'pending' },
      ],
    });
    expect(psp.cob(txidOf(id))).toBeUndefined();
    expect(await stored(id)).toMatchObject({
      provider: { name: 'dlocal', reference: ref, attempt: 2, details: { provider_payment_id: held.id } },
    });

    const paid = await fake.pixPayIns.pay(ref);
    expect(paid?.status).toBe(200);
    const [success] = await hook((b) => b.event === 'payment.success' && b.payment_id === id);
    expect(verifyWebhook(success!.rawBody, success!.headers as Record<string, string>, merchant.webhookSecret).ok).toBe(true);
    expect((await status(id)).body).toMatchObject({
      status: 'success',
      provider_attempts: [
        { provider: 'api_pix', outcome: 'failed', failure_code: 'provider_unreachable' },
        { provider: 'dlocal', outcome: 'succeeded' },
      ],
    });
    expect(await stored(id)).toMatchObject({ provider: { details: { end_to_end_id: held.id, provider_payment_id: held.id } } });
    // A duplicate notification changes nothing.
    expect((await fake.notify(ref)).status).toBe(200);

    // The refund goes to dLocal by its payment id (pending there), and dLocal's refund notification settles it.
    const refund = await callAs(stack, merchant.apiKey, 'POST', `/api/v1/payments/${id}/refunds`, { amount: 10 });
    expect(refund.status).toBe(200);
    const refundId = refund.body.refund_id as string;
    const [sent] = await until(
      async () => fake.refundsFor(refundReferenceOf(refundId)),
      (l) => l.length > 0,
      'the refund at dLocal',
    );
    expect(sent).toMatchObject({
      paymentId: held.id,
      amount: 10,
      currency: 'BRL',
      notificationUrl: `${stack.baseUrl}/providers/dlocal/notifications`,
    });
    fake.setRefundStatus(sent!.id, 'SUCCESS');
    expect((await fake.notifyRefund(sent!.id)).status).toBe(200);
    await hook((b) => b.event === 'refund.succeeded' && b.refund_id === refundId);
    expect(fake.refundsFor(refundReferenceOf(refundId))).toHaveLength(1);
    expect(psp.requests.some((q) => q.path.includes('/devolucao/'))).toBe(false);
    await expectLedgerEqualsBalance(stack, merchant, 'BRL');
  });

  it('a notification naming one of our dLocal references for a payment held elsewhere moves nothing', async () => {
    const r = await direct(26);
    expect(r.status).toBe(200);
    const id = r.body.payment_id as string;
    expect(r.body.provider_attempts).toEqual([{ provider: 'api_pix', outcome: 'pending' }]);
    const body = JSON.stringify({ id: 'D-4-forged', amount: 26, currency: 'BRL', status: 'PAID', order_id: pixOrderIdOf(id) });
    const answer = await fetch(`${stack.baseUrl}/providers/dlocal/notifications`, {
      method: 'POST',
      headers: fake.signedNotificationHeaders(body),
      body,
    });
    expect(answer.status).toBe(200);
    expect(await stored(id)).toMatchObject({ status: 'pending', provider: { name: 'api_pix', reference: txidOf(id) } });
  });
});

describe('["dlocal", "api_pix"]: a late success at dLocal', () => {
  afterAll(() => live.writeProviders(providers()));

  it('5xx and a read-back finding nothing: failover, the order watched; landing late and paid, it is refunded at dLocal once', async () => {
    live.writeProviders({ ...providers(), routing: { pix: { BRA: { providers: ['dlocal', 'api_pix'] } } } });
    fake.failNext('payments', { status: 500 });
    const r = await direct(28);
    expect(r.status).toBe(200);
    const id = r.body.payment_id as string;
    expect(r.body.provider_attempts).toEqual([
      { provider: 'dlocal', outcome: 'failed', failure_code: 'provider_no_answer' },
      { provider: 'api_pix', outcome: 'pending' },
    ]);
    expect(await stored(id)).toMatchObject({ provider: { name: 'api_pix', reference: txidOf(id, 2) } });
    // The first create lands after all (queued at dLocal), and the payer pays it.
    const ref = pixOrderIdOf(id);
    const late = dlocalConnectors(parseProvidersConfig({ dlocal: fake.dlocalConfig() }, 'test').dlocal!);
    const s = await stored(id);
    await late.pix.charges.createCharge({
      paymentId: id,
      reference: ref,
      amountMinor: 2800,
      merchantName: 'Loja Tres Trilhos',
      createdAt: s.created_at,
      expiresAt: s.expires_at!,
      debtor: { document: customer.document, name: customer.name },
      payerEmail: customer.email,
      callbackBaseUrl: stack.baseUrl,
    });
    late.client.close();
    // Its notification names an abandoned attempt: unknown here, nothing moves (the watch returns it).
    expect((await fake.pixPayIns.pay(ref))?.status).toBe(200);
    expect(await stored(id)).toMatchObject({ status: 'pending', provider: { name: 'api_pix' } });

    const deps = paymentDeps();
    await reconcileHeldPayments(deps, new Date(Date.now() + 120_000));
    const dlocalId = fake.payment(ref)!.id;
    const refunds = () =>
      fake.requests.filter(
        (q) => q.method === 'POST' && q.path === '/refunds' && (q.body as { payment_id?: string }).payment_id === dlocalId,
      );
    expect(refunds().map((q) => q.body)).toEqual([expect.objectContaining({ payment_id: dlocalId, amount: 28, currency: 'BRL' })]);
    // Pending at dLocal: read back on the next runs, never sent again.
    await reconcileHeldPayments(deps, new Date(Date.now() + 240_000));
    await reconcileHeldPayments(deps, new Date(Date.now() + 480_000));
    expect(refunds()).toHaveLength(1);
    expect(await stored(id)).toMatchObject({ status: 'pending', provider: { name: 'api_pix' } });
  });
});

describe('a stage with only the dlocal block', () => {
  afterAll(() => live.writeProviders(providers()));

  it('offers PIX in Brazil and serves it through dLocal under attempt 1', async () => {
    live.writeProviders({ dlocal: { ...fake.dlocalConfig(), timeouts } });
    const methods = await callAs(stack, merchant.apiKey, 'GET', '/api/v1/methods?country=BRA');
    expect((methods.body.methods as Array<{ method_code: string }>).map((m) => m.method_code)).toContain('svc-mt-1');
    const r = await direct(30);
    expect(r.status).toBe(200);
    const id = r.body.payment_id as string;
    const ref = pixOrderIdOf(id);
    expect(r.body).toMatchObject({
      status: 'pending',
      pix_code: fake.pixPayIns.code(ref),
      provider_attempts: [{ provider: 'dlocal', outcome: 'pending' }],
    });
    await fake.pixPayIns.pay(ref);
    await hook((b) => b.event === 'payment.success' && b.payment_id === id);
    expect(await stored(id)).toMatchObject({ status: 'success', provider: { name: 'dlocal', reference: ref } });
    await expectLedgerEqualsBalance(stack, merchant, 'BRL');
  });

  it('unpaid past the payment’s own expiry (dLocal’s ticket lives longer): cancelled at dLocal by the job, expired here', async () => {
    live.writeProviders({ dlocal: { ...fake.dlocalConfig(), timeouts } });
    const r = await direct(31);
    expect(r.status).toBe(200);
    const id = r.body.payment_id as string;
    const ref = pixOrderIdOf(id);
    const expiresAt = Date.parse((await stored(id)).expires_at!);
    expect(Date.parse(fake.payment(ref)!.qrExpirationDate)).toBeGreaterThan(expiresAt);
    await reconcileHeldPayments(paymentDeps(), new Date(expiresAt + 10_000));
    expect(fake.payment(ref)!.status).toBe('CANCELLED');
    expect(await stored(id)).toMatchObject({ status: 'expired' });
    // A notification of the cancelled charge changes nothing.
    expect((await fake.notify(ref)).status).toBe(200);
    expect(await stored(id)).toMatchObject({ status: 'expired' });
  });
});
