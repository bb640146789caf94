/**
 * Every path that commits an event has it dispatched by the table's stream (the eventDispatch consumer puts it
 * on the webhooks queue, the sender takes it from there): no scheduled job runs in this stack, nothing is
 * published by the request itself, and yet every event the merchant has leaves `pending` within seconds (this
 * merchant has no endpoint, so the sender records each as no_endpoint after its one attempt).
 */
import type { Context, ScheduledEvent } from 'aws-lambda';
import { handler as expireJob } from '../../functions/jobs/expire-payments.handler';
import { PAYMENT_EVENT } from '../../shared/domain/payments/payment';
import { PAYOUT_EVENT } from '../../shared/domain/payouts/payout';
import { card, events, payments } from '../support/payments';
import { startTestStack, type TestMerchant, type TestStack } from '../support/test-stack';

let stack: TestStack;
let m: TestMerchant;
let api: ReturnType<typeof payments>;
const seen = new Set<string>();

beforeAll(async () => {
  stack = await startTestStack({ workers: true });
  m = await stack.createMerchant();
  api = payments(stack, m);
});
afterAll(() => stack.stop());

/** All of the merchant's events so far went through the stream, the queue and the sender; returns their types. */
async function expectAllDispatched() {
  let items = await events(m);
  const pendingOf = () => items.filter((e) => e.delivery_status === 'pending').map((e) => `${e.type} ${e.event_id}`);
  for (let i = 0; i < 100 && pendingOf().length > 0; i++) {
    await new Promise((r) => setTimeout(r, 50));
    items = await events(m);
  }
  expect(pendingOf()).toEqual([]);
  for (const e of items) seen.add(e.type as string);
  return items.map((e) => e.type as string);
}

const payout = (document: string, over: Record<string, unknown> = {}) =>
  api.json('POST', '/api/v1/payout', {
    method_code: 'svc-mt-5',
    amount: 5,
    currency: 'BRL',
    beneficiary: {
      name: 'Ana Silva',
      document,
      document_type: 'CPF',
      instant_transfer_key: 'ana@example.com',
      instant_transfer_type: 'email',
    },
    ...over,
  });

async function payoutReaches(id: string, status: string) {
  const end = Date.now() + 15_000;
  while ((await api.json('GET', `/api/v1/payout/${id}`)).body.status !== status) {
    if (Date.now() > end) throw new Error(`payout ${id} never reached ${status}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('stream dispatch: every committed event reaches the sender', () => {
  it('payments: success, failed, 3DS, simulate and cancel', async () => {
    expect((await api.direct({ payment_method: 'card', card: card('4242424242424242') })).body.status).toBe('success');
    await expectAllDispatched();
    const declined = await api.direct({ payment_method: 'card', card: card('4000000000000002') });
    expect(declined.status).toBeGreaterThanOrEqual(400); // a decline answers in the error shape; its event is payment.failed
    await expectAllDispatched();
    const threeDs = await api.direct({ payment_method: 'card', card: card('4000000000003220') });
    expect(threeDs.body.status).toBe('pending_3ds');
    await expectAllDispatched();
    expect((await api.simulate(threeDs.body.payment_id, 'success')).status).toBe(200);
    await expectAllDispatched();
    const session = (await api.createSession()).body.session_id as string;
    const pix = await api.process(session, 'pix');
    expect(pix.status).toBe(200);
    expect((await api.cancelSession(session)).status).toBe(200);
    await expectAllDispatched();
  });

  it('expiry job: expired sessions and payments', async () => {
    const session = (await api.createSession()).body.session_id as string;
    expect((await api.process(session, 'pix')).status).toBe(200);
    const later = new Date(Date.now() + 48 * 3600_000).toISOString();
    const r = (await expireJob({ time: later } as ScheduledEvent, {} as Context)) as { expired: number };
    expect(r.expired).toBeGreaterThanOrEqual(2);
    await expectAllDispatched();
  });

  it('payouts: create, cancel and every settlement outcome', async () => {
    expect((await api.json('POST', '/api/v1/sandbox/balance/top-up', { currency: 'BRL', amount: 100 })).status).toBe(200);
    const ok = await payout('52998224725');
    const failing = await payout('00000000272');
    const refunded = await payout('00000000353');
    const held = await payout('00000000434');
    await expectAllDispatched();
    expect((await api.json('POST', `/api/v1/payout/${held.body.payout_id}/cancel`)).status).toBe(200);
    await expectAllDispatched();
    await payoutReaches(ok.body.payout_id, 'completed');
    await payoutReaches(failing.body.payout_id, 'failed');
    await payoutReaches(refunded.body.payout_id, 'refunded');
    await expectAllDispatched();
  });

  it('covered every event type the domain emits (refunds excepted until they exist)', () => {
    const emitted = [
      ...Object.values(PAYMENT_EVENT),
      ...Object.values(PAYOUT_EVENT),
      'checkout.session.cancelled',
      'checkout.session.expired',
    ].filter((t) => t !== 'payment.refunded');
    expect([...seen].sort()).toEqual(expect.arrayContaining(emitted.sort()));
  });
});
