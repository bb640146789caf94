/**
 * The functions' EMF metrics (shared/observability, namespace `LatamPayments/<stage>`, dimension `service`, and
 * `route` for routes) as CloudWatch metrics and rates: what the alarms (lib/monitoring.ts) and the dashboard
 * (lib/dashboard.ts) are built from. Its own module so that neither of those two imports the other (issue 40).
 */
import type { Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import { SERVICE_NAME, type StageConfig } from './stage-config';

/** The functions' EMF metrics of one stage, as CloudWatch metrics. */
export class ServiceMetrics {
  constructor(
    private readonly config: StageConfig,
    private readonly period: Duration,
  ) {}

  /** A metric the functions publish with the `service` dimension (workers, jobs), or `service` + `route`. */
  metric(name: string, statistic: string, routeId?: string, label?: string): cloudwatch.Metric {
    return new cloudwatch.Metric({
      namespace: this.config.metricsNamespace,
      metricName: name,
      dimensionsMap: { service: SERVICE_NAME, ...(routeId ? { route: routeId } : {}) },
      statistic,
      period: this.period,
      // A label makes CDK render an alarm's metric as a one-metric Metrics array; alarms read plain ones.
      label: label ?? routeId,
    });
  }

  /** A provider metric (dimension set [service, provider]: shared/observability/provider-metrics.ts). */
  providerMetric(name: string, statistic: string, provider: string, label?: string): cloudwatch.Metric {
    return new cloudwatch.Metric({
      namespace: this.config.metricsNamespace,
      metricName: name,
      dimensionsMap: { service: SERVICE_NAME, provider },
      statistic,
      period: this.period,
      label,
    });
  }

  /** Calls to a provider that got no usable answer, percent of its calls, once there are `min` calls. */
  /** `idSuffix` keeps several providers' rates apart on one graph (their part/whole ids must differ there). */
  providerErrorRate(provider: string, min: number, label: string, idSuffix = ''): cloudwatch.MathExpression {
    return this.rate(
      this.providerMetric('ProviderCallErrors', 'Sum', provider),
      this.providerMetric('ProviderCalls', 'Sum', provider),
      min,
      label,
      idSuffix,
    );
  }

  /**
   * A route's 5xx answers, percent of its requests (its function's invocations: one function per route), once
   * it served `min` in a period. The 5xx metric is written only when a route answers one, so a period without
   * any has no datapoint: FILL makes it 0.
   */
  routeErrorRate(routeId: string, fn: lambda.IFunction, min: number): cloudwatch.MathExpression {
    return new cloudwatch.MathExpression({
      expression: `IF(requests >= ${min}, 100 * FILL(errors, 0) / requests, 0)`,
      usingMetrics: {
        errors: this.metric('5xx', 'Sum', routeId),
        requests: fn.metricInvocations({ statistic: 'Sum', period: this.period }),
      },
      period: this.period,
      label: '5xx %',
    });
  }

  /** Failed webhook delivery attempts, percent of attempts, once there are `min` attempts (the alarm and the dashboard). */
  webhookFailureRate(min: number, label: string): cloudwatch.MathExpression {
    return this.rate(this.metric('WebhookAttemptsFailed', 'Sum'), this.metric('WebhookAttempts', 'Sum'), min, label);
  }

  /** Percent of `part` in `whole` once `whole` reaches `min` in a period (0 below it: a few requests are no rate). */
  rate(part: cloudwatch.IMetric, whole: cloudwatch.IMetric, min: number, label: string, idSuffix = ''): cloudwatch.MathExpression {
    const [p, w] = [`part${idSuffix}`, `whole${idSuffix}`];
    return new cloudwatch.MathExpression({
      expression: `IF(${w} >= ${min}, 100 * ${p} / ${w}, 0)`,
      usingMetrics: { [p]: part, [w]: whole },
      period: this.period,
      label,
    });
  }
}
