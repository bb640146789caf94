/**
 * The table's stream: every event a transaction committed goes on the webhooks queue (attempt 0). Powertools
 * batch processing reports the records whose send failed (and every one after the first failure), so the
 * event source mapping retries from the first of them: none is skipped, none sent twice by the retry. A record
 * that is not an event insert is logged and passed.
 */
import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import { MetricUnit } from '@aws-lambda-powertools/metrics';
import type { DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import { insertedEventId } from '../../shared/adapters/dynamodb/event-stream';
import { dispatchEvents } from '../../shared/application/webhooks';
import { logger, metrics } from '../../shared/observability';
import { webhookDeps } from '../../shared/wiring';
import { instrumented } from '../../shared/workers/instrument';

const processor = new BatchProcessor(EventType.DynamoDBStreams);

export const handler = instrumented(async (event: DynamoDBStreamEvent, context) => {
  let dispatched = 0;
  let failed = false;
  const record = async (r: DynamoDBRecord) => {
    // After a failure the rest wait for the retry, which starts from the failed record: none goes twice.
    if (failed) throw new Error('an earlier record of this batch was not dispatched');
    const eventId = insertedEventId(r);
    if (!eventId) {
      logger.error('Stream record is not an event insert (passed)', { sequence: r.dynamodb?.SequenceNumber });
      return;
    }
    try {
      await dispatchEvents(webhookDeps(), [{ event_id: eventId }]);
    } catch (e) {
      failed = true;
      throw e;
    }
    dispatched++;
  };
  // In order: the mapping retries from the first failed record, so nothing after it must have gone first.
  const response = await processPartialResponse(event, record, processor, {
    context,
    processInParallel: false,
    throwOnFullBatchFailure: false,
  });
  metrics.addMetric('EventsDispatched', MetricUnit.Count, dispatched);
  if (response.batchItemFailures.length > 0) metrics.addMetric('EventDispatchFailed', MetricUnit.Count, response.batchItemFailures.length);
  return response;
});
