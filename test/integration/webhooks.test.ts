/**
 * Webhook delivery end to end on the local engines: state change -> table stream ->
 * SQS -> sender -> a real HTTP receiver on loopback, signed, retried, recorded.
 */
import { createDirectPayment } from '../../shared/application/payins';
import { paymentDeps } from '../../shared/wiring';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../../bin/cli/run';
import { startTestStack, type TestMerchant, type TestStack } from '../support/test-stack';
import { card, customer, events, payments } from '../support/payments';
import { startReceiver, type Receiver } from '../support/receiver';
import { expectGenuine } from '../support/signatures';
import { engines } from '../support/engines';
import { queueUrlEnv } from '../../shared/manifest/queues';

jest.setTimeout(60_000);

let stack: TestStack;
let receiver: Receiver;
let m: TestMerchant;
let api: ReturnType<typeof payments>;

beforeAll(async () => {
  Object.assign(process.env, { WEBHOOK_ALLOW_LOOPBACK: 'true', WEBHOOK_RETRY_SCHEDULE: '0,1,1', WEBHOOK_TIMEOUT_MS: '800' });
  stack = await startTestStack({ workers: true });
  receiver = await startReceiver();
  m = await stack.createMerchant({ notification_url: receiver.url });
  api = payments(stack, m);
});
afterAll(async () => {
  await receiver.stop();
  await stack.stop();
});
beforeEach(() => receiver.script([], 200));

const forPayment = (id: string) => (r: { body: any }) => r.body?.payment_id === id;

describe('delivery', () => {
  it('payment.success, payment.failed and payment.expired arrive signed, as JSON, with a service user agent', async () => {
    const ok = await api.direct({ payment_method: 'card', card: card('4242424242424242') });
    const declined = await api.direct({ payment_method: 'card', card: card('4000000000000002') });
    process.env.PIX_EXPIRY_SECONDS = '1';
    const pix = await api.direct();
    delete process.env.PIX_EXPIRY_SECONDS;
    await new Promise((r) => setTimeout(r, 1200));
    await api.status(pix.body.payment_id); // the read settles the expiry and emits payment.expired
    const [success] = await receiver.waitFor(1, 15_000, forPayment(ok.body.payment_id));
    const [failed] = await receiver.waitFor(1, 15_000, forPayment(declined.body.payment_id));
    const [expired] = await receiver.waitFor(1, 15_000, forPayment(pix.body.payment_id));
    expect(success!.body).toMatchObject({
      event: 'payment.success',
      status: 'success',
      amount: 25,
      currency: 'BRL',
      payment_method: 'card',
      merchant_id: m.merchantId,
    });
    expect(failed!.body).toMatchObject({ event: 'payment.failed', status: 'failed' });
    expect(expired!.body).toMatchObject({ event: 'payment.expired', status: 'expired' });
    for (const r of [success!, failed!, expired!]) {
      expect(r.headers['content-type']).toBe('application/json');
      expect(String(r.headers['user-agent'])).toMatch(/^latam-payments-webhooks\//);
      expect(r.headers['webhook-id']).toBe(r.body.event_id);
      expectGenuine(r, m.webhookSecret);
    }
  });

  it('retries a receiver answering 500 twice: the same Webhook-Id three times, then delivered', async () => {
    receiver.script([500, 500], 200);
    const p = await api.direct({ payment_method: 'card', card: card('5555555555554444') });
    const got = await receiver.waitFor(3, 20_000, forPayment(p.body.payment_id));
    expect(new Set(got.map((r) => r.headers['webhook-id'])).size).toBe(1);
    const eventId = String(got[0]!.headers['webhook-id']);
    await waitForStatus(eventId, 'delivered');
    const ev = await api.json('GET', `/api/v1/events/${eventId}`);
    expect(ev.body).toMatchObject({ event_id: eventId, type: 'payment.success', delivery_status: 'delivered', attempt_count: 3 });
    expect(ev.body.attempts.map((a: { status: number }) => a.status)).toEqual([500, 500, 200]);
    expect(ev.body.attempts[0]).toEqual(
      expect.objectContaining({ at: expect.any(String), duration_ms: expect.any(Number), url: receiver.url }),
    );
  });

  it('retries a receiver that times out', async () => {
    receiver.script([{ status: 200, delayMs: 2000 }], 200);
    const p = await api.direct({ payment_method: 'card', card: card('4242424242424242') });
    const got = await receiver.waitFor(2, 20_000, forPayment(p.body.payment_id));
    const eventId = String(got[0]!.headers['webhook-id']);
    await waitForStatus(eventId, 'delivered');
    const ev = await api.json('GET', `/api/v1/events/${eventId}`);
    expect(ev.body.attempts[0]).toMatchObject({ status: null, error: 'timeout' });
    expect(ev.body.attempts[1]).toMatchObject({ status: 200 });
  });

  it('stops at 410 Gone', async () => {
    receiver.script([410], 200);
    const p = await api.direct({ payment_method: 'card', card: card('4242424242424242') });
    const [first] = await receiver.waitFor(1, 15_000, forPayment(p.body.payment_id));
    const eventId = String(first!.headers['webhook-id']);
    await waitForStatus(eventId, 'gone');
    await new Promise((r) => setTimeout(r, 2500));
    expect(receiver.received.filter(forPayment(p.body.payment_id))).toHaveLength(1);
  });

  it('dead-letters after the last attempt, and redrive delivers it', async () => {
    receiver.script([], 503);
    const p = await api.direct({ payment_method: 'card', card: card('4242424242424242') });
    const got = await receiver.waitFor(3, 20_000, forPayment(p.body.payment_id));
    const eventId = String(got[0]!.headers['webhook-id']);
    await waitForStatus(eventId, 'dead_lettered');
    receiver.script([], 200);
    // The ops command, against this stack's queues as npm start describes them in stack.json.
    const dir = mkdtempSync(join(tmpdir(), 'redrive-'));
    writeFileSync(join(dir, 'stack.json'), JSON.stringify({ sqs_endpoint: engines().sqs, region: 'us-east-1', queues: stack.queueEnv }));
    const out: string[] = [];
    const code = await runCli(['webhooks', 'redrive', '--state-dir', dir, '--json'], { out: (l) => out.push(l), err: (l) => out.push(l) });
    expect(code).toBe(0);
    expect(JSON.parse(out.join('')).moved).toBeGreaterThanOrEqual(1);
    await receiver.waitFor(4, 15_000, forPayment(p.body.payment_id));
    await waitForStatus(eventId, 'delivered');
  });

  it('the commit is the publish: no event is lost after a commit, and a failing queue only delays it, once', async () => {
    // The request's process hands nothing to anyone after its commit (as if it died there): the stream has it.
    const principal = { merchant: await stack.admin.getMerchant(m.merchantId), key: {} as never, mode: 'test' as const, livemode: false };
    const input = {
      payment_method: 'card' as const,
      amount: 12,
      currency: 'BRL' as const,
      country: 'BRA' as const,
      customer,
      card: { ...card('4242424242424242'), installments: 1 },
      metadata: {},
    };
    const silent = { ...paymentDeps(), publisher: { publish: async () => undefined } };
    const first = await createDirectPayment(silent, principal, input, `pi_${Date.now()}faultinjection00`);
    await receiver.waitFor(1, 15_000, forPayment(first.payment_id));

    // The webhooks queue refuses sends for a while: the dispatcher reports the record failed, the mapping sends
    // it again from there, and it arrives once the queue is back, exactly once.
    const queueEnv = queueUrlEnv('webhooks');
    const url = process.env[queueEnv];
    process.env[queueEnv] = `${url}-gone`;
    const second = await createDirectPayment(silent, principal, input, `pi_${Date.now()}faultinjection01`);
    await new Promise((r) => setTimeout(r, 1500));
    expect(receiver.received.filter(forPayment(second.payment_id))).toHaveLength(0);
    process.env[queueEnv] = url;
    await receiver.waitFor(1, 15_000, forPayment(second.payment_id));
    await new Promise((r) => setTimeout(r, 1000));
    expect(receiver.received.filter(forPayment(second.payment_id))).toHaveLength(1);
  });

  it('signs with both secrets during a rotation, so either verifies', async () => {
    const rotating = await stack.createMerchant({ notification_url: receiver.url });
    const { webhookSecret: next } = await stack.admin.rotateWebhookSecret(rotating.merchantId);
    const p = await payments(stack, rotating).direct({ payment_method: 'card', card: card('4242424242424242') });
    const [hit] = await receiver.waitFor(1, 15_000, forPayment(p.body.payment_id));
    expect(String(hit!.headers['x-signature']).split(',')).toHaveLength(2);
    expect(String(hit!.headers['webhook-signature']).split(' ')).toHaveLength(2);
    expectGenuine(hit!, next);
    expectGenuine(hit!, rotating.webhookSecret);
  });

  it('records an object without any notification_url as having no endpoint', async () => {
    const quiet = await stack.createMerchant();
    const p = await payments(stack, quiet).direct({ payment_method: 'card', card: card('4242424242424242') });
    const eventId = (await events(quiet)).find((e) => e.object_id === p.body.payment_id)!.event_id as string;
    await waitForStatus(eventId, 'no_endpoint', quiet);
  });

  it('refuses a loopback target when loopback is not allowed, and never sends to it', async () => {
    process.env.WEBHOOK_ALLOW_LOOPBACK = 'false';
    try {
      const before = receiver.received.length;
      const p = await api.direct({
        payment_method: 'card',
        card: card('4242424242424242'),
        notification_url: receiver.url.replace('127.0.0.1', 'localhost'),
      });
      const eventId = (await events(m)).find((e) => e.object_id === p.body.payment_id)!.event_id as string;
      const ev = await waitForStatus(eventId, 'no_endpoint');
      expect(ev.attempts[0].error).toMatch(/refused/);
      expect(receiver.received.length).toBe(before);
    } finally {
      process.env.WEBHOOK_ALLOW_LOOPBACK = 'true';
    }
  });
});

describe('events API', () => {
  it('pages through 23 events over the sharded listing, newest first, none twice and none missed, with and without a filter', async () => {
    const fresh = await stack.createMerchant({ notification_url: receiver.url });
    const a = payments(stack, fresh);
    for (let i = 0; i < 23; i++)
      await a.direct({ payment_method: 'card', card: card(i % 4 === 0 ? '4000000000000002' : '4242424242424242') });
    const walk = async (query: string) => {
      const seen: Array<{ event_id: string; created_at: string; type: string }> = [];
      let cursor: string | null = null;
      for (let pages = 0; pages < 30; pages++) {
        const r = await a.json('GET', `/api/v1/events?limit=4${query}${cursor ? `&cursor=${cursor}` : ''}`);
        expect(r.status).toBe(200);
        seen.push(...r.body.data);
        if (!r.body.has_more) break;
        cursor = r.body.next_cursor as string;
      }
      return seen;
    };
    const all = await walk('');
    expect(all).toHaveLength(23);
    expect(new Set(all.map((e) => e.event_id)).size).toBe(23);
    const keys = all.map((e) => `${e.created_at}#${e.event_id}`);
    expect([...keys].sort().reverse()).toEqual(keys);
    const declined = await walk('&type=payment.failed');
    expect(declined.map((e) => e.event_id)).toEqual(all.filter((e) => e.type === 'payment.failed').map((e) => e.event_id));
    expect(declined).toHaveLength(6);
  });

  it('lists newest first with filters and cursor pagination, and resends', async () => {
    const fresh = await stack.createMerchant({ notification_url: receiver.url });
    const a = payments(stack, fresh);
    for (let i = 0; i < 3; i++) await a.direct({ payment_method: 'card', card: card('4242424242424242') });
    await a.direct({ payment_method: 'card', card: card('4000000000000002') });
    const all = await a.json('GET', '/api/v1/events?limit=100');
    expect(all.status).toBe(200);
    expect(all.body.data).toHaveLength(4);
    const times = all.body.data.map((e: { created_at: string }) => e.created_at);
    expect([...times].sort().reverse()).toEqual(times);
    const failed = await a.json('GET', '/api/v1/events?type=payment.failed');
    expect(failed.body.data.map((e: { type: string }) => e.type)).toEqual(['payment.failed']);
    const page1 = await a.json('GET', '/api/v1/events?limit=2');
    expect(page1.body).toMatchObject({ has_more: true, next_cursor: expect.any(String) });
    const page2 = await a.json('GET', `/api/v1/events?limit=2&cursor=${page1.body.next_cursor}`);
    const ids = [...page1.body.data, ...page2.body.data].map((e: { event_id: string }) => e.event_id);
    expect(new Set(ids).size).toBe(4);
    const byObject = await a.json('GET', `/api/v1/events?object_id=${failed.body.data[0].object_id}`);
    expect(byObject.body.data).toHaveLength(1);
    // Every event type and object kind is a valid filter: payment.pending_3ds (a digit), refunds (re_).
    const threeDs = await a.json('GET', '/api/v1/events?type=payment.pending_3ds');
    expect({ status: threeDs.status, data: threeDs.body.data }).toEqual({ status: 200, data: [] });
    const refundEvents = await a.json('GET', `/api/v1/events?object_id=re_${'A'.repeat(22)}`);
    expect({ status: refundEvents.status, data: refundEvents.body.data }).toEqual({ status: 200, data: [] });
    expect((await a.json('GET', '/api/v1/events?type=Payment.success')).status).toBe(400);
    expect((await a.json('GET', '/api/v1/events?delivery_status=bogus')).status).toBe(400);
    expect((await a.json('GET', '/api/v1/events?limit=101')).status).toBe(400);

    const target = failed.body.data[0].event_id as string;
    await waitForStatus(target, 'delivered', fresh);
    const before = receiver.received.filter((r) => r.headers['webhook-id'] === target).length;
    const resent = await a.json('POST', `/api/v1/events/${target}/resend`);
    expect(resent.status).toBe(202);
    await receiver.waitFor(before + 1, 15_000, (r) => r.headers['webhook-id'] === target);
    // Another merchant cannot see or resend it.
    const other = payments(stack, await stack.createMerchant());
    expect((await other.json('GET', `/api/v1/events/${target}`)).status).toBe(404);
    expect((await other.json('POST', `/api/v1/events/${target}/resend`)).status).toBe(404);
  });
});

async function waitForStatus(eventId: string, status: string, who: TestMerchant = m) {
  const a = payments(stack, who);
  const end = Date.now() + 20_000;
  for (;;) {
    const r = await a.json('GET', `/api/v1/events/${eventId}`);
    if (r.body?.delivery_status === status) return r.body;
    if (Date.now() > end) throw new Error(`event ${eventId} is ${r.body?.delivery_status}, not ${status}`);
    await new Promise((res) => setTimeout(res, 100));
  }
}
