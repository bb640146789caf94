/** Scheduled: enqueues events still in the outbox 30 s after their commit (a process died between commit and enqueue). */
import middy from '@middy/core';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import { MetricUnit } from '@aws-lambda-powertools/metrics';
import type { ScheduledEvent } from 'aws-lambda';
import { sweepOutbox } from '../../shared/application/webhooks';
import { webhookDeps } from '../../shared/wiring';
import { logger, metrics } from '../../shared/observability';

export const handler = middy(async (event: ScheduledEvent) => {
  const now = event.time ? new Date(event.time) : new Date();
  const result = await sweepOutbox(webhookDeps({ now: () => now }));
  metrics.addMetric('OutboxRequeued', MetricUnit.Count, result.requeued);
  if (result.requeued > 0) logger.warn('Re-enqueued events left in the outbox', result);
  return result;
})
  .use(injectLambdaContext(logger))
  .use(logMetrics(metrics));
