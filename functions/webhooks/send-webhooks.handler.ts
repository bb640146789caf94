/**
 * The webhook sender: drains the webhooks queue with Powertools batch processing
 * (partial batch failures), one delivery attempt per message.
 */
import middy from '@middy/core';
import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import { captureLambdaHandler } from '@aws-lambda-powertools/tracer/middleware';
import { MetricUnit } from '@aws-lambda-powertools/metrics';
import type { Context, SQSEvent, SQSRecord } from 'aws-lambda';
import { deliverMessage } from '../../shared/application/webhooks';
import type { DeliveryMessage } from '../../shared/application/webhook-ports';
import { webhookDeps } from '../../shared/wiring';
import { logger, metrics, tracer } from '../../shared/observability';

const processor = new BatchProcessor(EventType.SQS);

const recordHandler = async (record: SQSRecord) => {
  const message = JSON.parse(record.body) as DeliveryMessage;
  await deliverMessage(webhookDeps(), message);
};

export const handler = middy(async (event: SQSEvent, context: Context) => {
  const response = await processPartialResponse(event, recordHandler, processor, { context });
  metrics.addMetric('WebhookMessages', MetricUnit.Count, event.Records.length);
  metrics.addMetric('WebhookMessageFailures', MetricUnit.Count, response.batchItemFailures.length);
  return response;
})
  .use(captureLambdaHandler(tracer, { captureResponse: false }))
  .use(injectLambdaContext(logger))
  .use(logMetrics(metrics));
