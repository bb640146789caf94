/**
 * Webhook dispatch and delivery against the in-memory ports: a committed event goes to the delivery queue (the
 * table's stream does it; the recording publisher stands in for it here), each attempt is signed, recorded
 * and retried on the schedule until delivered, gone or dead-lettered.
 */
import type { Principal } from '../../../shared/application/access';
import { createDirectPayment } from '../../../shared/application/payins';
import { deliverMessage, deliveryCounts, getEvent, listEvents, resendEvent, type WebhookDeps } from '../../../shared/application/webhooks';
import { createPayout, topUpTestBalance } from '../../../shared/application/payouts';
import { verifyPayloadSignature, verifyStandardSignature } from '../../../shared/domain/webhooks/signature';
import {
  CARDS,
  card,
  directInput,
  errorCode,
  memoryAdmin,
  memoryMerchant,
  memoryPaymentDeps,
  memoryPayoutDeps,
  memoryWebhookDeps,
  memoryWorld,
  payoutInput,
  type MemoryWorld,
} from '../../support/in-memory';

let w: MemoryWorld;
let hooks: WebhookDeps;
let principal: Principal;
let secret: string;

beforeEach(async () => {
  w = memoryWorld({ retrySchedule: [0, 5, 300] });
  hooks = memoryWebhookDeps(w);
  ({ principal, webhookSecret: secret } = await memoryMerchant(w, { notification_url: 'https://merchant.example/hooks' }));
});

/** A successful card payment: one payment.success event, already on the queue. */
async function paidEvent(over: Record<string, unknown> = {}) {
  const id = w.ids.newId('pi_');
  await createDirectPayment(
    memoryPaymentDeps(w),
    principal,
    directInput({ payment_method: 'card', card: card(CARDS.approve), ...over }),
    id,
  );
  const event = w.publisher.events.find((e) => e.object_id === id)!;
  return { paymentId: id, event };
}

/** Delivers what the queue holds, once (one consumer pass). */
async function consume() {
  for (const { message } of w.queue.drain()) await deliverMessage(hooks, message);
}

describe('deliver', () => {
  it('posts the payload to the merchant URL, signed with its secret, and records the delivery', async () => {
    const { paymentId, event } = await paidEvent();
    expect(w.queue.sent.map((m) => m.message)).toEqual([{ event_id: event.event_id, attempt: 0 }]);
    await consume();
    const [req] = w.endpoint.received;
    expect(req!.url).toBe('https://merchant.example/hooks');
    expect(req!.body).toMatchObject({ event: 'payment.success', event_id: event.event_id, payment_id: paymentId, status: 'success' });
    expect(verifyPayloadSignature(req!.rawBody, req!.headers['x-signature'], secret)).toBe(true);
    expect(
      verifyStandardSignature({
        id: req!.headers['webhook-id'],
        timestamp: req!.headers['webhook-timestamp'],
        signatureHeader: req!.headers['webhook-signature'],
        rawBody: req!.rawBody,
        secret,
        nowSec: Math.floor(w.clock.now().getTime() / 1000),
      }),
    ).toBe(true);
    const stored = await getEvent(hooks, principal, event.event_id);
    expect(stored).toMatchObject({ delivery_status: 'delivered', delivered_at: w.clock.iso() });
    expect(stored.attempts).toEqual([
      { attempt: 0, at: w.clock.iso(), url: 'https://merchant.example/hooks', status: 200, error: null, duration_ms: 3 },
    ]);
    expect(w.queue.sent).toEqual([]);
  });

  it("the object's notification_url wins over the merchant default; payout events carry x-webhook-signature", async () => {
    await paidEvent({ notification_url: 'https://shop.example/payments' });
    await topUpTestBalance(memoryPayoutDeps(w), principal.merchant.merchant_id, 'BRL', 100);
    await createPayout(memoryPayoutDeps(w), principal, payoutInput({ amount: 10 }), w.ids.newId('po_'));
    await consume();
    expect(w.endpoint.received.map((r) => [r.body.event, r.url])).toEqual([
      ['payment.success', 'https://shop.example/payments'],
      ['payout.processing', 'https://merchant.example/hooks'],
    ]);
    expect(verifyPayloadSignature(w.endpoint.received[1]!.rawBody, w.endpoint.received[1]!.headers['x-webhook-signature'], secret)).toBe(
      true,
    );
  });

  it('a delivered event is not sent again by a duplicate message; a resend (manual) is', async () => {
    const { event } = await paidEvent();
    await consume();
    expect(await deliverMessage(hooks, { event_id: event.event_id, attempt: 0 })).toBe('skipped');
    expect(w.endpoint.received).toHaveLength(1);
    await resendEvent(hooks, principal, event.event_id);
    await consume();
    expect(w.endpoint.received).toHaveLength(2);
    expect((await getEvent(hooks, principal, event.event_id)).attempts).toHaveLength(2);
  });

  it('no URL for the object or the merchant: no_endpoint, nothing sent, no retry', async () => {
    ({ principal } = await memoryMerchant(w));
    const { event } = await paidEvent();
    await consume();
    expect(w.endpoint.received).toEqual([]);
    expect(await getEvent(hooks, principal, event.event_id)).toMatchObject({ delivery_status: 'no_endpoint' });
    expect(w.queue.sent).toEqual([]);
  });

  it('after a secret rotation both secrets sign until the previous one expires', async () => {
    const { event } = await paidEvent();
    const rotated = await memoryAdmin(w).rotateWebhookSecret(principal.merchant.merchant_id);
    await consume();
    const header = w.endpoint.received[0]!.headers['x-signature'];
    expect(verifyPayloadSignature(w.endpoint.received[0]!.rawBody, header, rotated.webhookSecret)).toBe(true);
    expect(verifyPayloadSignature(w.endpoint.received[0]!.rawBody, header, secret)).toBe(true);
    w.clock.advance(24 * 3600_000 + 1);
    await resendEvent(hooks, principal, event.event_id);
    await consume();
    expect(w.endpoint.received[1]!.headers['x-signature']!.split(',')).toHaveLength(1);
  });

  it("another merchant cannot read or resend the event; listing shows the merchant's own, newest first", async () => {
    const first = await paidEvent();
    w.clock.advanceSeconds(1);
    const second = await paidEvent();
    const other = (await memoryMerchant(w)).principal;
    expect(await errorCode(getEvent(hooks, other, first.event.event_id))).toBe('EVENT_NOT_FOUND');
    expect(await errorCode(resendEvent(hooks, other, first.event.event_id))).toBe('EVENT_NOT_FOUND');
    expect((await listEvents(hooks, principal, { limit: 10 })).items.map((e) => e.event_id)).toEqual([
      second.event.event_id,
      first.event.event_id,
    ]);
    expect((await listEvents(hooks, other, { limit: 10 })).items).toEqual([]);
    const page1 = await listEvents(hooks, principal, { limit: 1 });
    const page2 = await listEvents(hooks, principal, { limit: 1, cursor: page1.nextCursor ?? undefined });
    expect([...page1.items, ...page2.items].map((e) => e.event_id)).toEqual([second.event.event_id, first.event.event_id]);
  });
});

describe('retry scheduling', () => {
  it('a failing endpoint is retried on the schedule (jittered ±10%), then dead-lettered', async () => {
    w.endpoint.always({ ok: false, status: 500 });
    const { event } = await paidEvent();
    await consume();
    expect(await getEvent(hooks, principal, event.event_id)).toMatchObject({ delivery_status: 'retrying' });
    const [retry1] = w.queue.drain();
    expect(retry1!.message).toMatchObject({ event_id: event.event_id, attempt: 1 });
    expect(retry1!.delaySeconds).toBeGreaterThanOrEqual(4);
    expect(retry1!.delaySeconds).toBeLessThanOrEqual(6);
    w.clock.advanceSeconds(retry1!.delaySeconds!);
    expect(await deliverMessage(hooks, retry1!.message)).toBe('retrying');
    const [retry2] = w.queue.drain();
    expect(retry2!.message.attempt).toBe(2);
    expect(retry2!.delaySeconds).toBeGreaterThanOrEqual(270);
    expect(retry2!.delaySeconds).toBeLessThanOrEqual(330);
    w.clock.advanceSeconds(retry2!.delaySeconds!);
    expect(await deliverMessage(hooks, retry2!.message)).toBe('dead_lettered');
    expect(w.queue.sent).toEqual([]);
    expect(w.queue.deadLetters).toEqual([{ event_id: event.event_id, attempt: 2 }]);
    const stored = await getEvent(hooks, principal, event.event_id);
    expect(stored.delivery_status).toBe('dead_lettered');
    expect(stored.attempts.map((a) => [a.attempt, a.status])).toEqual([
      [0, 500],
      [1, 500],
      [2, 500],
    ]);
  });

  it('a message received before its not_before hops again without an attempt', async () => {
    const { event } = await paidEvent();
    w.queue.drain();
    const notBefore = w.clock.now().getTime() + 3600_000;
    expect(await deliverMessage(hooks, { event_id: event.event_id, attempt: 3, not_before: notBefore })).toBe('deferred');
    expect(w.endpoint.received).toEqual([]);
    expect(w.queue.drain()).toEqual([{ message: { event_id: event.event_id, attempt: 3, not_before: notBefore }, delaySeconds: 900 }]);
    expect((await getEvent(hooks, principal, event.event_id)).attempts).toEqual([]);
  });

  it('410 Gone stops the retries; a recovered endpoint ends them delivered', async () => {
    w.endpoint.respond({ ok: false, status: 410 });
    const gone = await paidEvent();
    await consume();
    expect(await getEvent(hooks, principal, gone.event.event_id)).toMatchObject({ delivery_status: 'gone' });
    expect(w.queue.sent).toEqual([]);

    w.endpoint.respond({ ok: false, error: 'ECONNRESET' });
    const flaky = await paidEvent();
    await consume();
    w.clock.advanceSeconds(10);
    await consume();
    const stored = await getEvent(hooks, principal, flaky.event.event_id);
    expect(stored.delivery_status).toBe('delivered');
    expect(stored.attempts.map((a) => [a.attempt, a.status, a.error])).toEqual([
      [0, null, 'ECONNRESET'],
      [1, 200, null],
    ]);
  });

  it('an endpoint the SSRF rules refuse is recorded as no_endpoint, never called', async () => {
    ({ principal } = await memoryMerchant(w, { notification_url: 'https://user:pw@merchant.example/hooks' }));
    const { event } = await paidEvent();
    await consume();
    expect(w.endpoint.received).toEqual([]);
    const stored = await getEvent(hooks, principal, event.event_id);
    expect(stored.delivery_status).toBe('no_endpoint');
    expect(stored.attempts[0]!.error).toMatch(/^refused: /);
  });
});

describe('delivery metrics', () => {
  it('each outcome counts as the alarms read it: attempts, failed attempts, delivered, dead-lettered, no endpoint', () => {
    const zero = { WebhookAttempts: 0, WebhookAttemptsFailed: 0, WebhookDelivered: 0, WebhookDeadLettered: 0, WebhookNoEndpoint: 0 };
    expect(deliveryCounts('delivered')).toEqual({ ...zero, WebhookAttempts: 1, WebhookDelivered: 1 });
    expect(deliveryCounts('retrying')).toEqual({ ...zero, WebhookAttempts: 1, WebhookAttemptsFailed: 1 });
    expect(deliveryCounts('gone')).toEqual({ ...zero, WebhookAttempts: 1, WebhookAttemptsFailed: 1 });
    expect(deliveryCounts('dead_lettered')).toEqual({ ...zero, WebhookAttempts: 1, WebhookAttemptsFailed: 1, WebhookDeadLettered: 1 });
    expect(deliveryCounts('no_endpoint')).toEqual({ ...zero, WebhookNoEndpoint: 1 });
    expect(deliveryCounts('deferred')).toEqual(zero);
    expect(deliveryCounts('skipped')).toEqual(zero);
  });
});
