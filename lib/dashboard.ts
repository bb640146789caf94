/**
 * The stage's CloudWatch dashboard, built from the manifests: traffic and errors per route, webhook delivery,
 * money in flight, queues, DynamoDB and Lambda. Custom metrics are the functions' EMF metrics (ServiceMetrics);
 * the rest are the AWS services' own. Cold starts come from the functions' REPORT log lines (Logs Insights),
 * not from a custom metric per function.
 */
import type * as apigwv2 from 'aws-cdk-lib/aws-apigatewayv2';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type { Construct } from 'constructs';
import type { ServiceManifest } from './manifest';
import type { ServiceMetrics } from './service-metrics';
import { PROVIDERS, type StageConfig } from './stage-config';
import type { QueuePair } from './stateful-stack';

export interface DashboardSources {
  readonly config: StageConfig;
  readonly manifest: ServiceManifest;
  readonly httpApi: apigwv2.HttpApi;
  /** Every function of the stage, keyed as StatelessStack.functions. */
  readonly functions: ReadonlyMap<string, lambda.Function>;
  readonly table: dynamodb.ITable;
  readonly queues: ReadonlyMap<string, QueuePair>;
  readonly metrics: ServiceMetrics;
  readonly alarms: readonly cloudwatch.IAlarm[];
  /** The live providers metered; default PROVIDERS. */
  readonly providers?: readonly string[];
}

/**
 * CloudWatch Logs Insights queries up to 50 log groups at once: the cold starts are split over as many widgets as
 * keep each at half that (test/infra/deploy-limits.test.ts fails at 90% of it), so new functions never break synth.
 */
const MAX_QUERY_LOG_GROUPS = 50;
const LOG_GROUPS_PER_WIDGET = MAX_QUERY_LOG_GROUPS / 2;
const COLD_STARTS = 'Cold starts (init duration, from REPORT lines)';
const FULL = 24;
const HALF = 12;
const HEIGHT = 6;

export function buildDashboard(scope: Construct, id: string, s: DashboardSources): cloudwatch.Dashboard {
  const { config, manifest, metrics: m } = s;
  const routes = manifest.routes;
  const providers = s.providers ?? PROVIDERS;
  /** A half-width graph: two per row. */
  const graph = (title: string, props: Omit<cloudwatch.GraphWidgetProps, 'title' | 'width' | 'height'>) =>
    new cloudwatch.GraphWidget({ title, width: HALF, height: HEIGHT, ...props });
  const perRoute = (title: string, name: string, statistic: string, unit?: string) =>
    graph(title, {
      left: routes.map((r) => m.metric(name, statistic, r.id)),
      leftYAxis: { min: 0, label: unit, showUnits: false },
      legendPosition: cloudwatch.LegendPosition.RIGHT,
    });
  // One function per route: its own Invocations and Duration are the route's requests and latency (free metrics).
  const perRouteFunction = (title: string, metric: (fn: lambda.Function, label: string) => cloudwatch.IMetric, unit?: string) =>
    graph(title, {
      left: routes.flatMap((r) => {
        const fn = s.functions.get(r.id);
        return fn ? [metric(fn, r.id)] : [];
      }),
      leftYAxis: { min: 0, label: unit, showUnits: false },
      legendPosition: cloudwatch.LegendPosition.RIGHT,
    });
  const queues = [...s.queues.values()];
  const functions = [...s.functions.entries()];
  const queries = Math.ceil(functions.length / LOG_GROUPS_PER_WIDGET);
  const perQuery = Math.ceil(functions.length / queries);

  const dashboard = new cloudwatch.Dashboard(scope, id, {
    dashboardName: config.prefix,
    periodOverride: cloudwatch.PeriodOverride.AUTO,
  });
  dashboard.addWidgets(
    new cloudwatch.TextWidget({
      width: FULL,
      height: 2,
      markdown:
        `# LatamPayments ${config.stage}\n` +
        'Alarms and what to do: docs/operations.md, "Alarms: what each means and what to do". ' +
        `Custom metrics: namespace \`${config.metricsNamespace}\`.`,
    }),
  );
  dashboard.addWidgets(new cloudwatch.AlarmStatusWidget({ title: 'Alarms', width: FULL, height: 4, alarms: [...s.alarms] }));
  dashboard.addWidgets(
    graph('API: requests, 4xx, 5xx (all routes)', {
      left: [s.httpApi.metricCount({ label: 'requests' })],
      right: [s.httpApi.metricClientError({ label: '4xx' }), s.httpApi.metricServerError({ label: '5xx' })],
    }),
    graph('API latency (ms)', {
      left: ['p50', 'p90', 'p99'].map((statistic) => s.httpApi.metricLatency({ statistic, label: statistic })),
      leftAnnotations: [{ value: config.alarms.apiP99Ms, label: 'p99 alarm', color: cloudwatch.Color.RED }],
    }),
  );
  dashboard.addWidgets(
    perRouteFunction('Requests per route', (fn, label) => fn.metricInvocations({ statistic: 'Sum', label })),
    perRouteFunction('p99 latency per route (ms)', (fn, label) => fn.metricDuration({ statistic: 'p99', label }), 'ms'),
  );
  dashboard.addWidgets(perRoute('5xx per route', '5xx', 'Sum'));

  const webhooks = s.queues.get('webhooks');
  const dispatcher = s.functions.get('eventDispatchStream');
  dashboard.addWidgets(
    graph('Webhook deliveries by outcome', {
      left: [
        m.metric('WebhookDelivered', 'Sum', undefined, 'delivered'),
        m.metric('WebhookAttemptsFailed', 'Sum', undefined, 'failed attempts (retried or given up)'),
        m.metric('WebhookDeadLettered', 'Sum', undefined, 'dead-lettered'),
        m.metric('WebhookNoEndpoint', 'Sum', undefined, 'no endpoint'),
      ],
      right: [m.webhookFailureRate(config.alarms.webhookMinAttempts, 'failure rate %')],
      rightYAxis: { min: 0, max: 100, showUnits: false },
    }),
    graph('Oldest undelivered event (s)', {
      left: [
        ...(dispatcher
          ? [
              new cloudwatch.MathExpression({
                expression: 'age / 1000',
                usingMetrics: { age: dispatcher.metric('IteratorAge', { statistic: 'Maximum' }) },
                label: 'on the table stream',
              }),
            ]
          : []),
        ...(webhooks ? [webhooks.queue.metricApproximateAgeOfOldestMessage({ label: 'on the webhook queue' })] : []),
      ],
      leftAnnotations: [{ value: config.alarms.dispatchMaxAgeSeconds, label: 'dispatch alarm', color: cloudwatch.Color.RED }],
    }),
  );
  const payouts = s.queues.get('payouts');
  dashboard.addWidgets(
    graph('Payout settlement backlog', {
      left: [
        m.metric('SettlementsOverdue', 'Maximum', undefined, 'in flight past the grace period'),
        m.metric('SettlementsResumed', 'Sum', undefined, 'steps sent again'),
        ...(payouts ? [payouts.queue.metricApproximateNumberOfMessagesVisible({ label: 'settlement queue', statistic: 'Maximum' })] : []),
      ],
      right: [m.metric('SettlementOldestAgeSeconds', 'Maximum', undefined, 'oldest in flight (s)')],
      rightAnnotations: [{ value: config.alarms.settlementSlaMinutes * 60, label: 'SLA', color: cloudwatch.Color.RED }],
    }),
    graph('Dead-letter queues (messages)', {
      left: queues.map((q) => q.dlq.metricApproximateNumberOfMessagesVisible({ label: q.definition.id, statistic: 'Maximum' })),
    }),
  );
  dashboard.addWidgets(
    graph('Live providers: calls and errors', {
      left: providers.flatMap((p) => [
        m.providerMetric('ProviderCalls', 'Sum', p, `${p} calls`),
        m.providerMetric('ProviderCallErrors', 'Sum', p, `${p} no answer`),
      ]),
      right: providers.map((p, i) => m.providerErrorRate(p, config.alarms.providerMinCalls, `${p} errors %`, `_${i}`)),
      rightYAxis: { min: 0, max: 100, showUnits: false },
    }),
    graph('Live providers: call latency (ms)', {
      left: providers.flatMap((p) => ['p50', 'p99'].map((stat) => m.providerMetric('ProviderCallLatency', stat, p, `${p} ${stat}`))),
    }),
  );
  dashboard.addWidgets(
    graph('Live providers: callbacks and reconciliation', {
      left: [
        ...providers.flatMap((p) =>
          (['Accepted', 'Rejected', 'Unknown'] as const).map((o) =>
            m.providerMetric(`ProviderCallbacks${o}`, 'Sum', p, `${p} callbacks ${o}`),
          ),
        ),
        m.metric('ProviderChecked', 'Sum', undefined, 'read back by the job'),
        m.metric('ProviderReconciled', 'Sum', undefined, 'resolved by the job'),
        ...providers.map((p) => m.providerMetric('ProviderAmountMismatch', 'Sum', p, `${p} amount mismatches`)),
      ],
    }),
    // Routing (DESIGN.md 9.2): payments sent on to the next provider, breakers opened, abandoned attempts found paid,
    // counted on [service] alone (one series each).
    // Approval and no-answer rates per provider and kind: `npm run cli -- providers stats` (docs/operations.md).
    graph('Live providers: routing (every provider; the logs name which)', {
      left: [
        m.metric('ProviderFailovers', 'Sum', undefined, 'failed over to the next provider'),
        m.metric('ProviderBreakerOpened', 'Sum', undefined, 'breakers opened'),
        m.metric('ProviderRoutingPage', 'Sum', undefined, 'pages: late successes undone, approval drops'),
      ],
    }),
    graph('Live payments: read-back overdue (s)', {
      left: [m.metric('ProviderAwaitingOldestSeconds', 'Maximum', undefined, 'oldest overdue read-back')],
      leftAnnotations: [{ value: config.alarms.providerReadBackOverdueMinutes * 60, label: 'alarm', color: cloudwatch.Color.RED }],
    }),
  );
  dashboard.addWidgets(
    graph('DynamoDB consumed capacity (units)', {
      left: [s.table.metricConsumedReadCapacityUnits({ label: 'read' }), s.table.metricConsumedWriteCapacityUnits({ label: 'write' })],
    }),
    graph('DynamoDB throttles and system errors', {
      left: ['ReadThrottleEvents', 'WriteThrottleEvents'].map((name) => s.table.metric(name, { statistic: 'Sum', label: name })),
      right: [s.table.metricSystemErrorsForOperations({ label: 'system errors' })],
    }),
  );
  dashboard.addWidgets(
    graph('Workers and jobs (per period)', {
      left: [
        m.metric('WebhookMessages', 'Sum', undefined, 'webhook messages'),
        m.metric('WebhookMessageFailures', 'Sum', undefined, 'webhook messages failed (retried by SQS)'),
        m.metric('EventsDispatched', 'Sum', undefined, 'events dispatched from the table stream'),
        m.metric('Expired', 'Sum', undefined, 'sessions and payments expired'),
        m.metric('PixDisputesApplied', 'Sum', undefined, 'PIX infractions (MED) applied to payments'),
        m.metric('PixDisputeReadFailed', 'Sum', undefined, 'PIX infraction reads failed'),
      ],
    }),
    graph('Lambda errors and throttles (all functions)', {
      left: functions.map(([key, fn]) => fn.metricErrors({ label: key })),
      right: functions.map(([key, fn]) => fn.metricThrottles({ label: `${key} throttles` })),
      legendPosition: cloudwatch.LegendPosition.HIDDEN,
    }),
  );
  dashboard.addWidgets(
    graph('Lambda concurrency (max per function)', {
      left: functions.map(([key, fn]) => fn.metric('ConcurrentExecutions', { statistic: 'Maximum', label: key })),
      legendPosition: cloudwatch.LegendPosition.RIGHT,
    }),
    ...Array.from(
      { length: queries },
      (_, i) =>
        new cloudwatch.LogQueryWidget({
          title: queries === 1 ? COLD_STARTS : `${COLD_STARTS} ${i + 1}/${queries}`,
          width: HALF,
          height: HEIGHT,
          logGroupNames: functions.slice(i * perQuery, (i + 1) * perQuery).map(([, fn]) => fn.logGroup.logGroupName),
          view: cloudwatch.LogQueryVisualizationType.BAR,
          queryLines: [
            'filter @type = "REPORT" and ispresent(@initDuration)',
            'stats count(*) as cold_starts, avg(@initDuration) as avg_init_ms, max(@initDuration) as max_init_ms by bin(5m)',
          ],
        }),
    ),
  );
  return dashboard;
}
