/**
 * Contract sweep, events: the webhook types the other suites never deliver to a receiver (payment.pending_3ds,
 * payment.cancelled, checkout.session.cancelled, checkout.session.expired), each caused the way a merchant or
 * shopper causes it and received signed by a real receiver (test/support/receiver.ts checks every delivery against
 * openapi.json's webhooks section), and the sandbox 3-D Secure pages a direct payment without return_url goes through.
 */
import type { Context, ScheduledEvent } from 'aws-lambda';
import { handler as expireJob } from '../../functions/jobs/expire-payments.handler';
import { card, payments } from '../support/payments';
import { startReceiver, type Receiver } from '../support/receiver';
import { expectGenuine } from '../support/signatures';
import { startTestStack, type TestMerchant, type TestStack } from '../support/test-stack';

jest.setTimeout(60_000);

let stack: TestStack;
let receiver: Receiver;
let m: TestMerchant;
let api: ReturnType<typeof payments>;

beforeAll(async () => {
  process.env.WEBHOOK_ALLOW_LOOPBACK = 'true';
  stack = await startTestStack({ workers: true });
  receiver = await startReceiver();
  m = await stack.createMerchant({ notification_url: receiver.url });
  api = payments(stack, m);
});
afterAll(async () => {
  await receiver.stop();
  await stack.stop();
});

/** The one delivery of `event` about the object `id`, with a genuine signature. */
async function delivered(event: string, id: string) {
  const [r] = await receiver.waitFor(1, 15_000, (x) => x.body?.event === event && (x.body.payment_id ?? x.body.checkout_session_id) === id);
  expectGenuine(r!, m.webhookSecret);
  return r!.body;
}

const form = (outcome: string) => ({
  method: 'POST',
  redirect: 'manual' as const,
  headers: { 'content-type': 'application/x-www-form-urlencoded' },
  body: `outcome=${outcome}`,
});

describe('webhooks', () => {
  it('a direct card needing 3-D Secure: payment.pending_3ds, then the challenge page completes it to the done page', async () => {
    const p = await api.direct({ payment_method: 'card', card: card('4000000000003220') }); // no return_url
    expect(p.body).toMatchObject({ status: 'pending_3ds', redirect_url: `${stack.baseUrl}/sandbox/3ds/${p.body.payment_id}` });
    const id: string = p.body.payment_id;
    expect(await delivered('payment.pending_3ds', id)).toMatchObject({
      status: 'pending_3ds',
      payment_method: 'card',
      merchant_id: m.merchantId,
    });

    const page = await stack.request(`/sandbox/3ds/${id}`);
    expect([page.status, page.headers.get('content-type')]).toEqual([200, expect.stringMatching(/^text\/html/)]);
    const done = await stack.request(`/sandbox/3ds/${id}`, form('success'));
    const next = new URL(done.headers.get('location') ?? '');
    expect([done.status, next.origin + next.pathname, next.searchParams.get('status')]).toEqual([
      303,
      `${stack.baseUrl}/sandbox/3ds/${id}/done`,
      'success',
    ]);
    const landing = await stack.request(next.pathname + next.search);
    expect([landing.status, landing.headers.get('content-type')]).toEqual([200, expect.stringMatching(/^text\/html/)]);
    expect(await delivered('payment.success', id)).toMatchObject({ status: 'success' });

    // The shopper's second click on the other button of a page left open: the payment already succeeded.
    const late = await stack.request(`/sandbox/3ds/${id}`, form('failed'));
    expect([late.status, late.body?.error?.code]).toEqual([409, 'PAYMENT_STATE_CONFLICT']);
  });

  it('a checkout card still in 3-D Secure when its session is cancelled: passing the challenge is 409 SESSION_NOT_PENDING', async () => {
    const session: string = (await api.createSession()).body.session_id;
    const p = await api.process(session, 'card', { card: card('4000000000003220') });
    expect(p.body.redirect_url).toBe(`${stack.baseUrl}/sandbox/3ds/${p.body.payment_id}`);
    expect((await api.cancelSession(session)).body.status).toBe('cancelled');
    const late = await stack.request(`/sandbox/3ds/${p.body.payment_id}`, form('success'));
    expect([late.status, late.body?.error?.code]).toEqual([409, 'SESSION_NOT_PENDING']);
  });

  it('cancelling a session with an open PIX payment: checkout.session.cancelled and payment.cancelled', async () => {
    const session: string = (await api.createSession()).body.session_id;
    const pix = await api.process(session, 'pix');
    expect(pix.body.status).toBe('pending');
    expect((await api.cancelSession(session)).body.status).toBe('cancelled');
    expect(await delivered('checkout.session.cancelled', session)).toMatchObject({ status: 'cancelled', merchant_id: m.merchantId });
    expect(await delivered('payment.cancelled', pix.body.payment_id)).toMatchObject({ status: 'cancelled', checkout_session_id: session });
  });

  it('a session left unpaid past expires_at: checkout.session.expired from the scheduled job', async () => {
    const s = await api.createSession({ expires_in_minutes: 5 });
    const later = new Date(Date.parse(s.body.expires_at) + 60_000).toISOString();
    await expireJob({ time: later } as ScheduledEvent, { getRemainingTimeInMillis: () => 60_000 } as Context);
    expect(await delivered('checkout.session.expired', s.body.session_id)).toMatchObject({ status: 'expired', merchant_id: m.merchantId });
    expect((await api.getSession(s.body.session_id)).body.status).toBe('expired');
  });
});
