/**
 * The local event-source poller and job timers: Lambda's SQS batch semantics
 * (partial batch failures, redelivery, redrive to the DLQ) on fauxqs.
 */
import {
  CreateQueueCommand,
  GetQueueAttributesCommand,
  ReceiveMessageCommand,
  SendMessageBatchCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import { startPoller } from '../../bin/local/sqs-poller';
import { startScheduler } from '../../bin/local/scheduler';
import { engines } from '../support/engines';
import { deliveries } from '../support/fixtures/recording-consumer';
import { runs } from '../support/fixtures/counting-job';

const sqs = () => new SQSClient({ endpoint: engines().sqs, region: 'us-east-1', credentials: { accessKeyId: 'l', secretAccessKey: 'l' } });

async function queueWithDlq(client: SQSClient, name: string) {
  const dlq = await client.send(new CreateQueueCommand({ QueueName: `${name}-dlq` }));
  const arn = (await client.send(new GetQueueAttributesCommand({ QueueUrl: dlq.QueueUrl, AttributeNames: ['QueueArn'] }))).Attributes
    ?.QueueArn;
  const main = await client.send(
    new CreateQueueCommand({
      QueueName: name,
      Attributes: { VisibilityTimeout: '1', RedrivePolicy: JSON.stringify({ deadLetterTargetArn: arn, maxReceiveCount: 2 }) },
    }),
  );
  return { url: main.QueueUrl!, dlqUrl: dlq.QueueUrl! };
}

const waitFor = async (cond: () => boolean, ms = 10_000) => {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 50));
  }
};

describe('SQS poller', () => {
  it('deletes processed messages, redelivers reported failures and redrives them to the DLQ', async () => {
    const client = sqs();
    const { url, dlqUrl } = await queueWithDlq(client, `poller-${Date.now()}`);
    await client.send(
      new SendMessageBatchCommand({
        QueueUrl: url,
        Entries: [
          { Id: 'a', MessageBody: JSON.stringify({ id: 'ok-1' }) },
          { Id: 'b', MessageBody: JSON.stringify({ id: 'bad', fail: true }) },
          { Id: 'c', MessageBody: JSON.stringify({ id: 'ok-2' }) },
        ],
      }),
    );
    const poller = startPoller({
      sqs: client,
      queueId: 'test',
      queueUrl: url,
      consumer: {
        handler: 'test/support/fixtures/recording-consumer.ts',
        batchSize: 10,
        maxBatchingWindowSeconds: 0,
        timeoutSeconds: 5,
        access: { table: 'none' },
      },
    });
    try {
      await waitFor(() => deliveries.filter((d) => d.id === 'bad').length >= 2);
      // The poisoned message reaches the DLQ after maxReceiveCount (2) receives.
      let dlqBody: string | undefined;
      for (let i = 0; i < 20 && !dlqBody; i++) {
        const r = await client.send(new ReceiveMessageCommand({ QueueUrl: dlqUrl, WaitTimeSeconds: 1 }));
        dlqBody = r.Messages?.[0]?.Body;
      }
      expect(JSON.parse(dlqBody ?? '{}')).toEqual({ id: 'bad', fail: true });
    } finally {
      await poller.stop();
    }
    expect(deliveries.filter((d) => d.id === 'ok-1')).toHaveLength(1);
    expect(deliveries.filter((d) => d.id === 'ok-2')).toHaveLength(1);
    expect(deliveries.filter((d) => d.id === 'bad').map((d) => d.receiveCount)).toEqual([1, 2]);
    const left = await client.send(
      new GetQueueAttributesCommand({
        QueueUrl: url,
        AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'],
      }),
    );
    expect(left.Attributes).toMatchObject({ ApproximateNumberOfMessages: '0', ApproximateNumberOfMessagesNotVisible: '0' });
  }, 30_000);
});

describe('job scheduler', () => {
  it('invokes each job on its timer with an EventBridge scheduled event', async () => {
    const s = startScheduler(
      [
        {
          id: 'count',
          description: 'test',
          handler: 'test/support/fixtures/counting-job.ts',
          everyMinutes: 1,
          timeoutSeconds: 5,
          access: { table: 'none' },
        },
      ],
      { intervalMs: () => 50 },
    );
    await waitFor(() => runs.length >= 3);
    await s.stop();
    expect(runs.every((r) => r === 'Scheduled Event')).toBe(true);
    const after = runs.length;
    await new Promise((r) => setTimeout(r, 150));
    expect(runs.length).toBe(after);
  });
});
