/**
 * The stage's alarms and dashboard (lib/monitoring.ts, lib/dashboard.ts) as synthesized: each alarm reads
 * the metric the functions publish (namespace and dimensions), with the stage's threshold, and notifies the
 * stage's topic; the dashboard has a widget for each thing an operator watches. Bundling is skipped.
 * test/integration/monitoring-metrics.test.ts proves every custom metric read here is emitted by the code.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { buildApp } from '../../lib/app';
import { MANIFEST } from '../../lib/manifest';
import { PAYOUT_FLOAT_PROVIDERS, PROVIDERS, stageConfig, type Stage } from '../../lib/stage-config';
import { BUSY_ALARM, pagingRoutes } from '../../lib/monitoring';
import { BUSY_METRIC } from '../../shared/observability/contention-metrics';

type Alarm = { Properties: Record<string, any> };
interface MetricStat {
  Metric: { Namespace: string; MetricName: string; Dimensions?: { Name: string; Value: unknown }[] };
  Stat: string;
  Period: number;
}

function synth(stage: Stage) {
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  const built = buildApp(app, stage);
  const template = Template.fromStack(built.stateless);
  const alarms = Object.values(template.findResources('AWS::CloudWatch::Alarm')) as Alarm[];
  const byName = new Map(alarms.map((a) => [String(a.Properties.AlarmName), a.Properties]));
  const [dashboard] = Object.values(template.findResources('AWS::CloudWatch::Dashboard')) as Alarm[];
  return { built, template, byName, dashboard: dashboard! };
}

/** The dashboard body with every CloudFormation token replaced by a placeholder, parsed. */
function dashboardBody(dashboard: Alarm): { widgets: { type: string; properties: Record<string, any> }[] } {
  const body = dashboard.Properties.DashboardBody as string | { 'Fn::Join': [string, unknown[]] };
  const text = typeof body === 'string' ? body : body['Fn::Join'][1].map((p) => (typeof p === 'string' ? p : 'TOKEN')).join('');
  return JSON.parse(text);
}

const coldStartTitles = (n: number) => Array.from({ length: n }, (_, i) => `Cold starts (init duration, from REPORT lines) ${i + 1}/${n}`);

/** The metrics of a metric-math alarm, by id. */
const mathInputs = (alarm: Record<string, any>) =>
  new Map((alarm.Metrics as { Id: string; MetricStat?: MetricStat; Expression?: string }[]).map((m) => [m.Id, m]));

describe.each(['sandbox', 'live'] as const)('%s monitoring', (stage) => {
  const config = stageConfig(stage);
  const t = config.alarms;
  const { built, byName, dashboard } = synth(stage);
  const providerKeys = [...PROVIDERS.map((p) => `provider-errors-${p}`), 'provider-callbacks-rejected'];
  const keys = [
    'webhook-failure-rate',
    'event-dispatch-age',
    'settlement-sla',
    'ledger-fold-behind',
    'busy-retry-same-key',
    'api-p99',
    ...pagingRoutes(MANIFEST, stage).map((r) => `route-5xx-${r.id}`),
    ...providerKeys,
    'provider-amount-mismatch',
    'provider-routing-page',
    'payout-provider-balance-low',
    'provider-read-back-overdue',
    'pix-disputes-unread',
  ];
  const alarm = (key: string) => {
    const a = byName.get(`${config.prefix}-${key}`);
    if (!a) throw new Error(`no alarm ${config.prefix}-${key}`);
    return a;
  };
  const service = [{ Name: 'service', Value: 'latam-payments' }];
  /** A rate alarm's part and whole: the stage's namespace, those metric names, exactly these two dimensions. */
  const expectRateOf = (a: Record<string, any>, part: string, whole: string, dims: { Name: string; Value: unknown }[]) => {
    const inputs = mathInputs(a);
    for (const [id, name] of [
      ['part', part],
      ['whole', whole],
    ] as const) {
      const metric = inputs.get(id)?.MetricStat?.Metric;
      expect(metric).toMatchObject({ Namespace: config.metricsNamespace, MetricName: name });
      expect(metric?.Dimensions).toHaveLength(2);
      expect(metric?.Dimensions).toEqual(expect.arrayContaining(dims));
    }
  };

  test('webhook failure rate: failed attempts over attempts, in percent, once there are enough attempts', () => {
    const a = alarm('webhook-failure-rate');
    const metrics = mathInputs(a);
    const expression = [...metrics.values()].find((m) => m.Expression);
    expect(expression?.Expression).toBe(`IF(whole >= ${t.webhookMinAttempts}, 100 * part / whole, 0)`);
    expect(metrics.get('part')?.MetricStat).toMatchObject({
      Metric: { Namespace: config.metricsNamespace, MetricName: 'WebhookAttemptsFailed', Dimensions: service },
      Stat: 'Sum',
    });
    expect(metrics.get('whole')?.MetricStat?.Metric.MetricName).toBe('WebhookAttempts');
    expect(a).toMatchObject({ Threshold: t.webhookFailurePercent, ComparisonOperator: 'GreaterThanThreshold' });
  });

  test('event dispatch age reads the stream consumer’s IteratorAge; settlement SLA the job’s age, paging when the job falls silent', () => {
    expect(alarm('event-dispatch-age')).toMatchObject({
      Namespace: 'AWS/Lambda',
      MetricName: 'IteratorAge',
      Statistic: 'Maximum',
      Threshold: t.dispatchMaxAgeSeconds * 1000,
      TreatMissingData: 'notBreaching',
    });
    expect(JSON.stringify(alarm('event-dispatch-age').Dimensions)).toContain('StreamEventDispatch');
    expect(t.dispatchMaxAgeSeconds).toBe(300); // "committed events not on the webhook queue within 5 minutes"
    expect(alarm('settlement-sla')).toMatchObject({
      MetricName: 'SettlementOldestAgeSeconds',
      Dimensions: service,
      Statistic: 'Maximum',
      Threshold: t.settlementSlaMinutes * 60,
      TreatMissingData: 'breaching',
    });
  });

  test('busy-retry-same-key reads the requests answered 503 BUSY_RETRY_SAME_KEY, service dimension only, periods running', () => {
    expect(alarm('busy-retry-same-key')).toMatchObject({
      Namespace: config.metricsNamespace,
      MetricName: BUSY_METRIC,
      Dimensions: service,
      Statistic: 'Sum',
      Threshold: BUSY_ALARM.perPeriod,
      EvaluationPeriods: BUSY_ALARM.periods,
      ComparisonOperator: 'GreaterThanThreshold',
      TreatMissingData: 'notBreaching',
    });
  });

  test('ledger-fold-behind reads the sweep job’s folded credits: any, three periods running', () => {
    expect(alarm('ledger-fold-behind')).toMatchObject({
      Namespace: config.metricsNamespace,
      MetricName: 'LedgerCreditsSwept',
      Dimensions: service,
      Statistic: 'Sum',
      Threshold: 0,
      ComparisonOperator: 'GreaterThanThreshold',
      EvaluationPeriods: t.evaluationPeriods * 3,
      TreatMissingData: 'notBreaching',
    });
  });

  test('providers: error rate per provider on its own calls, money not settled, callbacks refused, read-backs overdue', () => {
    for (const p of PROVIDERS) {
      const dims = [...service, { Name: 'provider', Value: p }];
      const rate = alarm(`provider-errors-${p}`);
      expect([...mathInputs(rate).values()].find((m) => m.Expression)?.Expression).toBe(
        `IF(whole >= ${t.providerMinCalls}, 100 * part / whole, 0)`,
      );
      expectRateOf(rate, 'ProviderCallErrors', 'ProviderCalls', dims);
      expect(rate.Threshold).toBe(t.providerErrorPercent);
      expect(alarm('provider-callbacks-rejected').AlarmDescription).toContain(p);
    }
    // Refused callbacks page whichever provider: one alarm on the [service] count (not one per provider).
    expect(alarm('provider-callbacks-rejected')).toMatchObject({
      MetricName: 'ProviderCallbacksRejected',
      Dimensions: service,
      Statistic: 'Sum',
      Threshold: t.providerCallbacksRejected,
      EvaluationPeriods: 1,
      TreatMissingData: 'notBreaching',
    });
    // Money not settled, and our balance at a payout provider too low, page on any one event whichever provider:
    // one alarm each on the [service] count every provider's event adds to (not one per provider).
    for (const [key, name, providers] of [
      ['provider-amount-mismatch', 'ProviderAmountMismatch', [...PROVIDERS, ...PAYOUT_FLOAT_PROVIDERS]],
      ['provider-routing-page', 'ProviderRoutingPage', PROVIDERS],
      ['payout-provider-balance-low', 'PayoutProviderBalanceLow', PAYOUT_FLOAT_PROVIDERS],
    ] as const) {
      expect(alarm(key)).toMatchObject({
        MetricName: name,
        Dimensions: service,
        Statistic: 'Sum',
        Threshold: 0,
        ComparisonOperator: 'GreaterThanThreshold',
        EvaluationPeriods: 1,
        TreatMissingData: 'notBreaching',
      });
      for (const p of providers) expect(alarm(key).AlarmDescription).toContain(p);
    }
    expect(alarm('provider-read-back-overdue')).toMatchObject({
      MetricName: 'ProviderAwaitingOldestSeconds',
      Dimensions: service,
      Statistic: 'Maximum',
      Threshold: t.providerReadBackOverdueMinutes * 60,
      TreatMissingData: 'breaching',
    });
    expect(alarm('pix-disputes-unread')).toMatchObject({
      MetricName: 'PixDisputeReadFailed',
      Dimensions: service,
      Statistic: 'Sum',
      Threshold: 0,
      DatapointsToAlarm: 3,
      TreatMissingData: 'notBreaching',
    });
  });

  test('API p99 reads API Gateway latency for the stage’s number of periods', () => {
    expect(alarm('api-p99')).toMatchObject({
      Namespace: 'AWS/ApiGateway',
      MetricName: 'Latency',
      ExtendedStatistic: 'p99',
      Threshold: t.apiP99Ms,
      EvaluationPeriods: t.latencyEvaluationPeriods,
    });
  });

  test('a 5xx-rate alarm per state-changing route (none for reads): its 5xx (0 when none written) over its invocations', () => {
    expect(pagingRoutes(MANIFEST, stage).map((r) => r.method)).not.toContain('GET');
    // Every POST but those that opt out (paging: false; the API's 5xx alarm covers them): a beneficiary check that
    // changes nothing, a payer's card from our
    // mandate approval page (a zero-value authorisation, no money moved), the PSP's Pix Automático
    // callbacks (retried, and read back by the job), the shopper's browser back from dLocal's 3-D Secure, and dLocal's
    // chargeback notices (dLocal retries them), a dispute's evidence, submission and acceptance (rare: the API's alarm
    // covers them); at the live
    // stage, also the routes that serve test mode only.
    const optedOut = MANIFEST.routes.filter((r) => r.paging === false || (stage === 'live' && r.sandboxOnly));
    expect(MANIFEST.routes.filter((r) => r.paging === false).map((r) => r.id)).toEqual([
      'validateBeneficiary',
      'mandateApprove',
      'stageDisputeEvidence',
      'submitDispute',
      'acceptDispute',
      'apiPixRecurrenceCallback',
      'dlocalChargebacks',
      'dlocalCardReturn',
    ]);
    expect(MANIFEST.routes.filter((r) => r.sandboxOnly).map((r) => r.id)).toEqual([
      'simulatePayment',
      'sandboxComplete',
      'topUpTestBalance',
      'simulateMandate',
      'simulateDispute',
    ]);
    expect(pagingRoutes(MANIFEST, stage).length).toBe(MANIFEST.routes.filter((r) => r.method === 'POST').length - optedOut.length);
    for (const route of [...MANIFEST.routes.filter((r) => r.method === 'GET'), ...optedOut])
      expect(byName.has(`${config.prefix}-route-5xx-${route.id}`)).toBe(false);
    for (const route of pagingRoutes(MANIFEST, stage)) {
      const a = alarm(`route-5xx-${route.id}`);
      const inputs = mathInputs(a);
      const expression = [...inputs.values()].find((m) => m.Expression);
      expect(expression?.Expression).toBe(`IF(requests >= ${t.routeMinRequests}, 100 * FILL(errors, 0) / requests, 0)`);
      const errors = inputs.get('errors')?.MetricStat?.Metric;
      expect(errors).toMatchObject({ Namespace: config.metricsNamespace, MetricName: '5xx' });
      expect(errors?.Dimensions).toEqual(expect.arrayContaining([...service, { Name: 'route', Value: route.id }]));
      const requests = inputs.get('requests')?.MetricStat;
      expect(requests).toMatchObject({ Metric: { Namespace: 'AWS/Lambda', MetricName: 'Invocations' }, Stat: 'Sum' });
      expect(JSON.stringify(requests?.Metric.Dimensions)).toContain(`Route${route.id[0]!.toUpperCase()}${route.id.slice(1)}`);
      expect(a.Threshold).toBe(t.route5xxPercent);
    }
  });

  test('every alarm notifies the stage topic; the paging alarms also when they clear', () => {
    expect(built.monitoring.alarms).toHaveLength(keys.length);
    for (const key of keys) {
      const a = alarm(key);
      expect(a.AlarmActions).toEqual([{ 'Fn::ImportValue': expect.stringContaining('AlarmTopic') }]);
      expect(a.OKActions).toEqual(a.AlarmActions);
      expect(a.AlarmDescription).toContain('docs/operations.md#alarms-what-each-means-and-what-to-do');
    }
    for (const a of byName.values()) expect(a.AlarmActions).toEqual([{ 'Fn::ImportValue': expect.stringContaining('AlarmTopic') }]);
  });

  test('the dashboard has a widget for each thing an operator watches', () => {
    const { widgets } = dashboardBody(dashboard);
    const titles = widgets.map((w) => String(w.properties.title ?? ''));
    for (const title of [
      'Alarms',
      'Requests per route',
      '5xx per route',
      'p99 latency per route (ms)',
      'Webhook deliveries by outcome',
      'Live providers: calls and errors',
      'Live providers: call latency (ms)',
      'Live providers: callbacks and reconciliation',
      'Live payments: read-back overdue (s)',
      'Oldest undelivered event (s)',
      'Dead-letter queues (messages)',
      'Payout settlement backlog',
      'DynamoDB consumed capacity (units)',
      'DynamoDB throttles and system errors',
      'Workers and jobs (per period)',
      'Lambda errors and throttles (all functions)',
      'Lambda concurrency (max per function)',
      // One cold-start query per 25 functions (half of Logs Insights' 50 log groups).
      ...coldStartTitles(Math.ceil(built.stateless.functions.size / 25)),
    ]) {
      expect(titles).toContain(title);
    }
    const widget = (title: string) => widgets.find((w) => w.properties.title === title)!.properties;
    // Per-route widgets: one line per manifest route, each on the route dimension.
    const perRoute = widget('p99 latency per route (ms)').metrics as unknown[][];
    expect(perRoute).toHaveLength(MANIFEST.routes.length);
    // Each route's function's own Duration (one function per route; AWS/Lambda, no custom metric).
    expect(perRoute.every((m) => m[0] === 'AWS/Lambda' && m[1] === 'Duration')).toBe(true);
    expect(JSON.stringify(perRoute)).toContain('"p99"');
    // The alarm widget lists the stage's alarms.
    expect(widget('Alarms').alarms).toHaveLength(keys.length);
    // Cold starts: Logs Insights queries over every function's log group, at most 25 (half the query's limit) each.
    const coldStarts = widgets.filter((w) => String(w.properties.title).startsWith('Cold starts')).map((w) => String(w.properties.query));
    expect(coldStarts.every((q) => q.includes('@initDuration'))).toBe(true);
    const sources = coldStarts.map((q) => q.match(/SOURCE/g)?.length ?? 0);
    expect(Math.max(...sources)).toBeLessThanOrEqual(25);
    expect(sources.reduce((a, b) => a + b, 0)).toBe(built.stateless.functions.size);
    // DLQ depths: one line per queue of the manifest.
    expect(widget('Dead-letter queues (messages)').metrics).toHaveLength(MANIFEST.queues.length);
    // Live providers: every metered provider (API Pix, Adyen, STP, dLocal and Binance Pay) has its calls, errors, error rate and latency.
    expect(PROVIDERS).toEqual(['api_pix', 'adyen', 'stp', 'dlocal', 'binance_pay']);
    const calls = JSON.stringify(widget('Live providers: calls and errors').metrics);
    const latency = JSON.stringify(widget('Live providers: call latency (ms)').metrics);
    for (const p of PROVIDERS) {
      for (const label of [`${p} calls`, `${p} no answer`, `${p} errors %`]) expect(calls).toContain(label);
      expect(latency).toContain(`${p} p99`);
    }
  });

  test('every metered provider has its own errors alarm, like API Pix; refused callbacks share one', () => {
    for (const p of ['adyen', 'stp', 'dlocal', 'binance_pay']) {
      expect(alarm(`provider-errors-${p}`).AlarmDescription).toEqual(expect.stringContaining(p));
      expect(alarm('provider-callbacks-rejected').AlarmDescription).toEqual(expect.stringContaining(p));
    }
  });
});

describe('the runbook’s alarm table', () => {
  const doc = readFileSync(join(process.cwd(), 'docs/operations.md'), 'utf8');
  const section = doc.slice(doc.indexOf('## Alarms: what each means and what to do'));
  const row = (key: string) => section.split('\n').find((line) => line.startsWith(`| \`…-${key}\``)) ?? `(no row for ${key})`;
  const s = stageConfig('sandbox').alarms;
  const l = stageConfig('live').alarms;
  const n = (x: number) => x.toLocaleString('en-US');

  test('states the thresholds each stage configures (sandbox / live)', () => {
    expect(row('webhook-failure-rate')).toContain(`more than ${s.webhookFailurePercent}% / ${l.webhookFailurePercent}%`);
    expect(row('webhook-failure-rate')).toContain(`at least ${s.webhookMinAttempts} / ${l.webhookMinAttempts} attempts`);
    expect(s.dispatchMaxAgeSeconds).toBe(l.dispatchMaxAgeSeconds);
    expect(row('event-dispatch-age')).toContain(`more than ${s.dispatchMaxAgeSeconds} s`);
    expect(row('settlement-sla')).toContain(`more than ${s.settlementSlaMinutes} / ${l.settlementSlaMinutes} min`);
    expect(s.latencyEvaluationPeriods).toBe(l.latencyEvaluationPeriods);
    expect(row('api-p99')).toContain(`above ${n(s.apiP99Ms)} / ${n(l.apiP99Ms)} ms for ${s.latencyEvaluationPeriods} periods`);
    expect(s.routeMinRequests).toBe(l.routeMinRequests);
    expect(row('route-5xx-<routeId>')).toContain(`more than ${s.route5xxPercent}% / ${l.route5xxPercent}%`);
    expect(row('route-5xx-<routeId>')).toContain(`at least ${s.routeMinRequests} requests`);
    expect(row('busy-retry-same-key')).toContain(`more than ${BUSY_ALARM.perPeriod} requests answered 503`);
    expect(row('busy-retry-same-key')).toContain(`${BUSY_ALARM.periods} periods in a row`);
    expect(row('api-5xx')).toContain(`${s.api5xx} / ${l.api5xx} or more`);
    expect(section).toContain(`| per-function Errors / Throttles | ${s.functionErrors} / ${l.functionErrors} or more`);
  });
});
