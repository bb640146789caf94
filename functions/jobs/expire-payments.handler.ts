/** Scheduled: expires due sessions and payments found through the work index (no Scan). */
import middy from '@middy/core';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import { MetricUnit } from '@aws-lambda-powertools/metrics';
import type { ScheduledEvent } from 'aws-lambda';
import { expireDue } from '../../shared/application/payments';
import { paymentDeps } from '../../shared/wiring';
import { logger, metrics } from '../../shared/observability';

/** The schedule's own time is "now", so a late or replayed run expires exactly what was due then. */
export const handler = middy(async (event: ScheduledEvent) => {
  const now = event.time ? new Date(event.time) : new Date();
  const result = await expireDue(paymentDeps({ now: () => now }), now);
  metrics.addMetric('Expired', MetricUnit.Count, result.expired);
  if (result.expired > 0) logger.info('Expired due sessions and payments', result);
  return result;
})
  .use(injectLambdaContext(logger))
  .use(logMetrics(metrics));
