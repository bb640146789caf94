/**
 * EMF metrics per route: count, latency, 5xx (flushed by Powertools logMetrics). Each is a custom metric per
 * route ($0.30 a month each); 4xx per route is not one (issue 22): the HTTP API's own 4xx counts them for the
 * whole API, and a merchant's refused requests are in the logs with their route and error code.
 */
import type middy from '@middy/core';
import { MetricUnit } from '@aws-lambda-powertools/metrics';
import { metrics } from '../../observability';
import type { HttpEvent, HttpResult, PipelineContext } from '../types';

export function routeMetrics(): middy.MiddlewareObj<HttpEvent, HttpResult, Error, PipelineContext> {
  const record = (request: middy.Request<HttpEvent, HttpResult, Error, PipelineContext>) => {
    const status = request.response?.statusCode ?? 500;
    metrics.addDimension('route', request.context.route.id);
    metrics.addMetric('Requests', MetricUnit.Count, 1);
    metrics.addMetric('Latency', MetricUnit.Milliseconds, performance.now() - request.context.startedAt);
    metrics.addMetric('5xx', MetricUnit.Count, status >= 500 ? 1 : 0);
  };
  return { after: record, onError: record };
}
