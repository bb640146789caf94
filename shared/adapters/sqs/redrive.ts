/**
 * Moves webhook messages from the dead-letter queue back to the webhooks queue
 * as fresh, manual deliveries (ops: `npm run cli -- webhooks redrive`).
 */
import { DeleteMessageBatchCommand, ReceiveMessageCommand, SendMessageBatchCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { DeliveryMessage } from '../../application/webhooks';

export async function redriveDeadLetters(
  sqs: SQSClient,
  from: string,
  to: string,
  max = 1000,
): Promise<{ moved: number; skipped: number }> {
  let moved = 0;
  let skipped = 0;
  while (moved + skipped < max) {
    const r = await sqs.send(
      new ReceiveMessageCommand({ QueueUrl: from, MaxNumberOfMessages: 10, WaitTimeSeconds: 1, VisibilityTimeout: 60 }),
    );
    const messages = r.Messages ?? [];
    if (messages.length === 0) break;
    const entries = messages.flatMap((m, i) => {
      try {
        const body = JSON.parse(m.Body ?? '') as Partial<DeliveryMessage>;
        if (typeof body.event_id !== 'string') throw new Error('no event_id');
        const next: DeliveryMessage = { event_id: body.event_id, attempt: 0, manual: true };
        return [{ Id: String(i), MessageBody: JSON.stringify(next) }];
      } catch {
        skipped++;
        return [];
      }
    });
    if (entries.length > 0) {
      const sent = await sqs.send(new SendMessageBatchCommand({ QueueUrl: to, Entries: entries }));
      if (sent.Failed?.length) throw new Error(`SQS refused ${sent.Failed.length} redriven message(s)`);
      moved += entries.length;
    }
    // Unparseable messages stay in the DLQ for a person to read; the rest leave it.
    const done = messages.filter((_, i) => entries.some((e) => e.Id === String(i)));
    if (done.length > 0) {
      await sqs.send(
        new DeleteMessageBatchCommand({
          QueueUrl: from,
          Entries: done.map((m, i) => ({ Id: String(i), ReceiptHandle: m.ReceiptHandle ?? '' })),
        }),
      );
    }
  }
  return { moved, skipped };
}
