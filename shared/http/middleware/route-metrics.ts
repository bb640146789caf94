/**
 * EMF metrics per route: a `5xx` count with the route dimension, written only for a 5xx answer (a 503
 * BUSY_RETRY_SAME_KEY is counted by its own metric instead: shared/observability/contention-metrics.ts). A custom metric
 * is billed per series per month that receives data ($0.30 each), so a route that answered no 5xx in a month
 * costs nothing; its requests and latency are the route's own function's Invocations and Duration (one
 * function per route, AWS/Lambda metrics, free), which the route alarms and the dashboard read (issue 22).
 * 4xx per route is not a metric either: the HTTP API's own 4xx counts them for the whole API, and a
 * merchant's refused requests are in the logs with their route and error code.
 */
import type middy from '@middy/core';
import { MetricUnit } from '@aws-lambda-powertools/metrics';
import { metrics } from '../../observability';
import { recordBusy } from '../../observability/contention-metrics';
import { toAppError } from '../responses';
import type { HttpEvent, HttpResult, PipelineContext } from '../types';

export function routeMetrics(): middy.MiddlewareObj<HttpEvent, HttpResult, Error, PipelineContext> {
  const record = (request: middy.Request<HttpEvent, HttpResult, Error, PipelineContext>) => {
    const status = request.response?.statusCode ?? 500;
    if (status < 500) return;
    // Contention is answered 503 to be retried with the same key: its own metric and alarm, not the route's 5xx.
    if (request.error && toAppError(request.error).code === 'BUSY_RETRY_SAME_KEY') return recordBusy();
    metrics.addDimension('route', request.context.route.id);
    metrics.addMetric('5xx', MetricUnit.Count, 1);
  };
  return { after: record, onError: record };
}
