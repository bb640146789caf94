/** The webhooks queue and its dead-letter queue, through SQS. */
import { SendMessageBatchCommand, SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { DeliveryQueue } from '../../application/webhooks';

export function deliveryQueue(sqs: SQSClient, queueUrl: () => string, deadLetterUrl: () => string): DeliveryQueue {
  return {
    async send(messages, delaySeconds = 0) {
      for (let i = 0; i < messages.length; i += 10) {
        const batch = messages.slice(i, i + 10);
        const r = await sqs.send(
          new SendMessageBatchCommand({
            QueueUrl: queueUrl(),
            Entries: batch.map((m, j) => ({ Id: String(j), MessageBody: JSON.stringify(m), DelaySeconds: delaySeconds })),
          }),
        );
        if (r.Failed?.length) throw new Error(`SQS refused ${r.Failed.length} webhook message(s): ${r.Failed[0]?.Message ?? ''}`);
      }
    },
    async sendToDeadLetter(message) {
      await sqs.send(new SendMessageCommand({ QueueUrl: deadLetterUrl(), MessageBody: JSON.stringify(message) }));
    },
  };
}
