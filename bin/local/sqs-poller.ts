/**
 * Feeds SQS messages to queue consumers with Lambda's event-source semantics:
 * batches of up to batchSize, messages the handler reports in batchItemFailures
 * (or all, if it throws) stay on the queue and come back after the visibility
 * timeout; the rest are deleted. Redrive to the DLQ is the queue's own.
 */
import { DeleteMessageBatchCommand, GetQueueAttributesCommand, ReceiveMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { SQSBatchResponse } from 'aws-lambda';
import type { QueueConsumer } from '../../shared/manifest/queues';
import { lambdaContext, sqsEvent } from './lambda-events';
import { loadHandler } from './handler-loader';

export interface PollerOptions {
  readonly sqs: SQSClient;
  readonly queueId: string;
  readonly queueUrl: string;
  readonly consumer: QueueConsumer;
  readonly onError?: (e: unknown, where?: string) => void;
}

export function startPoller(opts: PollerOptions): { stop(): Promise<void> } {
  let running = true;
  const loop = (async () => {
    const attrs = await opts.sqs.send(new GetQueueAttributesCommand({ QueueUrl: opts.queueUrl, AttributeNames: ['QueueArn'] }));
    const arn = attrs.Attributes?.QueueArn ?? opts.queueUrl;
    const handler = await loadHandler(opts.consumer.handler);
    while (running) {
      try {
        const res = await opts.sqs.send(
          new ReceiveMessageCommand({
            QueueUrl: opts.queueUrl,
            MaxNumberOfMessages: Math.min(opts.consumer.batchSize, 10),
            WaitTimeSeconds: 1,
            MessageSystemAttributeNames: ['All'],
            MessageAttributeNames: ['All'],
          }),
        );
        const messages = res.Messages ?? [];
        if (messages.length === 0 || !running) continue;
        let failed = new Set<string>(messages.map((m) => m.MessageId ?? ''));
        try {
          const result = (await handler(
            sqsEvent(arn, messages),
            lambdaContext(`${opts.queueId}-consumer`, opts.consumer.timeoutSeconds),
          )) as SQSBatchResponse | undefined;
          failed = new Set((result?.batchItemFailures ?? []).map((f) => f.itemIdentifier));
        } catch (e) {
          opts.onError?.(e, `${opts.queueId}-consumer`);
        }
        const done = messages.filter((m) => !failed.has(m.MessageId ?? ''));
        if (done.length > 0) {
          await opts.sqs.send(
            new DeleteMessageBatchCommand({
              QueueUrl: opts.queueUrl,
              Entries: done.map((m, i) => ({ Id: String(i), ReceiptHandle: m.ReceiptHandle ?? '' })),
            }),
          );
        }
      } catch (e) {
        if (running) {
          opts.onError?.(e, `${opts.queueId} poller`);
          await new Promise((r) => setTimeout(r, 500));
        }
      }
    }
  })();
  return {
    async stop() {
      running = false;
      await loop.catch(() => undefined);
    },
  };
}
