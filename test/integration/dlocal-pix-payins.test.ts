/**
 * dLocal's PIX pay-ins connector against the fake dLocal, over real HTTPS: a charge is dLocal's Pix (PQ, DIRECT) under
 * our order_id with our notification route, its BR Code shown; a repeated create is read back, never made twice; read
 * back by order_id (not found only on dLocal's 4000); paid, removed by dLocal's cancel, refunded by dLocal's payment id
 * and read back by our refund reference; and what may fail over: a create that never left (refused, reset) is
 * notSent, a documented not-processed refusal is notProcessed, while a hang, a lost answer, a refusal about the payer or
 * a rejection is not.
 */
import { randomBytes } from 'node:crypto';
import { ProviderRejected, ProviderUnavailable, type PixChargeRequest } from '../../shared/application/providers';
import { isPixBrCode } from '../../shared/domain/payments/pix-brcode';
import { parseProvidersConfig } from '../../shared/adapters/providers/providers.config';
import { dlocalConnectors, type DlocalConnectors } from '../../shared/adapters/providers/dlocal/dlocal.connector';
import { pixOrderIdOf } from '../../shared/adapters/providers/dlocal/dlocal.pix-payin-transformers';
import { refundReferenceOf } from '../../shared/adapters/providers/dlocal/dlocal.transformers';
import { CPF } from '../support/sample-data';
import { startFakeDlocal, type FakeDlocal } from '../support/fake-dlocal';

const BASE = 'https://api.example.com';
let fake: FakeDlocal;
let c: DlocalConnectors;

beforeAll(async () => {
  fake = await startFakeDlocal({ hangMs: 5_000 });
  c = dlocalConnectors(
    parseProvidersConfig({ dlocal: { ...fake.dlocalConfig(), timeouts: { connect_ms: 1000, total_ms: 1000 } } }, 'test').dlocal!,
  );
});
afterEach(async () => {
  await fake.refuseConnections(null);
  expect(fake.violations).toEqual([]);
});
afterAll(async () => {
  c?.client.close();
  await fake?.close();
});

const paymentId = () => `pi_${randomBytes(16).toString('base64url')}`;
const charge = (id: string, over: Partial<PixChargeRequest> = {}): PixChargeRequest => ({
  paymentId: id,
  reference: pixOrderIdOf(id),
  amountMinor: 2550,
  merchantName: 'Loja',
  createdAt: new Date().toISOString(),
  expiresAt: new Date(Date.now() + 1_800_000).toISOString(),
  debtor: { document: CPF, name: 'Ana Silva' },
  description: 'Pedido 42',
  payerEmail: 'ana@example.com',
  callbackBaseUrl: BASE,
  ...over,
});
const creates = (orderId: string) =>
  fake.requests.filter((q) => q.path === '/payments' && (q.body as { order_id?: string }).order_id === orderId);

describe('a charge', () => {
  it('is dLocal’s Pix DIRECT under our order_id, its BR Code shown; a repeat is read back, never a second payment', async () => {
    const id = paymentId();
    const ref = pixOrderIdOf(id);
    const made = await c.pix.charges.createCharge(charge(id));
    const held = fake.payment(ref)!;
    expect(made).toEqual({ pixCode: fake.pixPayIns.code(ref), txid: ref, details: { provider_payment_id: held.id } });
    expect(isPixBrCode(made.pixCode)).toBe(true);
    expect(creates(ref)[0]!.body).toEqual({
      amount: 25.5,
      currency: 'BRL',
      country: 'BR',
      payment_method_id: 'PQ',
      payment_method_flow: 'DIRECT',
      payer: { name: 'Ana Silva', email: 'ana@example.com', document: CPF },
      order_id: ref,
      description: 'Pedido 42',
      notification_url: `${BASE}/providers/dlocal/notifications`,
    });
    expect(await c.pix.charges.getCharge!(ref)).toMatchObject({ kind: 'open', charge: made });
    // A retry after a lost answer: dLocal's 5009 "duplicated", answered by reading the payment back.
    await expect(c.pix.charges.createCharge(charge(id))).resolves.toEqual(made);
    expect(fake.creates(ref)).toBe(2);
    expect([...fake.requests].filter((q) => q.path === `/orders/${ref}`).length).toBeGreaterThanOrEqual(2);
  });

  it('a later attempt has its own order_id; a payment dLocal does not have is not found only on its 4000', async () => {
    const id = paymentId();
    await c.pix.charges.createCharge(charge(id, { reference: pixOrderIdOf(id, 2) }));
    expect(fake.payment(`${pixOrderIdOf(id)}a2`)).toBeDefined();
    expect(await c.pix.charges.getCharge!(pixOrderIdOf(id))).toEqual({ kind: 'not_found' });
    fake.failNext('order', { status: 404 });
    await expect(c.pix.charges.getCharge!(pixOrderIdOf(id))).rejects.toBeInstanceOf(ProviderUnavailable);
  });

  it('paid: one received Pix named by dLocal’s payment id; a removal leaves it paid', async () => {
    const id = paymentId();
    const ref = pixOrderIdOf(id);
    await c.pix.charges.createCharge(charge(id));
    await fake.pixPayIns.pay(ref, { notify: false });
    const dlocalId = fake.payment(ref)!.id;
    const paid = await c.pix.charges.getCharge!(ref);
    expect(paid).toMatchObject({ kind: 'paid', received: [{ endToEndId: dlocalId, amountMinor: 2550, providerPaymentId: dlocalId }] });
    expect(await c.pix.charges.removeCharge!(ref)).toEqual(paid);
    expect(fake.requests.some((q) => q.path.endsWith('/cancel'))).toBe(false);
  });

  it('open past its time: cancelled at dLocal, removed; dLocal rejecting or expiring it reads as removed too', async () => {
    const id = paymentId();
    const ref = pixOrderIdOf(id);
    await c.pix.charges.createCharge(charge(id));
    expect(await c.pix.charges.removeCharge!(ref)).toEqual({ kind: 'removed', received: [] });
    expect(fake.payment(ref)!.status).toBe('CANCELLED');
    expect(fake.requests.some((q) => q.method === 'POST' && q.path === `/payments/${fake.payment(ref)!.id}/cancel`)).toBe(true);
    const [rejected, expired] = [paymentId(), paymentId()];
    for (const other of [rejected, expired]) await c.pix.charges.createCharge(charge(other));
    await fake.pixPayIns.reject(pixOrderIdOf(rejected), '300', false);
    await fake.pixPayIns.expire(pixOrderIdOf(expired), false);
    for (const other of [rejected, expired])
      expect(await c.pix.charges.getCharge!(pixOrderIdOf(other))).toEqual({ kind: 'removed', received: [] });
  });

  it('refunded by dLocal’s payment id, read back by our reference first; not sent twice', async () => {
    const id = paymentId();
    const ref = pixOrderIdOf(id);
    const made = await c.pix.charges.createCharge(charge(id));
    await fake.pixPayIns.pay(ref, { notify: false });
    const dlocalId = made.details!.provider_payment_id!;
    const re = `re_${randomBytes(16).toString('base64url')}`;
    const ids = { endToEndId: dlocalId, refundId: re, providerPaymentId: dlocalId };
    expect(c.pix.refunds.repeatable).toBe(false);
    expect(await c.pix.refunds.get(ids)).toBeNull();
    expect(await c.pix.refunds.send({ ...ids, amountMinor: 1000, callbackBaseUrl: BASE })).toEqual({ refundId: re, kind: 'pending' });
    const [held] = fake.refundsFor(refundReferenceOf(re));
    expect(held).toMatchObject({
      paymentId: dlocalId,
      amount: 10,
      currency: 'BRL',
      notificationUrl: `${BASE}/providers/dlocal/notifications`,
    });
    fake.setRefundStatus(held!.id, 'SUCCESS');
    expect(await c.pix.refunds.get(ids)).toMatchObject({ refundId: re, kind: 'succeeded' });
    // Without a notification route nothing is sent.
    await expect(
      c.pix.refunds.send({ ...ids, refundId: `re_${randomBytes(16).toString('base64url')}`, amountMinor: 1 }),
    ).rejects.toMatchObject({
      notSent: true,
    });
    expect(fake.refundsFor(refundReferenceOf(re))).toHaveLength(1);
  });
});

describe('what may go to another PSP', () => {
  it.each(['closed', 'reset'] as const)('connections %s: never sent (notSent), nothing at dLocal', async (mode) => {
    const id = paymentId();
    await fake.refuseConnections(mode);
    const e = await c.pix.charges.createCharge(charge(id)).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(ProviderUnavailable);
    expect(e).toMatchObject({ notSent: true });
    await fake.refuseConnections(null);
    expect(fake.payment(pixOrderIdOf(id))).toBeUndefined();
  });

  it('a hang or a lost answer may have made it: not notSent, and the lost one is found by its read-back', async () => {
    const hung = paymentId();
    fake.failNext('payments', { hang: true });
    await expect(c.pix.charges.createCharge(charge(hung))).rejects.toMatchObject({ name: 'ProviderUnavailable', notSent: false });
    const lost = paymentId();
    fake.failNext('payments', { dropAfter: true });
    await expect(c.pix.charges.createCharge(charge(lost))).rejects.toMatchObject({ notSent: false });
    expect(await c.pix.charges.getCharge!(pixOrderIdOf(lost))).toMatchObject({ kind: 'open' });
  });

  it('a documented not-processed refusal is notProcessed; one about the payer, or a rejection, is not', async () => {
    fake.nextPayment({ refuse: 5007 });
    await expect(c.pix.charges.createCharge(charge(paymentId()))).rejects.toMatchObject({ code: 'limit_exceeded', notProcessed: true });
    fake.nextPayment({ refuse: 5014 });
    await expect(c.pix.charges.createCharge(charge(paymentId()))).rejects.toMatchObject({ code: 'payer_not_allowed', notProcessed: false });
    fake.nextPayment({ status: 'REJECTED', statusCode: '301' });
    const e = await c.pix.charges.createCharge(charge(paymentId())).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(ProviderRejected);
    expect(e).toMatchObject({ code: 'rejected_by_bank', notProcessed: false });
  });

  it('a payer without a CPF or CNPJ is refused before any call (notProcessed)', async () => {
    const id = paymentId();
    await expect(c.pix.charges.createCharge(charge(id, { debtor: undefined }))).rejects.toMatchObject({
      code: 'payer_document_required',
      notProcessed: true,
    });
    expect(creates(pixOrderIdOf(id))).toHaveLength(0);
  });
});
