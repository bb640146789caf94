/**
 * What an operator is paged for and looks at, per stage: alarms on money and delivery (webhook failure rate,
 * event dispatch age, settlement SLA, API p99, each route's 5xx rate, requests answered busy) to the stage's SNS topic, and one CloudWatch
 * dashboard. Thresholds come from lib/stage-config.ts; custom metrics are the functions' own EMF metrics
 * (shared/observability, namespace `LatamPayments/<stage>`, dimension `service`, and `route` for routes).
 * DLQ alarms live with the queues (stateful stack), Errors/Throttles alarms with each function.
 */
import { Duration } from 'aws-cdk-lib';
import type * as apigwv2 from 'aws-cdk-lib/aws-apigatewayv2';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import type * as sns from 'aws-cdk-lib/aws-sns';
import { Construct } from 'constructs';
import { pascal, type ServiceManifest } from './manifest';
import { buildDashboard, type DashboardSources } from './dashboard';
import { ServiceMetrics } from './service-metrics';
import { PAYOUT_FLOAT_PROVIDERS, PROVIDERS, type Stage, type StageConfig } from './stage-config';

export interface MonitoringProps extends Omit<DashboardSources, 'metrics' | 'alarms'> {
  readonly config: StageConfig;
  readonly manifest: ServiceManifest;
  readonly httpApi: apigwv2.HttpApi;
  readonly alarmTopic: sns.ITopic;
}

/**
 * Requests answered 503 BUSY_RETRY_SAME_KEY (a write that did not get its turn on a contended item, most often a
 * merchant's balance) in one period that page, in `periods` periods in a row: a burst the retries absorb does not,
 * a merchant whose debits keep queueing past the request budget does. The same on both stages.
 */
export const BUSY_ALARM = { perPeriod: 20, periods: 2 } as const;

/**
 * The routes with a 5xx-rate alarm of their own: every one that changes state (POST), but those that opt out and, at
 * the live stage, those that serve test mode only.
 */
export const pagingRoutes = (manifest: Pick<ServiceManifest, 'routes'>, stage: Stage) =>
  manifest.routes.filter((r) => (r.paging ?? r.method !== 'GET') && !(stage === 'live' && r.sandboxOnly));

export class Monitoring extends Construct {
  readonly alarms: cloudwatch.Alarm[] = [];
  readonly dashboard: cloudwatch.Dashboard;

  constructor(scope: Construct, id: string, props: MonitoringProps) {
    super(scope, id);
    const { config, manifest, httpApi } = props;
    const t = config.alarms;
    const m = new ServiceMetrics(config, t.period);
    const action = new SnsAction(props.alarmTopic);
    const alarm = (key: string, description: string, p: Omit<cloudwatch.AlarmProps, 'alarmName' | 'alarmDescription'>) => {
      const a = new cloudwatch.Alarm(this, pascal(key), {
        alarmName: `${config.prefix}-${key}`,
        alarmDescription: `${description} Runbook: docs/operations.md#alarms-what-each-means-and-what-to-do`,
        ...p,
      });
      a.addAlarmAction(action);
      a.addOkAction(action);
      this.alarms.push(a);
      return a;
    };
    const above = cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD;

    alarm(
      'webhook-failure-rate',
      `More than ${t.webhookFailurePercent}% of webhook delivery attempts failed (non-2xx, timeout or refused) ` +
        `in ${t.period.toMinutes()} min, with at least ${t.webhookMinAttempts} attempts.`,
      {
        metric: m.webhookFailureRate(t.webhookMinAttempts, 'failed attempts %'),
        threshold: t.webhookFailurePercent,
        comparisonOperator: above,
        evaluationPeriods: t.evaluationPeriods,
        treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
      },
    );
    // Committed events reach the webhook queue through the table's stream: its consumer's IteratorAge is how long
    // the oldest of them has waited (a failing batch is retried, so the age grows until it goes through).
    const dispatcher = props.functions.get('eventDispatchStream');
    if (!dispatcher) throw new Error('the eventDispatch stream consumer is missing from the stage');
    alarm(
      'event-dispatch-age',
      `A committed event has waited on the table's stream for more than ${t.dispatchMaxAgeSeconds} s without ` +
        'reaching the webhook queue (the eventDispatch consumer fails or is throttled).',
      {
        metric: dispatcher.metric('IteratorAge', { statistic: 'Maximum', period: t.period }),
        threshold: t.dispatchMaxAgeSeconds * 1000,
        comparisonOperator: above,
        evaluationPeriods: 1,
        treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
      },
    );
    // The jobs report every minute: silence means the job stopped (or fails), which is a page too.
    alarm(
      'settlement-sla',
      `A payout has been processing (or a refund pending) for more than the stage's settlement SLA of ` +
        `${t.settlementSlaMinutes} min, or the settlement job reported nothing for ${t.period.toMinutes()} min.`,
      {
        metric: m.metric('SettlementOldestAgeSeconds', 'Maximum'),
        threshold: t.settlementSlaMinutes * 60,
        comparisonOperator: above,
        evaluationPeriods: 1,
        treatMissingData: cloudwatch.TreatMissingData.BREACHING,
      },
    );
    // The sweep folding credits means the stream fold did not: balances stay exact (reads fold), but the
    // stream consumer is failing or behind, and its own Errors alarm may not say so (a filter, a mapping).
    alarm(
      'ledger-fold-behind',
      `The sweep job folded credits the table's stream fold had left pending for more than 120 s, in ` +
        `${t.evaluationPeriods * 3} periods of ${t.period.toMinutes()} min in a row.`,
      {
        metric: m.metric('LedgerCreditsSwept', 'Sum'),
        threshold: 0,
        comparisonOperator: above,
        evaluationPeriods: t.evaluationPeriods * 3,
        treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
      },
    );
    // Contention answered 503 (to be retried with the same key) is not a route's 5xx: its own metric, one alarm.
    alarm(
      'busy-retry-same-key',
      `More than ${BUSY_ALARM.perPeriod} requests answered 503 BUSY_RETRY_SAME_KEY in ${t.period.toMinutes()} min, ` +
        `${BUSY_ALARM.periods} periods in a row: writes (payouts and refunds, mostly) queue on one merchant's balance ` +
        'longer than a request may wait; clients retry with their key, but the merchant sees slow creates.',
      {
        metric: m.metric('BusyRetrySameKey', 'Sum'), // shared/observability/contention-metrics.ts
        threshold: BUSY_ALARM.perPeriod,
        comparisonOperator: above,
        evaluationPeriods: BUSY_ALARM.periods,
        treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
      },
    );
    alarm('api-p99', `API p99 latency above ${t.apiP99Ms} ms for ${t.latencyEvaluationPeriods} periods in a row.`, {
      metric: httpApi.metricLatency({ statistic: 'p99', period: t.period }),
      threshold: t.apiP99Ms,
      comparisonOperator: above,
      evaluationPeriods: t.latencyEvaluationPeriods,
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
    });
    const routeFunction = (id: string) => {
      const fn = props.functions.get(id);
      if (!fn) throw new Error(`route ${id} has no function in the stage`);
      return fn;
    };
    // The routes that change state (money, sessions, events) page on their own 5xx rate; a read or a page failing
    // pages through the API's 5xx alarm and shows on the dashboard's 5xx per route (issue 22: an alarm on two
    // metrics is $0.20 a month, and 21 read routes made $4.20 of the stage's fixed cost).
    for (const route of pagingRoutes(manifest, config.stage)) {
      alarm(
        `route-5xx-${route.id}`,
        `${route.method} ${route.path} (${route.id}): more than ${t.route5xxPercent}% of its requests answered 5xx ` +
          `in ${t.period.toMinutes()} min, with at least ${t.routeMinRequests} requests.`,
        {
          metric: m.routeErrorRate(route.id, routeFunction(route.id), t.routeMinRequests),
          threshold: t.route5xxPercent,
          comparisonOperator: above,
          evaluationPeriods: t.evaluationPeriods,
          treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
        },
      );
    }

    for (const provider of props.providers ?? PROVIDERS) {
      alarm(
        `provider-errors-${provider}`,
        `More than ${t.providerErrorPercent}% of calls to ${provider} got no usable answer (timeout, connection, TLS, 5xx, ` +
          `refused token) in ${t.period.toMinutes()} min, with at least ${t.providerMinCalls} calls: live payments answer 502 ` +
          'PROVIDER_UNAVAILABLE and stay processing until the reconciliation job reads them back.',
        {
          metric: m.providerErrorRate(provider, t.providerMinCalls, 'errors %'),
          threshold: t.providerErrorPercent,
          comparisonOperator: above,
          evaluationPeriods: t.evaluationPeriods,
          treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
        },
      );
    }
    // Refused callbacks, whichever provider: one alarm on the [service] count every provider's route adds to (one per
    // provider was $0.10 a month each; the dashboard's per-provider series and the logs name the provider).
    alarm(
      'provider-callbacks-rejected',
      `More than ${t.providerCallbacksRejected} provider callback items (${(props.providers ?? PROVIDERS).join(', ')}, efi) ` +
        `refused in ${t.period.toMinutes()} min (wrong token or signature, or not confirmed by reading the object back): ` +
        'someone probing, or a provider posting to an old URL or signing with a rotated key. The logs name the provider.',
      {
        metric: m.metric('ProviderCallbacksRejected', 'Sum'),
        threshold: t.providerCallbacksRejected,
        comparisonOperator: above,
        evaluationPeriods: 1,
        treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
      },
    );
    // Pages on any one event, whichever provider: one alarm each on the [service] count every provider adds to
    // (shared/observability/provider-metrics.ts); the dashboard's per-provider series and the logs name the provider.
    alarm(
      'provider-amount-mismatch',
      `A provider (${[...new Set([...PROVIDERS, ...PAYOUT_FLOAT_PROVIDERS])].join(', ')}) reported money the service did not ` +
        "settle: a payment paid, deposited or authorised with an amount different from its payment's (recorded on the " +
        "payment as provider_mismatch_minor), or a chargeback or MED return whose amount or currency is not its payment's " +
        '(kept in the notification log). The dashboard and the logs name the provider. An operator decides.',
      {
        metric: m.metric('ProviderAmountMismatch', 'Sum'),
        threshold: 0,
        comparisonOperator: above,
        evaluationPeriods: 1,
        treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
      },
    );
    // Routing needs an operator (DESIGN.md 9.2): an attempt abandoned by a failover moved money after all (returned in full
    // automatically), or a provider's approval rate fell below its usual level. One series for both; the log says which.
    alarm(
      'provider-routing-page',
      `Routing (${PROVIDERS.join(', ')}; DESIGN.md 9.2) needs an operator. Either a payment failed over after an attempt got no ` +
        'answer and a read-back found nothing, and the abandoned attempt was later found paid: the money was sent back in full ' +
        'automatically (logs: "An abandoned attempt moved money after all"; check the return settled; the payment was paid once, ' +
        "through payment.provider). Or a provider's approval rate fell below its usual level in a function container (logs: " +
        '"A provider\'s approval rate fell below its usual level", with the provider, kind, rate and usual level): compare with ' +
        '`npm run cli -- providers stats`, and take the provider out of the routing rules if it keeps declining.',
      {
        metric: m.metric('ProviderRoutingPage', 'Sum'),
        threshold: 0,
        comparisonOperator: above,
        evaluationPeriods: 1,
        treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
      },
    );
    // Our balance at a payout provider does not cover a payout: every payout through it fails until it is funded.
    alarm(
      'payout-provider-balance-low',
      `A payout provider (${PAYOUT_FLOAT_PROVIDERS.join(', ')}) refused or failed a payout because our own balance there ` +
        'does not cover it: every live payout through it fails (failed and credited back to the merchant, ' +
        'provider_balance_insufficient) until it is funded. The function log (page: true) names the provider.',
      {
        metric: m.metric('PayoutProviderBalanceLow', 'Sum'),
        threshold: 0,
        comparisonOperator: above,
        evaluationPeriods: 1,
        treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
      },
    );
    // The reconciliation job reports every minute: silence means live payments are not being read back, which pages too.
    alarm(
      'provider-read-back-overdue',
      `A live payment's read-back from its provider is overdue by more than ${t.providerReadBackOverdueMinutes} min ` +
        `(the provider unreachable, or the reconcileProviders job failing), or the job reported nothing for ${t.period.toMinutes()} min.`,
      {
        metric: m.metric('ProviderAwaitingOldestSeconds', 'Maximum'),
        threshold: t.providerReadBackOverdueMinutes * 60,
        comparisonOperator: above,
        evaluationPeriods: 1,
        treatMissingData: cloudwatch.TreatMissingData.BREACHING,
      },
    );

    // The MED read (readPixDisputes, every 10 min): infractions reach merchants only through it (no callback), and
    // their defense deadlines run meanwhile. One failed run is a blip the next run repairs; three in an hour page.
    const hour = Math.max(1, Math.ceil(60 / t.period.toMinutes()));
    alarm(
      'pix-disputes-unread',
      "The readPixDisputes job could not read the PIX PSP's infractions (MED) in 3 runs within an hour: infractions " +
        'and fraud returns are not reaching live PIX payments (no payment.disputed, no pix_fraud_return debit).',
      {
        metric: m.metric('PixDisputeReadFailed', 'Sum'),
        threshold: 0,
        comparisonOperator: above,
        evaluationPeriods: hour,
        datapointsToAlarm: Math.min(3, hour),
        treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
      },
    );

    this.dashboard = buildDashboard(this, 'Dashboard', {
      ...props,
      metrics: new ServiceMetrics(config, Duration.minutes(5)),
      alarms: this.alarms,
    });
  }
}
