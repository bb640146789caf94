/**
 * The developer tools (npm run cli -- listen | trigger | events tail) against a real stack over HTTP, called
 * in-process with an injected io and AbortSignal: what a developer sees on the terminal and at the receiver.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createApiClient, type ApiClient } from '../../bin/cli/api-client';
import { runEventsTail } from '../../bin/cli/events-tail';
import { runListen } from '../../bin/cli/listen';
import { runCli } from '../../bin/cli/run';
import { runTrigger, SCENARIOS } from '../../bin/cli/trigger';
import type { Context, ScheduledEvent } from 'aws-lambda';
import { handler as readPixDisputes } from '../../functions/jobs/read-pix-disputes.handler';
import { verifyWebhook } from '../support/merchant-verify';
import { startReceiver, type Receiver } from '../support/receiver';
import { expectGenuine } from '../support/signatures';
import { startTestStack, type TestMerchant, type TestStack } from '../support/test-stack';

jest.setTimeout(90_000);

let stack: TestStack;
let listenReceiver: Receiver;
let realReceiver: Receiver;

beforeAll(async () => {
  Object.assign(process.env, {
    WEBHOOK_ALLOW_LOOPBACK: 'true',
    WEBHOOK_RETRY_SCHEDULE: '0,1,1',
    WEBHOOK_TIMEOUT_MS: '800',
    PAYOUT_SETTLEMENT_DELAY_SECONDS: '1',
    REFUND_SETTLEMENT_DELAY_SECONDS: '1',
  });
  stack = await startTestStack({ workers: true });
  listenReceiver = await startReceiver();
  realReceiver = await startReceiver();
});
afterAll(async () => {
  await listenReceiver.stop();
  await realReceiver.stop();
  await stack.stop();
});
beforeEach(() => {
  listenReceiver.script([], 200);
  realReceiver.script([], 200);
});
/** listen / events tail loops still running when a test fails: stopped so the file ends. */
const running: AbortController[] = [];
afterEach(() => running.splice(0).forEach((c) => c.abort()));

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

/** A merchant whose event reads are not rate limited by the tools' fast polling in these tests. */
async function merchant(notificationUrl?: string): Promise<TestMerchant & { client: ApiClient }> {
  const m = await stack.createMerchant(notificationUrl ? { notification_url: notificationUrl } : {});
  await stack.admin.setRateLimits(m.merchantId, { listEvents: 100_000, getEvent: 100_000 });
  return { ...m, client: createApiClient({ baseUrl: stack.baseUrl, apiKey: m.apiKey }) };
}

function capture() {
  const out: string[] = [];
  const err: string[] = [];
  return { out, err, io: { out: (l: string) => out.push(...l.split('\n')), err: (l: string) => err.push(...l.split('\n')) } };
}

async function until<T>(what: string, get: () => T | undefined | false, timeoutMs = 20_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = get();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * `trigger EVENT --json` in-process: exit code and the printed document. dispute.evidence_due_soon waits for the
 * warning job, which this stack does not schedule: it runs here every 200 ms while the trigger waits, as the
 * scheduler would every 10 minutes.
 */
async function trigger(client: ApiClient, event: string) {
  const c = capture();
  const job =
    event === 'dispute.evidence_due_soon'
      ? setInterval(
          () => void readPixDisputes({ time: new Date().toISOString() } as ScheduledEvent, {} as Context).catch(() => undefined),
          200,
        )
      : undefined;
  try {
    const code = await runTrigger({ client, event, json: true, signal: new AbortController().signal, io: c.io });
    return { code, result: code === 0 ? JSON.parse(c.out.join('\n')) : null, err: c.err.join('\n') };
  } finally {
    clearInterval(job);
  }
}

/** listen in-process until stop(); resolves once it printed its secret (its starting point is then fixed). */
async function listen(client: ApiClient, forwardTo: string, events?: string) {
  const stop = new AbortController();
  running.push(stop);
  const c = capture();
  const done = runListen({ client, forwardTo, events, intervalMs: 150, signal: stop.signal, io: c.io });
  const ready = await until('Ready', () => c.out.find((l) => l.startsWith('Ready!')));
  const secret = /Your webhook signing secret is (whsec_[A-Za-z0-9+/]{43}=) /.exec(ready)?.[1];
  expect(secret).toBeDefined();
  return {
    secret: secret!,
    out: c.out,
    err: c.err,
    deliveries: () => c.out.filter((l) => ISO.test(l.split('  ')[0] ?? '')),
    stop: async () => {
      stop.abort();
      return done;
    },
  };
}

const forPayment = (id: string) => (r: { body: any }) => r.body?.payment_id === id;

describe('listen', () => {
  it('forwards a triggered event signed with the printed secret, byte-identical to the real delivery, one line per delivery', async () => {
    const m = await merchant(realReceiver.url);
    const before = await trigger(m.client, 'payment.success'); // before listen: history, not forwarded
    listenReceiver.script([202], 200);
    const l = await listen(m.client, listenReceiver.url);
    const { result } = await trigger(m.client, 'payment.success');
    const [forwarded] = await listenReceiver.waitFor(1, 15_000, forPayment(result.payment_id));
    const [real] = await realReceiver.waitFor(1, 15_000, forPayment(result.payment_id));
    await until('the delivery line', () => l.deliveries().length === 1);
    await new Promise((r) => setTimeout(r, 500)); // a few more polls: nothing else arrives
    expect(await l.stop()).toBe(0);

    // Signed like a real delivery, with the listen secret and not the merchant's.
    expect(forwarded!.headers['webhook-id']).toBe(result.event_id);
    expect(forwarded!.headers['content-type']).toBe('application/json');
    expectGenuine(forwarded!, l.secret, 'x-signature');
    expect(verifyWebhook(forwarded!.rawBody, forwarded!.headers as Record<string, string>, m.webhookSecret)).toMatchObject({ ok: false });
    expect(verifyWebhook(real!.rawBody, real!.headers as Record<string, string>, l.secret)).toMatchObject({ ok: false });
    expectGenuine(real!, m.webhookSecret);
    // The same bytes the service itself sends for this event.
    expect(forwarded!.rawBody.equals(real!.rawBody)).toBe(true);
    expect(forwarded!.body).toMatchObject({ event: 'payment.success', payment_id: result.payment_id, status: 'success' });

    // Exactly one request and one printed line: time, type, id, the receiver's status code.
    expect(listenReceiver.received.filter(forPayment(before.result.payment_id))).toHaveLength(0);
    expect(listenReceiver.received.filter((r) => r.body?.merchant_id === m.merchantId)).toHaveLength(1);
    expect(l.deliveries()).toEqual([
      expect.stringMatching(new RegExp(`^\\S+Z  payment\\.success  ${result.event_id}  \\[202\\] POST ${listenReceiver.url}$`)),
    ]);
    expect(Date.parse(l.deliveries()[0]!.split('  ')[0]!)).toBeGreaterThan(Date.now() - 60_000);
  });

  it('--events forwards only the matching types; payout events carry X-Webhook-Signature', async () => {
    const m = await merchant();
    const l = await listen(m.client, listenReceiver.url, 'payout.*,payment.failed');
    const ok = await trigger(m.client, 'payment.success');
    const failed = await trigger(m.client, 'payment.failed');
    const cancelled = await trigger(m.client, 'payout.cancelled');
    const mine = (r: { body: any }) => r.body?.merchant_id === m.merchantId;
    const got = await listenReceiver.waitFor(2, 15_000, mine);
    await until('two delivery lines', () => l.deliveries().length === 2);
    await new Promise((r) => setTimeout(r, 800)); // several polls after payment.success was listed
    await l.stop();

    expect(listenReceiver.received.filter(mine).map((r) => r.body.event)).toEqual(['payment.failed', 'payout.cancelled']);
    expect(listenReceiver.received.filter(forPayment(ok.result.payment_id))).toHaveLength(0);
    const payout = got.find((r) => r.body.event === 'payout.cancelled')!;
    expect(payout.body.payout_id).toBe(cancelled.result.payout_id);
    expect(payout.headers['x-signature']).toBeUndefined();
    expectGenuine(payout, l.secret, 'x-webhook-signature');
    expectGenuine(
      got.find((r) => r.body.event === 'payment.failed')!,
      l.secret,
      'x-signature',
    );
    expect(l.deliveries().map((d) => d.split('  ').slice(1, 3))).toEqual([
      ['payment.failed', failed.result.event_id],
      ['payout.cancelled', cancelled.result.event_id],
    ]);
  });

  it('prints the network error when nothing listens at the URL, and keeps going', async () => {
    const m = await merchant();
    const down = await startReceiver();
    await down.stop();
    const l = await listen(m.client, down.url);
    const { result } = await trigger(m.client, 'payment.success');
    const line = await until('the delivery line', () => l.deliveries()[0]);
    expect(await l.stop()).toBe(0);
    expect(line).toMatch(new RegExp(`^\\S+Z  payment\\.success  ${result.event_id}  \\[ERROR ECONNREFUSED\\] POST `));
  });

  it('exits 2 with the usage when --forward-to is missing or not an http(s) URL', async () => {
    for (const extra of [[], ['--forward-to', 'ftp://localhost/hooks'], ['--forward-to', 'localhost:4242']]) {
      const c = capture();
      expect(await runCli(['listen', ...extra, '--base-url', stack.baseUrl, '--api-key', 'sk_test_x'], c.io)).toBe(2);
      expect(c.err.join('\n')).toMatch(/--forward-to[\s\S]*Developer tools/);
    }
  });

  it('surfaces the API error and exits 1 when the key is refused', async () => {
    const c = capture();
    const client = createApiClient({ baseUrl: stack.baseUrl, apiKey: 'sk_test_doesnotexist0000000000000000000000000' });
    const code = await runListen({ client, forwardTo: listenReceiver.url, signal: new AbortController().signal, io: c.io });
    expect(code).toBe(1);
    expect(c.err.join('\n')).toMatch(/401 UNAUTHORIZED: /);
  });
});

describe('trigger', () => {
  let m: Awaited<ReturnType<typeof merchant>>;
  beforeAll(async () => {
    m = await merchant();
    process.env.PIX_EXPIRY_SECONDS = '2'; // this stage's PIX expiry: payment.expired in seconds, not minutes
  });
  afterAll(() => {
    delete process.env.PIX_EXPIRY_SECONDS;
  });

  /** What each scenario must leave behind: the object's state as the API reports it. */
  const objectState: Record<string, (r: any) => Promise<[unknown, unknown]>> = {
    payout: async (r) => [(await api(`/api/v1/payout/${r.payout_id}`)).status, r.event.replace('payout.', '')],
    refund: async (r) => [(await api(`/api/v1/refunds/${r.refund_id}`)).status, r.event.replace('refund.', '')],
    payment: async (r) => [(await api(`/cashier/cashier/status/${m.merchantId}/${r.payment_id}`)).status, paymentStatus[r.trigger]],
    mandate: async (r) => {
      const got = await api(`/api/v1/mandates/${r.mandate_id}`);
      return [[got.status, got.cancelled_by ?? '-'].join(' '), mandateState[r.trigger]];
    },
    dispute: async (r) => {
      const got = await api(`/api/v1/disputes/${r.dispute_id}`);
      return [[got.status, got.funds_withdrawn].join(' '), disputeState[r.trigger]];
    },
  };
  /** Status and funds_withdrawn: a chargeback debited, returned once won. */
  const disputeState: Record<string, string> = {
    'dispute.created': 'needs_response true',
    'dispute.updated': 'accepted true',
    'dispute.won': 'won false',
    'dispute.lost': 'lost true',
    'dispute.evidence_due_soon': 'needs_response true',
  };
  /** Status and cancelled_by. */
  const mandateState: Record<string, string> = {
    'mandate.approved': 'active -',
    'mandate.rejected': 'rejected -',
    'mandate.expired': 'expired -',
    'mandate.cancelled': 'cancelled merchant',
    'mandate.payer_cancelled': 'cancelled payer',
  };
  const paymentStatus: Record<string, string> = {
    'payment.success': 'success',
    'payment.failed': 'failed',
    'payment.pending': 'pending_3ds',
    'payment.expired': 'expired',
    'checkout.completed': 'success',
  };
  const api = async (path: string) => (await stack.request(path, { apiKey: m.apiKey })).body;

  it.each(Object.keys(SCENARIOS))('%s ends with the event in GET /api/v1/events for the object it created', async (name) => {
    const { code, result, err } = await trigger(m.client, name);
    expect({ code, err }).toEqual({ code: 0, err: expect.any(String) });
    const family = (['payout', 'refund', 'mandate', 'dispute'] as const).find((f) => name.startsWith(`${f}.`)) ?? 'payment';
    const objectId = result[`${family}_id`];
    expect(objectId).toEqual(expect.any(String));
    const renamed: Record<string, string> = {
      'checkout.completed': 'payment.success',
      'payment.pending': 'payment.pending_3ds',
      'mandate.payer_cancelled': 'mandate.cancelled',
    };
    const expectedType = renamed[name] ?? name;
    expect(result).toMatchObject({ trigger: name, event: expectedType, event_id: expect.stringMatching(/^evt_/) });

    const ev = await stack.request(`/api/v1/events/${result.event_id}`, { apiKey: m.apiKey });
    expect(ev.status).toBe(200);
    expect(ev.body).toMatchObject({ type: expectedType, object_id: objectId });
    if (family !== 'refund') {
      const listed = await stack.request(`/api/v1/events?object_id=${objectId}`, { apiKey: m.apiKey });
      expect(listed.body.data.map((e: { event_id: string }) => e.event_id)).toContain(result.event_id);
    }
    if (name === 'checkout.completed') expect(ev.body.payload.checkout_session_id).toBe(result.checkout_session_id);
    const [actual, expected] = await objectState[family]!(result);
    expect(actual).toBe(expected);
  });

  it('exits 2 for an unknown or missing event, naming the supported ones', async () => {
    for (const argv of [['trigger', 'payment.teleported'], ['trigger']]) {
      const c = capture();
      expect(await runCli([...argv, '--base-url', stack.baseUrl, '--api-key', m.apiKey], c.io)).toBe(2);
      const err = c.err.join('\n');
      expect(err).toMatch(/^(Unknown event "payment\.teleported"|Missing EVENT)\. Usage: npm run cli -- trigger EVENT/);
      for (const name of Object.keys(SCENARIOS)) expect(err).toContain(name);
    }
  });

  it('through runCli: the target from --state-dir/sandbox.json, human output with the ids', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cli-dev-tools-'));
    writeFileSync(join(dir, 'sandbox.json'), JSON.stringify({ base_url: stack.baseUrl, merchant_id: m.merchantId, api_key: m.apiKey }));
    const c = capture();
    expect(await runCli(['trigger', 'payment.failed', '--state-dir', dir], c.io)).toBe(0);
    const paymentId = /payment_id\s+(pi_\S+)/.exec(c.out.join('\n'))?.[1];
    const eventId = /event_id\s+(evt_\S+) \(payment\.failed\)/.exec(c.out.join('\n'))?.[1];
    expect((await stack.request(`/api/v1/events/${eventId}`, { apiKey: m.apiKey })).body).toMatchObject({ object_id: paymentId });
    const missing = capture();
    expect(await runCli(['trigger', 'payment.failed', '--state-dir', join(dir, 'nope')], missing.io)).toBe(2);
    expect(missing.err[0]).toMatch(/sandbox\.json: start the local stack with "npm start"/);
  });

  it('npx tsx bin/cli.ts trigger --list prints the supported events', () => {
    const r = spawnSync('npx', ['tsx', 'bin/cli.ts', 'trigger', '--list'], { encoding: 'utf8', timeout: 60_000 });
    expect(r.status).toBe(0);
    const names = r.stdout
      .trim()
      .split('\n')
      .map((l) => l.split(/\s+/)[0]);
    expect(names).toEqual(Object.keys(SCENARIOS));
    expect(names).toEqual(
      expect.arrayContaining(['payment.success', 'payout.refunded', 'refund.failed', 'checkout.completed', 'mandate.approved']),
    );
    // Every dispute event has its scenario.
    expect(names).toEqual(
      expect.arrayContaining(['dispute.created', 'dispute.updated', 'dispute.won', 'dispute.lost', 'dispute.evidence_due_soon']),
    );
  });
});

describe('events tail', () => {
  it('prints each event once, then each delivery attempt with its status code and outcome', async () => {
    const tailReceiver = await startReceiver();
    try {
      const m = await merchant(tailReceiver.url);
      const stop = new AbortController();
      running.push(stop);
      const c = capture();
      const done = runEventsTail({ client: m.client, events: 'payment.*', intervalMs: 150, signal: stop.signal, io: c.io });
      await until('the tail header', () => c.err.some((l) => l.startsWith('Tailing')));
      tailReceiver.script([500], 200);
      const retried = await trigger(m.client, 'payment.success');
      await until('delivered', () => c.out.some((l) => l.includes(retried.result.event_id) && l.endsWith('-> delivered')));
      tailReceiver.script([], 503);
      const dead = await trigger(m.client, 'payment.failed');
      await until('dead-lettered', () => c.out.some((l) => l.includes(dead.result.event_id) && l.endsWith('-> dead-lettered')));
      await trigger(m.client, 'payout.cancelled'); // not payment.*: not shown
      await new Promise((r) => setTimeout(r, 1500));
      stop.abort();
      expect(await done).toBe(0);

      const lines = (id: string) => c.out.filter((l) => l.includes(id)).map((l) => l.replace(/^\S+Z {2}evt_\S+ {2}/, ''));
      const url = tailReceiver.url.replace(/[.]/g, '\\.');
      expect(lines(retried.result.event_id)).toEqual([
        `payment.success  created  ${retried.result.payment_id}`,
        expect.stringMatching(new RegExp(`^payment\\.success  attempt 1  500  \\d+ ms  ${url}  -> retrying$`)),
        expect.stringMatching(new RegExp(`^payment\\.success  attempt 2  200  \\d+ ms  ${url}  -> delivered$`)),
      ]);
      expect(lines(dead.result.event_id)).toEqual([
        `payment.failed  created  ${dead.result.payment_id}`,
        expect.stringMatching(/^payment\.failed {2}attempt 1 {2}503 .* -> retrying$/),
        expect.stringMatching(/^payment\.failed {2}attempt 2 {2}503 .* -> retrying$/),
        expect.stringMatching(/^payment\.failed {2}attempt 3 {2}503 .* -> dead-lettered$/),
      ]);
      expect(c.out.every((l) => /^\S+Z {2}evt_\S+ {2}payment\./.test(l))).toBe(true);
      expect(c.out.filter((l) => l.includes('payout.'))).toEqual([]);
    } finally {
      await tailReceiver.stop();
    }
  });

  it('mandate.* shows mandate events (no type is filtered out by prefix), and listen forwards them', async () => {
    const m = await merchant();
    const stop = new AbortController();
    running.push(stop);
    const c = capture();
    const done = runEventsTail({ client: m.client, events: 'mandate.*', intervalMs: 150, signal: stop.signal, io: c.io });
    await until('the tail header', () => c.err.some((l) => l.startsWith('Tailing')));
    const l = await listen(m.client, listenReceiver.url, 'mandate.*');
    const rejected = await trigger(m.client, 'mandate.rejected');
    expect(rejected.code).toBe(0);
    const created = `mandate.rejected  created  ${rejected.result.mandate_id}`;
    await until('the mandate event', () => c.out.some((line) => line.endsWith(created)));
    await until('forwarded', () => l.deliveries().some((d) => d.includes(rejected.result.event_id)));
    const [hook] = await listenReceiver.waitFor(1, 10_000, (r) => r.body?.event === 'mandate.rejected');
    expect(hook!.body).toMatchObject({ mandate_id: rejected.result.mandate_id, status: 'rejected', failure_code: 'payer_rejected' });
    stop.abort();
    expect(await done).toBe(0);
    await l.stop();
  });

  it('dispute.* shows a dispute’s events, and listen forwards them signed, byte-identical to the real deliveries', async () => {
    const real = await startReceiver();
    try {
      const m = await merchant(real.url);
      const stop = new AbortController();
      running.push(stop);
      const c = capture();
      const done = runEventsTail({ client: m.client, events: 'dispute.*', intervalMs: 150, signal: stop.signal, io: c.io });
      await until('the tail header', () => c.err.some((l) => l.startsWith('Tailing')));
      const l = await listen(m.client, listenReceiver.url, 'dispute.*');
      const won = await trigger(m.client, 'dispute.won');
      expect(won.code).toBe(0);
      const id = won.result.dispute_id as string;
      const types = ['dispute.created', 'dispute.updated', 'dispute.won'];
      for (const type of types) await until(type, () => c.out.some((line) => line.endsWith(`${type}  created  ${id}`)));
      const ofDispute = (r: { body: any }) => r.body?.dispute_id === id;
      const forwarded = await listenReceiver.waitFor(3, 15_000, ofDispute);
      const delivered = await real.waitFor(3, 15_000, ofDispute);
      await new Promise((r) => setTimeout(r, 500)); // a few more polls: no payment.* event is forwarded
      stop.abort();
      expect(await done).toBe(0);
      await l.stop();
      expect(forwarded.map((r) => r.body.event).sort()).toEqual(types);
      expect(listenReceiver.received.filter((r) => r.body?.payment_id === won.result.payment_id && !ofDispute(r))).toEqual([]);
      for (const f of forwarded) {
        expectGenuine(f, l.secret);
        const same = delivered.find((r) => r.headers['webhook-id'] === f.headers['webhook-id'])!;
        expectGenuine(same, m.webhookSecret);
        expect(f.rawBody.equals(same.rawBody)).toBe(true);
      }
      expect(forwarded.find((r) => r.body.event === 'dispute.won')!.body).toMatchObject({
        status: 'won',
        payment_id: won.result.payment_id,
      });
    } finally {
      await real.stop();
    }
  });
});
