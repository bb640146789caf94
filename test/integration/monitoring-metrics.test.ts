/**
 * No alarm on a metric nobody publishes (issue 14): every custom metric a stage's alarms and dashboard read
 * (lib/monitoring.ts, lib/dashboard.ts, as synthesized) is one the real code emits, with exactly those
 * dimensions. What the code emits is captured from the shared Powertools Metrics instance at each flush
 * (publishing is disabled in tests, serializing is not) while the real handlers run on the local engines:
 * every manifest route over HTTP, webhook deliveries that succeed, fail and find no endpoint, and the jobs.
 */
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import type { Context, DynamoDBStreamEvent, ScheduledEvent } from 'aws-lambda';
import { handler as expirePayments } from '../../functions/jobs/expire-payments.handler';
import { handler as resumeSettlements } from '../../functions/jobs/resume-settlements.handler';
import { handler as dispatchEvents } from '../../functions/webhooks/dispatch-events.handler';
import { handler as sendWebhooks } from '../../functions/webhooks/send-webhooks.handler';
import { handler as sweepPendingCredits } from '../../functions/jobs/sweep-pending-credits.handler';
import { handler as reconcileProviders } from '../../functions/jobs/reconcile-providers.handler';
import { handler as readPixDisputes } from '../../functions/jobs/read-pix-disputes.handler';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startFakePsp } from '../support/fake-psp';
import { startFakeAdyen } from '../support/fake-adyen';
import { startFakeStp } from '../support/fake-stp';
import { REFUSALS, startFakeEfi } from '../support/fake-efi';
import { startFakeDlocal } from '../support/fake-dlocal';
import { startFakeBinancePay } from '../support/fake-binance-pay';
import { merchantTradeNoOf } from '../../shared/adapters/providers/binance-pay/binance-pay.transformers';
import { fundLive } from '../support/live-stage';
import { apiPixConnectors } from '../../shared/adapters/providers/api-pix/api-pix.connector';
import { txidOf } from '../../shared/adapters/providers/api-pix/api-pix.transformers';
import { parseProvidersConfig } from '../../shared/adapters/providers/providers.config';
import { breakers } from '../../shared/application/routing';
import { buildApp } from '../../lib/app';
import { MANIFEST } from '../../lib/manifest';
import { stageConfig, STAGES } from '../../lib/stage-config';
import { Metrics } from '@aws-lambda-powertools/metrics';
import { alarmMetrics, dashboardMetrics, functionEnvironments, type MetricRead, type TemplateJson } from '../support/cloudwatch-template';
import { card, payments } from '../support/payments';
import { startReceiver, type Receiver } from '../support/receiver';
import { startTestStack, type TestMerchant, type TestStack } from '../support/test-stack';

jest.setTimeout(120_000);

/** What the alarms page on (lib/monitoring.ts): the set read must include these. */
const ALARMED = [
  'WebhookAttempts',
  'WebhookAttemptsFailed',
  'SettlementOldestAgeSeconds',
  'LedgerCreditsSwept',
  '5xx',
  'BusyRetrySameKey',
  'ProviderCalls',
  'ProviderCallErrors',
  'ProviderAmountMismatch',
  'ProviderCallbacksRejected',
  'ProviderAwaitingOldestSeconds',
  'PayoutProviderBalanceLow',
  'ProviderRoutingPage',
];

/** The EMF object Powertools would print (test/unit/pipeline-metrics.test.ts). */
interface Emf {
  _aws: { CloudWatchMetrics: { Namespace: string; Dimensions: string[][]; Metrics: { Name: string }[] }[] };
  [key: string]: unknown;
}

/** Every flush of the shared metrics instance that had something to publish, in order. */
const flushes: Emf[] = [];
let spy: jest.SpyInstance;

/** namespace, name and dimension name=value pairs (in any order) as one comparable string. */
function keyOf(namespace: string, name: string, dimensions: Readonly<Record<string, unknown>>): string {
  const pairs = Object.entries(dimensions).map(([k, v]) => `${k}=${String(v)}`);
  return [namespace, name, ...pairs.sort()].join(' | ');
}

/** Every (namespace, metric, dimension set with its values) the captured flushes published. */
function emittedKeys(): Set<string> {
  const keys = new Set<string>();
  for (const emf of flushes)
    for (const def of emf._aws.CloudWatchMetrics)
      for (const set of def.Dimensions)
        for (const m of def.Metrics) keys.add(keyOf(def.Namespace, m.Name, Object.fromEntries(set.map((d) => [d, emf[d]]))));
  return keys;
}

const emittedNames = () => new Set(flushes.flatMap((e) => e._aws.CloudWatchMetrics.flatMap((d) => d.Metrics.map((m) => m.Name))));
const total = (name: string) => flushes.reduce((sum, e) => sum + (typeof e[name] === 'number' ? (e[name] as number) : 0), 0);
const routeValues = () => new Set(flushes.map((e) => e.route).filter((r) => typeof r === 'string'));

async function until(what: string, done: () => boolean, ms = 20_000): Promise<void> {
  const end = Date.now() + ms;
  while (!done()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * The reads no emission matches: the namespace must be the one the stack gives the functions (tests emit
 * under the default one), a route value a manifest route id, and namespace + name + dimensions emitted. A route
 * writes its metric only when it answers 5xx, so a read of one route is matched by the same metric and
 * dimensions emitted for any route (every route goes through the one routeMetrics middleware).
 */
function unmatched(reads: readonly MetricRead[], functionNamespace: string, emittedNamespace: string, emittedKeys: Set<string>) {
  const anyRoute = (k: string) => k.replace(/route=[^ |]+/, 'route=*');
  const emitted = new Set([...emittedKeys].map(anyRoute));
  const routeIds = new Set(MANIFEST.routes.map((r) => r.id));
  const problems = new Set<string>();
  for (const r of reads) {
    const what = `${r.source}: ${keyOf(r.namespace, r.name, r.dimensions)}`;
    if (r.namespace !== functionNamespace) problems.add(`${what} (the functions publish under ${functionNamespace})`);
    else if ('route' in r.dimensions && !routeIds.has(r.dimensions.route!)) problems.add(`${what} (not a manifest route id)`);
    else if (!emitted.has(anyRoute(keyOf(emittedNamespace, r.name, r.dimensions)))) {
      const seen = [...emitted].filter((k) => k.split(' | ')[1] === r.name).slice(0, 3);
      problems.add(`${what} (never emitted${seen.length ? `; emitted as ${seen.join(' ; ')}` : ' under that name'})`);
    }
  }
  return [...problems];
}

let stack: TestStack;
let good: Receiver;
let failing: Receiver;
let merchant: TestMerchant;

/** Each stage's templates as the comparison below reads them. */
interface Synthesized {
  stateless: TemplateJson;
  stateful: TemplateJson;
  nested: TemplateJson[];
}
const synthesized = new Map<string, Synthesized>();

beforeAll(async () => {
  // Synthesized first, before the local stack runs: a synth holds this process's event loop for seconds (tens on a
  // loaded machine), and a handler in flight meanwhile would run past its timeout.
  for (const stage of STAGES) {
    const built = buildApp(new App({ context: { 'aws:cdk:bundling-stacks': [] } }), stage);
    synthesized.set(stage, {
      stateless: Template.fromStack(built.stateless).toJSON() as TemplateJson,
      stateful: Template.fromStack(built.stateful).toJSON() as TemplateJson,
      // The workers' and provider callbacks' functions are in the stateless stack's nested stacks.
      nested: [built.stateless.workers, built.stateless.providerCallbacks].map((n) => Template.fromStack(n).toJSON() as TemplateJson),
    });
  }
  // Every Metrics instance: the shared one, and the per-provider ones of shared/observability/provider-metrics.ts.
  const publish = Metrics.prototype.publishStoredMetrics;
  spy = jest.spyOn(Metrics.prototype, 'publishStoredMetrics').mockImplementation(function (this: Metrics) {
    if (this.hasStoredMetrics()) flushes.push(JSON.parse(JSON.stringify(this.serializeMetrics())) as Emf);
    return publish.call(this);
  });
  Object.assign(process.env, { WEBHOOK_ALLOW_LOOPBACK: 'true', WEBHOOK_RETRY_SCHEDULE: '0,1,1', WEBHOOK_TIMEOUT_MS: '800' });
  stack = await startTestStack({ workers: true });
  good = await startReceiver();
  failing = await startReceiver();
  failing.script([], 503);
  merchant = await stack.createMerchant({ notification_url: good.url });
});
afterAll(async () => {
  spy?.mockRestore();
  await good?.stop();
  await failing?.stop();
  await stack?.stop();
});

describe('what the code emits, captured at each flush', () => {
  it('sees the flushes of the handlers the local stack runs (the same metrics instance)', async () => {
    expect(process.env.POWERTOOLS_METRICS_DISABLED).toBe('true');
    const before = flushes.length;
    // A 200 writes no route metric (requests and latency are the function's own); a 5xx writes its 5xx.
    expect((await fetch(`${stack.baseUrl}/health`)).status).toBe(200);
    expect(spy).toHaveBeenCalled();
    expect(flushes.slice(before).filter((f) => f.route === 'health')).toEqual([]);
    const tableName = process.env.TABLE_NAME;
    process.env.TABLE_NAME = `${tableName}-missing`;
    try {
      expect((await fetch(`${stack.baseUrl}/health`)).status).toBe(503);
    } finally {
      process.env.TABLE_NAME = tableName;
    }
    expect(flushes.slice(before)).toContainEqual(
      expect.objectContaining({ route: 'health', service: process.env.POWERTOOLS_SERVICE_NAME, '5xx': 1 }),
    );
  });

  it('webhook deliveries: one delivered, one to an endpoint failing until dead-lettered, one without an endpoint', async () => {
    const pay = (m: TestMerchant) => payments(stack, m).direct({ payment_method: 'card', card: card('4242424242424242') });
    expect((await pay(merchant)).body.status).toBe('success');
    expect((await pay(await stack.createMerchant({ notification_url: failing.url }))).body.status).toBe('success');
    expect((await pay(await stack.createMerchant())).body.status).toBe('success');
    await good.waitFor(1);
    await failing.waitFor(3);
    // Nothing else runs meanwhile: the sender's flushes are its own.
    await until('the sender to report every outcome', () =>
      ['WebhookDelivered', 'WebhookDeadLettered', 'WebhookNoEndpoint'].every((n) => total(n) >= 1),
    );
    expect(total('WebhookAttempts')).toBeGreaterThanOrEqual(4);
    expect(total('WebhookAttemptsFailed')).toBeGreaterThanOrEqual(3);
  });

  it('the webhook sender publishes its fault counts only when it has some: a batch with a record it cannot read', async () => {
    const context = { getRemainingTimeInMillis: () => 60_000, functionName: 'sender' } as Context;
    const rec = (messageId: string, body: string) => ({ messageId, body, attributes: {}, messageAttributes: {} });
    const before = flushes.length;
    const clean = { Records: [rec('m1', JSON.stringify({ event_id: 'evt_none', attempt: 0 }))] };
    expect(await sendWebhooks(clean as never, context)).toEqual({ batchItemFailures: [] });
    const quiet = flushes.slice(before);
    expect(quiet).toContainEqual(expect.objectContaining({ WebhookMessages: 1 }));
    expect(quiet.filter((f) => 'WebhookMessageFailures' in f || 'WebhookDeadLettered' in f)).toEqual([]);
    const bad = { Records: [rec('m2', '{not json'), rec('m3', JSON.stringify({ event_id: 'evt_none', attempt: 0 }))] };
    expect(await sendWebhooks(bad as never, context)).toEqual({ batchItemFailures: [{ itemIdentifier: 'm2' }] });
    expect(flushes.slice(before)).toContainEqual(
      expect.objectContaining({ WebhookMessages: 2, WebhookMessageFailures: 1, service: process.env.POWERTOOLS_SERVICE_NAME }),
    );
  });

  it('every manifest route, through httpHandler: its 5xx answers, and nothing for the others', async () => {
    // With the table gone, what needs it answers 5xx: each such route must have written 5xx with its route
    // dimension, and a route that still answered below 500 (no table needed) must have written nothing.
    const answered = new Map<string, number>();
    const tableName = process.env.TABLE_NAME;
    process.env.TABLE_NAME = `${tableName}-missing`;
    try {
      for (const route of MANIFEST.routes) {
        const form = route.bodyFormat === 'form';
        const res = await fetch(`${stack.baseUrl}${route.path.replace(/\{[a-z_]+\}/g, 'x')}`, {
          method: route.method,
          headers: { 'x-api-key': merchant.apiKey, 'content-type': form ? 'application/x-www-form-urlencoded' : 'application/json' },
          body: route.method === 'GET' ? undefined : form ? 'outcome=success' : '{}',
          redirect: 'manual',
        });
        await res.arrayBuffer();
        answered.set(route.id, res.status);
      }
    } finally {
      process.env.TABLE_NAME = tableName;
    }
    const failed = [...answered].filter(([, status]) => status >= 500).map(([id]) => id);
    expect(failed.length).toBeGreaterThan(MANIFEST.routes.length / 2);
    expect([...routeValues()].sort()).toEqual(expect.arrayContaining(failed.sort()));
    expect([...routeValues()].filter((id) => (answered.get(id) ?? 500) < 500 && id !== 'health')).toEqual([]);
  });

  it('a request whose write did not get its turn (issue 34): BusyRetrySameKey on [service], and no 5xx for its route', async () => {
    const { httpHandler } = await import('../../shared/http/handler');
    const { busyError } = await import('../../shared/adapters/dynamodb/contention');
    const contended = httpHandler({
      route: 'health',
      handler: async () => {
        throw busyError();
      },
    });
    const before = flushes.length;
    const context = { awsRequestId: 'busy-1', functionName: 'health', getRemainingTimeInMillis: () => 10_000 } as Context;
    const event = { headers: {}, requestContext: { requestId: 'busy-1', http: { method: 'GET', path: '/health' } } };
    const res = (await contended(event as never, context as never)) as { statusCode: number; headers: Record<string, string> };
    expect(res.statusCode).toBe(503);
    expect(res.headers['retry-after']).toBe('1');
    const mine = flushes.slice(before);
    expect(mine).toContainEqual(expect.objectContaining({ BusyRetrySameKey: 1, service: process.env.POWERTOOLS_SERVICE_NAME }));
    expect(mine.filter((f) => '5xx' in f)).toEqual([]);
  });

  it('the event dispatcher, and the resume-settlements, expire-payments and sweep-pending-credits jobs', async () => {
    const context = { getRemainingTimeInMillis: () => 60_000, functionName: 'job' } as Context;
    for (const job of [resumeSettlements, expirePayments, sweepPendingCredits]) {
      await job({ time: new Date().toISOString() } as ScheduledEvent, context);
    }
    const insert = {
      eventName: 'INSERT',
      dynamodb: { SequenceNumber: '1', NewImage: { entity: { S: 'event' }, event_id: { S: 'evt_metrics' } } },
    };
    expect(await dispatchEvents({ Records: [insert] } as DynamoDBStreamEvent, context)).toEqual({ batchItemFailures: [] });
    expect([...emittedNames()]).toEqual(
      expect.arrayContaining(['EventsDispatched', 'SettlementOldestAgeSeconds', 'SettlementsOverdue', 'Expired', 'LedgerCreditsSwept']),
    );
  });

  it('live providers: calls, callbacks accepted, refused and unknown, an amount mismatch, and the reconciliation job', async () => {
    const psp = await startFakePsp();
    const token = randomBytes(24).toString('base64url');
    const file = join(mkdtempSync(join(tmpdir(), 'providers-')), 'providers.json');
    writeFileSync(file, JSON.stringify({ api_pix: psp.apiPixConfig(token) }));
    Object.assign(process.env, { PROVIDERS_FILE: file, ALLOWED_KEY_MODES: 'test,live' });
    try {
      const live = await stack.admin.createKey(merchant.merchantId, 'live');
      const m = { ...merchant, apiKey: live.secret };
      const { buildLiveProviders } = await import('../../shared/adapters/providers/live-connectors');
      const { parseProvidersConfig } = await import('../../shared/adapters/providers/providers.config');
      const ops = buildLiveProviders(parseProvidersConfig(JSON.stringify({ api_pix: psp.apiPixConfig(token) }), 'test')).apiPix!;
      await ops.webhooks.register(`${stack.baseUrl}/providers/api-pix/${token}`);
      ops.client.close();
      const a = await payments(stack, m).direct({ amount: 20 });
      const b = await payments(stack, m).direct({ amount: 30 });
      const txid = (id: string) => `pi${Buffer.from(id.slice(3), 'base64url').toString('hex')}`;
      expect((await psp.pay(txid(a.body.payment_id))).callbackStatus).toBe(200);
      expect((await psp.pay(txid(b.body.payment_id), { amount: '29.00' })).callbackStatus).toBe(200);
      expect(
        (
          await psp.sendCallback({
            pix: [{ endToEndId: 'E'.padEnd(32, '0'), txid: `pi${'0'.repeat(32)}`, valor: '1.00', horario: new Date().toISOString() }],
          })
        ).status,
      ).toBe(200);
      expect((await fetch(`${stack.baseUrl}/providers/api-pix/${'x'.repeat(40)}/pix`, { method: 'POST', body: '{}' })).status).toBe(404);
      const context = { getRemainingTimeInMillis: () => 60_000, functionName: 'job' } as Context;
      await reconcileProviders({ time: new Date(Date.now() + 3_600_000).toISOString() } as ScheduledEvent, context);
      expect([...emittedNames()]).toEqual(
        expect.arrayContaining([
          'ProviderCalls',
          'ProviderCallbacksAccepted',
          'ProviderCallbacksRejected',
          'ProviderCallbacksUnknown',
          'ProviderAmountMismatch',
          'ProviderAwaitingOldestSeconds',
        ]),
      );
      expect(psp.violations).toEqual([]);
    } finally {
      delete process.env.PROVIDERS_FILE;
      delete process.env.ALLOWED_KEY_MODES;
      await psp.close();
    }
  });

  it('live Efí and dLocal payouts: a payout refused for our own balance at the provider pages (PayoutProviderBalanceLow)', async () => {
    const efi = await startFakeEfi();
    const dlocal = await startFakeDlocal();
    const token = randomBytes(24).toString('base64url');
    const file = join(mkdtempSync(join(tmpdir(), 'providers-')), 'providers.json');
    writeFileSync(file, JSON.stringify({ efi: efi.efiConfig(token), dlocal: dlocal.dlocalConfig() }));
    Object.assign(process.env, { PROVIDERS_FILE: file, ALLOWED_KEY_MODES: 'test,live' });
    try {
      const apiKey = (await stack.admin.createKey(merchant.merchantId, 'live')).secret;
      await fundLive(merchant.merchantId, 'BRL', 100_000);
      await fundLive(merchant.merchantId, 'ARS', 1_000_000);
      const payout = (body: Record<string, unknown>) =>
        stack.request('/api/v1/payout', {
          method: 'POST',
          apiKey,
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
      efi.refuse('sem.saldo@example.com', REFUSALS.balance);
      const pix = await payout({
        method_code: 'svc-mt-5',
        amount: 10,
        currency: 'BRL',
        beneficiary: {
          name: 'Ana',
          document: '52998224725',
          document_type: 'CPF',
          instant_transfer_key: 'sem.saldo@example.com',
          instant_transfer_type: 'email',
        },
      });
      expect(pix.status).toBe(422);
      dlocal.failNext('payouts', { status: 400, code: 514 });
      const cbu = await payout({
        method_code: 'svc-mt-31',
        amount: 1000,
        currency: 'ARS',
        beneficiary: {
          name: 'Lucía',
          document: '20123456786',
          document_type: 'CUIT',
          instant_transfer_key: '2850590940090418135201',
          instant_transfer_type: 'cbu',
        },
      });
      expect(cbu.status).toBe(422);
      const low = [...emittedKeys()].filter((k) => k.includes('PayoutProviderBalanceLow'));
      expect(low.some((k) => k.includes('provider=efi'))).toBe(true);
      expect(low.some((k) => k.includes('provider=dlocal'))).toBe(true);
      expect(efi.violations).toEqual([]);
      expect(dlocal.violations).toEqual([]);
    } finally {
      delete process.env.PROVIDERS_FILE;
      delete process.env.ALLOWED_KEY_MODES;
      await efi.close();
      await dlocal.close();
    }
  });

  // ProviderFailovers, ProviderBreakerOpened, ProviderRoutingPage (a late success).
  it('live routing: failovers, a breaker opening and a late success undone', async () => {
    const [psp, efi] = await Promise.all([startFakePsp(), startFakeEfi()]);
    const token = randomBytes(24).toString('base64url');
    const file = join(mkdtempSync(join(tmpdir(), 'providers-')), 'providers.json');
    const timeouts = { connect_ms: 1000, total_ms: 1500 };
    writeFileSync(
      file,
      JSON.stringify({
        api_pix: { ...psp.apiPixConfig(token), timeouts },
        efi: { ...efi.efiConfig(randomBytes(24).toString('base64url')), timeouts },
        routing: { pix: { '*': { providers: ['api_pix', 'efi'] } } },
      }),
    );
    Object.assign(process.env, { PROVIDERS_FILE: file, ALLOWED_KEY_MODES: 'test,live' });
    breakers.reset();
    try {
      const key = await stack.admin.createKey(merchant.merchantId, 'live');
      const pay = () =>
        fetch(`${stack.baseUrl}/cashier/cashier/payment`, {
          method: 'POST',
          headers: { authorization: `Bearer ${key.secret}`, 'content-type': 'application/json' },
          body: JSON.stringify({
            payment_method: 'pix',
            amount: 12,
            currency: 'BRL',
            country: 'BRA',
            customer: { name: 'Ana Silva', email: 'ana@example.com', document: '52998224725' },
          }),
        }).then(async (r) => ({ status: r.status, body: (await r.json()) as { payment_id: string } }));
      // Three refused connections in a row: three failovers, and the breaker opens on the third.
      await psp.outage('refuse');
      for (let i = 0; i < 3; i++) expect((await pay()).status).toBe(200);
      await psp.outage(null);
      breakers.reset();
      // 5xx twice, nothing found: a watched failover; the first request lands late and is paid: returned, paged.
      psp.failNext('putCob', { status: 500 }, 2);
      psp.setDevolucaoOutcome('DEVOLVIDO');
      const { body } = await pay();
      const late = apiPixConnectors(parseProvidersConfig({ api_pix: psp.apiPixConfig(token) }, 'test').api_pix!);
      const at = new Date().toISOString();
      await late.pix.createCharge({
        paymentId: body.payment_id,
        reference: txidOf(body.payment_id),
        amountMinor: 1200,
        merchantName: 'x',
        createdAt: at,
        expiresAt: new Date(Date.now() + 600_000).toISOString(),
      });
      late.client.close();
      await psp.pay(txidOf(body.payment_id), { callback: false });
      const context = { getRemainingTimeInMillis: () => 60_000, functionName: 'job' } as Context;
      await reconcileProviders({ time: new Date(Date.now() + 120_000).toISOString() } as ScheduledEvent, context);
      expect([...emittedNames()]).toEqual(expect.arrayContaining(['ProviderFailovers', 'ProviderBreakerOpened', 'ProviderRoutingPage']));
      expect(total('ProviderFailovers')).toBeGreaterThanOrEqual(4);
      expect(psp.violations).toEqual([]);
      expect(efi.violations).toEqual([]);
    } finally {
      delete process.env.PROVIDERS_FILE;
      delete process.env.ALLOWED_KEY_MODES;
      breakers.reset();
      await Promise.all([psp.close(), efi.close()]);
    }
  });

  it('live Efí: the MED read job reports what it read and applied, and a failed read', async () => {
    const efi = await startFakeEfi();
    const file = join(mkdtempSync(join(tmpdir(), 'providers-')), 'providers.json');
    writeFileSync(file, JSON.stringify({ efi: efi.efiConfig(randomBytes(24).toString('base64url')) }));
    Object.assign(process.env, { PROVIDERS_FILE: file });
    try {
      const context = { getRemainingTimeInMillis: () => 60_000, functionName: 'job' } as Context;
      expect(await readPixDisputes({ time: new Date().toISOString() } as ScheduledEvent, context)).toMatchObject({ failed: 0 });
      efi.failNext('listInfractions', { status: 503 }, 2);
      expect(await readPixDisputes({ time: new Date().toISOString() } as ScheduledEvent, context)).toMatchObject({ failed: 1 });
      expect([...emittedNames()]).toEqual(expect.arrayContaining(['PixDisputesRead', 'PixDisputesApplied', 'PixDisputeReadFailed']));
      expect(efi.violations).toEqual([]);
    } finally {
      delete process.env.PROVIDERS_FILE;
      await efi.close();
    }
  });

  it('live Adyen and STP: their calls, callbacks accepted, refused and unknown, and amount mismatches', async () => {
    const adyen = await startFakeAdyen();
    const stp = await startFakeStp();
    const token = randomBytes(24).toString('base64url');
    const file = join(mkdtempSync(join(tmpdir(), 'providers-')), 'providers.json');
    writeFileSync(file, JSON.stringify({ adyen: adyen.adyenConfig(), stp: stp.stpConfig(token) }));
    Object.assign(process.env, { PROVIDERS_FILE: file, ALLOWED_KEY_MODES: 'test,live' });
    try {
      const m = { ...merchant, apiKey: (await stack.admin.createKey(merchant.merchantId, 'live')).secret };
      adyen.setNotificationUrl(`${stack.baseUrl}/providers/adyen/notifications`);
      stp.setCallbackBase(`${stack.baseUrl}/providers/stp/${token}`);
      // Adyen: a card held as Pending, its AUTHORISATION for another amount (a mismatch), a forged item, an unknown one.
      adyen.nextCard({ resultCode: 'Pending' });
      const held = await payments(stack, m).direct({ payment_method: 'card', card: card('4111111145551142', '737') });
      const ref = (adyen.requests.at(-1)?.body as { reference: string }).reference;
      expect(held.body.status).toBe('processing');
      const items = [
        adyen.item({ eventCode: 'AUTHORISATION', merchantReference: ref, amount: { currency: 'BRL', value: 1 } }),
        adyen.item({ eventCode: 'AUTHORISATION', merchantReference: ref }, 'forged'),
        adyen.item({ eventCode: 'AUTHORISATION', merchantReference: `pi${'0'.repeat(32)}` }),
      ];
      expect(await adyen.notify(items)).toEqual({ status: 200, body: '[accepted]' });
      // STP: a SPEI pay-in's CLABE paid with another amount (a mismatch), and a deposit to a CLABE nobody has.
      const pay = payments(stack, m);
      const session = await pay.createSession({ amount: 250, currency: 'MXN', country: 'MEX' });
      const spei = await pay.process(session.body.session_id as string, 'spei', {
        customer: { name: 'Juana Pérez', email: 'juana@example.com', document: 'BOXW310820HNERXN09' },
      });
      expect(spei.status).toBe(200);
      const abono = (clabe: string, monto: number, id: number) => ({
        id,
        fechaOperacion: 20261125,
        institucionOrdenante: 40072,
        institucionBeneficiaria: 90646,
        claveRastreo: `MET${id}`,
        monto,
        nombreOrdenante: 'DIEGO GONZALEZ',
        tipoCuentaOrdenante: 40,
        cuentaOrdenante: '072691004495711499',
        rfcCurpOrdenante: 'ND',
        nombreBeneficiario: 'TIENDA',
        tipoCuentaBeneficiario: 40,
        cuentaBeneficiario: clabe,
        conceptoPago: 'PEDIDO',
        referenciaNumerica: 1234567,
        empresa: stp.empresa,
        tsLiquidacion: Date.now(),
      });
      expect((await stp.sendAbono(abono(spei.body.clabe as string, 100, 9001))).status).toBe(200);
      expect((await stp.sendAbono(abono('646180000000000019', 100, 9002))).status).toBe(200);
      expect((await stp.sendEstado({ nope: true })).status).toBe(400);
      expect(adyen.violations).toEqual([]);
      expect(stp.violations).toEqual([]);
    } finally {
      delete process.env.PROVIDERS_FILE;
      delete process.env.ALLOWED_KEY_MODES;
      await adyen.close();
      await stp.close();
    }
  });

  it('live dLocal: its calls, a notification accepted, a forged one refused, and an amount mismatch', async () => {
    const dlocal = await startFakeDlocal();
    const file = join(mkdtempSync(join(tmpdir(), 'providers-')), 'providers.json');
    writeFileSync(file, JSON.stringify({ dlocal: dlocal.dlocalConfig() }));
    Object.assign(process.env, { PROVIDERS_FILE: file, ALLOWED_KEY_MODES: 'test,live' });
    try {
      const m = { ...merchant, apiKey: (await stack.admin.createKey(merchant.merchantId, 'live')).secret };
      const pay = payments(stack, m);
      const session = await pay.createSession({ amount: 100, currency: 'PEN', country: 'PER' });
      const r = await pay.process(session.body.session_id as string, 'bank_transfer', {
        customer: { name: 'Rosa Quispe', email: 'rosa@example.pe', document: '45678912' },
      });
      expect(r.status).toBe(200);
      const orderId = (dlocal.requests.at(-1)?.body as { order_id: string }).order_id;
      dlocal.setPaidAmount(orderId, 99);
      dlocal.setStatus(orderId, 'PAID');
      expect((await dlocal.notify(orderId, { sign: 'forged' })).status).toBe(401);
      expect((await dlocal.notify(orderId)).status).toBe(200);
      expect(dlocal.violations).toEqual([]);
    } finally {
      delete process.env.PROVIDERS_FILE;
      delete process.env.ALLOWED_KEY_MODES;
      await dlocal.close();
    }
  });

  it('live Binance Pay: its calls, a notification accepted, a forged one refused, and an amount mismatch', async () => {
    const binance = await startFakeBinancePay();
    const file = join(mkdtempSync(join(tmpdir(), 'providers-')), 'providers.json');
    writeFileSync(file, JSON.stringify({ binance_pay: binance.binancePayConfig() }));
    Object.assign(process.env, { PROVIDERS_FILE: file, ALLOWED_KEY_MODES: 'test,live' });
    try {
      const m = { ...merchant, apiKey: (await stack.admin.createKey(merchant.merchantId, 'live')).secret };
      const pay = payments(stack, m);
      const session = await pay.createSession({ amount: 100, currency: 'BRL', country: 'BRA' });
      const r = await pay.process(session.body.session_id as string, 'crypto');
      expect(r.status).toBe(200);
      const ref = merchantTradeNoOf(r.body.payment_id as string);
      binance.setWebhookMode('withhold');
      // Paid with another USDT amount than the quote: recorded, never settled, and paged (ProviderAmountMismatch).
      await binance.pay(ref, { amount: '1' });
      expect((await binance.notify(ref, { sign: 'forged' })).status).toBe(401);
      expect((await binance.notify(ref)).status).toBe(200);
      expect(binance.violations).toEqual([]);
    } finally {
      delete process.env.PROVIDERS_FILE;
      delete process.env.ALLOWED_KEY_MODES;
      await binance.close();
    }
  });

  it('the comparison reports a metric nobody emits', () => {
    const ns = flushes[0]!._aws.CloudWatchMetrics[0]!.Namespace;
    const read = { source: 'probe', namespace: 'X', dimensions: { service: String(process.env.POWERTOOLS_SERVICE_NAME) } };
    expect(unmatched([{ ...read, name: 'WebhookAttempts' }], 'X', ns, emittedKeys())).toEqual([]);
    expect(unmatched([{ ...read, name: 'NobodyPublishesThis' }], 'X', ns, emittedKeys())).toHaveLength(1);
    expect(
      unmatched([{ ...read, name: 'WebhookAttempts', dimensions: { ...read.dimensions, route: 'health' } }], 'X', ns, emittedKeys()),
    ).toHaveLength(1);
  });
});

describe.each(STAGES)('%s: every custom metric its alarms and dashboard read is emitted', (stage) => {
  const config = stageConfig(stage);
  let reads: MetricRead[];
  let alarmReads: MetricRead[];
  let environments: Record<string, unknown>[];

  beforeAll(() => {
    const { stateless, stateful, nested } = synthesized.get(stage)!;
    const custom = (r: MetricRead) => !r.namespace.startsWith('AWS/');
    alarmReads = [...alarmMetrics(stateless), ...alarmMetrics(stateful)].filter(custom);
    reads = [...alarmReads, ...dashboardMetrics(stateless).filter(custom)];
    environments = [stateless, ...nested].flatMap(functionEnvironments);
  });

  it("reads the alarms' metrics, all in the stage's namespace", () => {
    expect(reads.length).toBeGreaterThan(0);
    const names = new Set(alarmReads.map((r) => r.name));
    for (const name of ALARMED) expect(names).toContain(name);
    expect(new Set(reads.map((r) => r.namespace))).toEqual(new Set([config.metricsNamespace]));
  });

  it('gives every function the namespace the alarms read and the service name the tests emit under', () => {
    expect(environments.length).toBeGreaterThan(0);
    expect(new Set(environments.map((e) => e.POWERTOOLS_METRICS_NAMESPACE))).toEqual(new Set([config.metricsNamespace]));
    expect(new Set(environments.map((e) => e.POWERTOOLS_SERVICE_NAME))).toEqual(new Set([process.env.POWERTOOLS_SERVICE_NAME]));
  });

  // Compares with what the tests above captured: run the whole file.
  it('finds each one emitted with exactly its dimensions', () => {
    const namespaces = new Set(flushes.flatMap((e) => e._aws.CloudWatchMetrics.map((d) => d.Namespace)));
    expect(namespaces.size).toBe(1); // one metrics instance, one namespace: the functions' env sets it per stage
    const [functionNamespace] = new Set(environments.map((e) => String(e.POWERTOOLS_METRICS_NAMESPACE)));
    expect(unmatched(reads, functionNamespace!, [...namespaces][0]!, emittedKeys())).toEqual([]);
  });
});
