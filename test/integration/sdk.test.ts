/**
 * The SDK (sdk/src) against the local stack over real HTTP, pay-in side: payment methods, hosted checkout,
 * direct payments, sandbox simulation, refunds, typed errors with the request id, idempotency as a merchant
 * sees it, and webhooks.verify on real deliveries. Payouts, balance and events: sdk-payouts.test.ts.
 */
import {
  AuthenticationError,
  IdempotencyError,
  LatamPayments,
  NotFoundError,
  SignatureVerificationError,
  ValidationError,
  type PaymentMethod,
  type WebhookEvent,
} from '../../sdk/src/index.ts';
import { startTestStack, type TestMerchant, type TestStack } from '../support/test-stack';
import { startReceiver, type Receiver } from '../support/receiver';
import { customer, listed } from '../support/payments';
import { SESSION_BODY } from '../support/sample-data';
import { rejection, until } from '../support/sdk-waits';

jest.setTimeout(60_000);

let stack: TestStack;
let receiver: Receiver;
let m: TestMerchant;
let client: LatamPayments;

beforeAll(async () => {
  Object.assign(process.env, { REFUND_SETTLEMENT_DELAY_SECONDS: '0', WEBHOOK_ALLOW_LOOPBACK: 'true', WEBHOOK_RETRY_SCHEDULE: '0,1' });
  stack = await startTestStack({ workers: true });
  receiver = await startReceiver();
  m = await stack.createMerchant({ notification_url: receiver.url });
  client = new LatamPayments({ apiKey: m.apiKey, baseUrl: stack.baseUrl, merchantId: m.merchantId });
});
afterAll(async () => {
  await receiver.stop();
  await stack.stop();
});

describe('methods', () => {
  it('list: awaited gives the page, iterated gives every method; retrieve gives one', async () => {
    const page = await client.methods.list({ country: 'BRA' });
    expect(page.total).toBe(page.methods.length);
    const iterated: PaymentMethod[] = [];
    for await (const method of client.methods.list({ country: 'BRA' })) iterated.push(method);
    expect(iterated).toEqual(page.methods);
    expect(iterated.map((x) => x.method_code)).toContain('svc-mt-1');
    expect(iterated.every((x) => x.country === 'BRA' || x.country === 'GLOBAL')).toBe(true);
    expect(await client.methods.retrieve('svc-mt-1')).toMatchObject({ method_code: 'svc-mt-1', payment_type: 'pix' });
  });
});

describe('checkout.sessions', () => {
  it('create, retrieve, cancel: what the API stores and answers', async () => {
    const created = await client.checkout.sessions.create(SESSION_BODY);
    expect(created).toMatchObject({ success: true, status: 'redirect', session_id: expect.stringMatching(/^cs_/) });
    const session = await client.checkout.sessions.retrieve(created.session_id);
    expect(session).toMatchObject({ id: created.session_id, merchant_id: m.merchantId, amount: 100.5, status: 'pending' });
    expect(await client.checkout.sessions.cancel(created.session_id)).toMatchObject({ success: true });
    expect((await client.checkout.sessions.retrieve(created.session_id)).status).toBe('cancelled');
  });

  it('the same idempotency key creates one session and answers the same; another body with it is IdempotencyError', async () => {
    const key = `order-${Date.now()}`;
    const first = await client.checkout.sessions.create({ ...SESSION_BODY, order_number: key }, { idempotencyKey: key });
    const again = await client.checkout.sessions.create({ ...SESSION_BODY, order_number: key }, { idempotencyKey: key });
    expect(again.session_id).toBe(first.session_id);
    // lastResponse: the key sent, the request id, and whether the API answered from its idempotency record.
    expect(first.lastResponse).toMatchObject({ status: 200, idempotencyKey: key, replayed: false, requestId: expect.any(String) });
    expect(again.lastResponse).toMatchObject({ idempotencyKey: key, replayed: true });
    expect(again.lastResponse.requestId).not.toBe(first.lastResponse.requestId);
    expect(Object.keys(again)).not.toContain('lastResponse');
    const sessions = (await listed(m, 'SESSION')).filter((s) => s.order_number === key);
    expect(sessions).toHaveLength(1);
    const e = await rejection(client.checkout.sessions.create({ ...SESSION_BODY, amount: 7, order_number: key }, { idempotencyKey: key }));
    expect(e).toBeInstanceOf(IdempotencyError);
    expect({ status: e.status, code: e.code }).toEqual({ status: 422, code: 'IDEMPOTENCY_KEY_REUSED' });
  });
});

describe('payments, sandbox.payments, refunds', () => {
  it('a PIX payment: create, retrieve, simulate success, refund, list and retrieve the refund', async () => {
    const created = await client.payments.create({ payment_method: 'pix', amount: 25, currency: 'BRL', country: 'BRA', customer });
    expect(created).toMatchObject({ status: 'pending', payment_method: 'pix', pix_code: expect.any(String) });
    const id = created.payment_id;
    expect(await client.payments.retrieve(id)).toMatchObject({ payment_id: id, merchant_id: m.merchantId, status: 'pending' });

    expect(await client.sandbox.payments.simulate(id, { outcome: 'success' })).toMatchObject({ payment_id: id, status: 'success' });
    expect((await client.payments.retrieve(id)).status).toBe('success');

    const refund = await client.payments.refunds.create(id, { amount: 10, metadata: { ticket: 'T-1' } });
    expect(refund).toMatchObject({ payment_id: id, amount: 10, status: 'pending', refund_id: expect.stringMatching(/^re_/) });
    const summary = await client.payments.refunds.list(id);
    expect(summary).toMatchObject({ payment_id: id, refunded_amount: 10 });
    const listedRefunds = [];
    for await (const r of client.payments.refunds.list(id)) listedRefunds.push(r.refund_id);
    expect(listedRefunds).toEqual([refund.refund_id]);
    const settled = await until(
      () => client.refunds.retrieve(refund.refund_id),
      (r) => r.status === 'succeeded',
    );
    expect(settled).toMatchObject({ refund_id: refund.refund_id, amount: 10, metadata: { ticket: 'T-1' } });
  });

  it('payments.retrieve needs the merchant id, and another merchant cannot read the payment (NotFoundError)', async () => {
    const { payment_id } = await client.payments.create({ payment_method: 'pix', amount: 5, currency: 'BRL', country: 'BRA', customer });
    const bare = new LatamPayments({ apiKey: m.apiKey, baseUrl: stack.baseUrl });
    await expect(bare.payments.retrieve(payment_id)).rejects.toThrow(/merchant id/);
    expect(await bare.payments.retrieve(payment_id, { merchant_id: m.merchantId })).toMatchObject({ payment_id });
    const other = await stack.createMerchant();
    const theirs = new LatamPayments({ apiKey: other.apiKey, baseUrl: stack.baseUrl, merchantId: other.merchantId });
    const e = await rejection(theirs.payments.retrieve(payment_id));
    expect(e).toBeInstanceOf(NotFoundError);
    expect(e.code).toBe('not_found');
  });
});

describe('errors', () => {
  it('a wrong key is AuthenticationError with the X-Request-Id of the answer', async () => {
    const bad = new LatamPayments({ apiKey: 'sk_test_not_a_real_key', baseUrl: stack.baseUrl });
    const e = await rejection(bad.balance.retrieve());
    expect(e).toBeInstanceOf(AuthenticationError);
    expect({ status: e.status, code: e.code }).toEqual({ status: 401, code: 'UNAUTHORIZED' });
    expect(e.requestId).toMatch(/\S{8,}/);
    expect(e.requestId).toBe(e.headers.get('x-request-id'));
    expect(e.raw.error.request_id).toBe(e.requestId);
  });

  it('an invalid create is ValidationError with the fields; unknown ids are NotFoundError', async () => {
    const e = await rejection(client.checkout.sessions.create({ ...SESSION_BODY, amount: -1, success_url: 'nope' }));
    expect(e).toBeInstanceOf(ValidationError);
    expect(e.code).toBe('VALIDATION_ERROR');
    expect(e.details.map((d: { field: string }) => d.field)).toEqual(expect.arrayContaining(['amount', 'success_url']));
    const direct = await rejection(client.payments.create({ payment_method: 'pix', amount: 0, currency: 'BRL', country: 'BRA', customer }));
    expect(direct).toBeInstanceOf(ValidationError);
    expect(direct.code).toBe('invalid_request');
    expect(await rejection(client.checkout.sessions.retrieve('cs_AAAAAAAAAAAAAAAAAAAAAAAA'))).toBeInstanceOf(NotFoundError);
    expect(await rejection(client.refunds.retrieve('re_AAAAAAAAAAAAAAAAAAAAAAAA'))).toBeInstanceOf(NotFoundError);
  });
});

describe('webhooks.verify on real deliveries', () => {
  it('returns the typed event for a payment delivery; refuses a tampered body, a wrong secret, an old timestamp', async () => {
    const { payment_id } = await client.payments.create({ payment_method: 'pix', amount: 3, currency: 'BRL', country: 'BRA', customer });
    await client.sandbox.payments.simulate(payment_id, { outcome: 'success' });
    const [delivery] = await receiver.waitFor(1, 15_000, (r) => r.body?.payment_id === payment_id && r.body?.event === 'payment.success');
    const { rawBody, headers } = delivery!;
    expect(headers['x-signature']).toBeDefined();

    const event: WebhookEvent = client.webhooks.verify(rawBody, headers, m.webhookSecret);
    expect(event).toEqual(JSON.parse(rawBody.toString('utf8')));
    if (event.event !== 'payment.success') throw new Error(`got ${event.event}`);
    expect(event.payment_id).toBe(payment_id);
    expect(client.webhooks.verify(rawBody.toString('utf8'), new Headers(headers as Record<string, string>), m.webhookSecret)).toEqual(
      event,
    );

    const tampered = Buffer.from(rawBody.toString('utf8').replace('"amount":3', '"amount":300'));
    expect(tampered.equals(rawBody)).toBe(false);
    expect(() => client.webhooks.verify(tampered, headers, m.webhookSecret)).toThrow(SignatureVerificationError);
    const other = await stack.createMerchant();
    expect(() => client.webhooks.verify(rawBody, headers, other.webhookSecret)).toThrow(SignatureVerificationError);
    const sentAt = Number(headers['webhook-timestamp']) * 1000;
    expect(() => client.webhooks.verify(rawBody, headers, m.webhookSecret, { now: new Date(sentAt + 301_000) })).toThrow(
      /Webhook-Timestamp/,
    );
    expect(() => client.webhooks.verify(rawBody, headers, m.webhookSecret, { now: new Date(sentAt + 299_000) })).not.toThrow();
  });
});
