/**
 * Requests answered 503 BUSY_RETRY_SAME_KEY (issue 34): a write that did not get its turn on a contended item
 * (a merchant's balance, most often) within the request's budget. One EMF line of its own with the dimension set
 * [service] only, published at once, so the one alarm of lib/monitoring.ts (`busy-retry-same-key`) reads every
 * route's together; the route and merchant are on the request's log line (error-mapper.ts).
 */
import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import { SERVICE_NAME } from './index';

export const BUSY_METRIC = 'BusyRetrySameKey';

let busy: Metrics | undefined;

export function recordBusy(): void {
  busy ??= new Metrics({
    namespace: process.env.POWERTOOLS_METRICS_NAMESPACE ?? 'LatamPayments',
    serviceName: process.env.POWERTOOLS_SERVICE_NAME ?? SERVICE_NAME,
  });
  busy.addMetric(BUSY_METRIC, MetricUnit.Count, 1);
  busy.publishStoredMetrics();
}
