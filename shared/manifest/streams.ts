import type { Access } from './access';

/**
 * Consumers of the table's stream (NEW_IMAGE): a Lambda event source mapping on AWS, a poller of DynamoDB
 * Local's stream on the local stack (bin/local/stream-poller.ts). Records of one partition key arrive in order,
 * one batch at a time per shard.
 */
export interface StreamConsumer {
  readonly id: string;
  readonly description: string;
  /** Handler file, relative to the repository root; it exports `handler`. */
  readonly handler: string;
  readonly batchSize: number;
  readonly maxBatchingWindowSeconds: number;
  /**
   * Tries of a failing batch before the mapping skips it (what it skipped is still in the table for a sweep);
   * null: until its records leave the stream (24 hours), for a consumer that nothing else can stand in for.
   */
  readonly retryAttempts: number | null;
  /** The handler reports the records that failed (Powertools batch): the mapping retries from the first of them. */
  readonly reportBatchItemFailures?: boolean;
  readonly timeoutSeconds: number;
  readonly memoryMb?: number;
  readonly access: Access;
  /** The event filter of the mapping (Lambda's filter-criteria pattern over the stream record). */
  readonly filter: Record<string, unknown>;
}

export const STREAM_CONSUMERS: readonly StreamConsumer[] = [
  {
    id: 'eventDispatch',
    description: 'Puts every event a transaction committed on the webhooks queue (the commit is the publish: no outbox).',
    handler: 'functions/webhooks/dispatch-events.handler.ts',
    batchSize: 100,
    // Webhooks go out as soon as the stream has them.
    maxBatchingWindowSeconds: 0,
    // Nothing else dispatches a committed event, so a failing batch is retried until its records age out of the
    // stream (24 h; the dispatch-age alarm pages long before), from its first failed record on.
    retryAttempts: null,
    reportBatchItemFailures: true,
    timeoutSeconds: 30,
    access: { table: 'none', queues: { webhooks: 'send' } },
    // Inserts of events (entities/event.entity.ts) only.
    filter: { eventName: ['INSERT'], dynamodb: { NewImage: { entity: { S: ['event'] } } } },
  },
  {
    id: 'ledgerFold',
    description:
      'Folds pending credits (payments, refund and payout reversals) into their balances, one transaction per balance per batch.',
    handler: 'functions/payouts/fold-ledger.handler.ts',
    batchSize: 500,
    // Balance reads and refused debits fold a merchant's pending credits themselves, so the stream fold can
    // wait: at 1M payments a month (0.4/s) a 30 s window folds about 12 credits per invocation and balance write.
    maxBatchingWindowSeconds: 30,
    retryAttempts: 5,
    timeoutSeconds: 60,
    access: { table: 'readwrite' },
    // Inserts of pending credits (entities/balance.entity.ts) only.
    filter: { eventName: ['INSERT'], dynamodb: { NewImage: { entity: { S: ['pending_credit'] } } } },
  },
];
