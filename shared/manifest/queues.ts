import type { Access } from './access';
import type { QueueId } from './queue-ids';

/**
 * Every SQS queue, declared once. Each has a dead-letter queue with redrive.
 * CDK creates them on AWS; the local stack creates them in fauxqs.
 */
export interface QueueConsumer {
  /** Handler file, relative to the repository root; it exports `handler`. */
  readonly handler: string;
  readonly batchSize: number;
  readonly maxBatchingWindowSeconds: number;
  readonly timeoutSeconds: number;
  /** Lambda memory (MB); default DEFAULT_MEMORY_MB (lib/bundling.ts). */
  readonly memoryMb?: number;
  readonly access: Access;
}

export { QUEUE_IDS, type QueueId } from './queue-ids';

export interface QueueDefinition {
  readonly id: QueueId;
  readonly description: string;
  readonly visibilityTimeoutSeconds: number;
  readonly retentionDays: number;
  readonly maxReceiveCount: number;
  readonly dlqRetentionDays: number;
  /** The worker that drains the queue; every queue here has one (a test manifest may leave it out). */
  readonly consumer?: QueueConsumer;
}

export const QUEUES: readonly QueueDefinition[] = [
  {
    id: 'webhooks',
    description: 'Webhook deliveries: one message per event to send to a merchant.',
    visibilityTimeoutSeconds: 60,
    retentionDays: 4,
    maxReceiveCount: 5,
    dlqRetentionDays: 14,
    consumer: {
      handler: 'functions/webhooks/send-webhooks.handler.ts',
      batchSize: 10,
      maxBatchingWindowSeconds: 0,
      timeoutSeconds: 30,
      memoryMb: 512, // ten deliveries at once: HMAC signing, TLS handshakes to merchants
      access: { table: 'readwrite', queues: { webhooks: 'send+consume' }, deadLetters: ['webhooks'] },
    },
  },
  {
    id: 'payouts',
    description:
      'Sandbox settlement: payout steps (start, settle, refund) and refunds, delayed by PAYOUT_/REFUND_SETTLEMENT_DELAY_SECONDS.',
    visibilityTimeoutSeconds: 60,
    retentionDays: 4,
    maxReceiveCount: 5,
    dlqRetentionDays: 14,
    consumer: {
      handler: 'functions/payouts/settle-payouts.handler.ts',
      batchSize: 10,
      maxBatchingWindowSeconds: 0,
      timeoutSeconds: 30,
      memoryMb: 512, // ten settlement transactions at once
      access: { table: 'readwrite', queues: { payouts: 'send+consume', webhooks: 'send' }, providers: true },
    },
  },
];

export const queueName = (prefix: string, id: string) => `${prefix}-${id}`;
export const dlqName = (prefix: string, id: string) => `${prefix}-${id}-dlq`;
/** Environment variable through which a function receives a queue's URL. */
export const queueUrlEnv = (id: string) => `QUEUE_URL_${id.toUpperCase().replace(/[^A-Z0-9]/g, '_')}`;

export function queueDefinitions(): readonly QueueDefinition[] {
  return QUEUES;
}
