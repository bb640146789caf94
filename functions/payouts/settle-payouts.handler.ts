/** The sandbox payout settlement worker: one step (start, settle, refund) per message, partial batch failures. */
import middy from '@middy/core';
import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import { MetricUnit } from '@aws-lambda-powertools/metrics';
import type { Context, SQSEvent, SQSRecord } from 'aws-lambda';
import { runSettlementStep } from '../../shared/application/payouts';
import type { SettlementMessage } from '../../shared/adapters/sqs/payout-rail';
import { payoutDeps } from '../../shared/wiring';
import { logger, metrics } from '../../shared/observability';

const processor = new BatchProcessor(EventType.SQS);

const recordHandler = async (record: SQSRecord) => {
  const message = JSON.parse(record.body) as SettlementMessage;
  await runSettlementStep(payoutDeps(), message.payout_id, message.step);
};

export const handler = middy(async (event: SQSEvent, context: Context) => {
  const response = await processPartialResponse(event, recordHandler, processor, { context });
  metrics.addMetric('PayoutSettlementSteps', MetricUnit.Count, event.Records.length);
  return response;
})
  .use(injectLambdaContext(logger))
  .use(logMetrics(metrics));
