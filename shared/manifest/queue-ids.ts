/** The ids of the SQS queues (queues.ts declares each): below both queues.ts and access.ts, so neither imports the other back. */
export const QUEUE_IDS = ['webhooks', 'payouts'] as const;
export type QueueId = (typeof QUEUE_IDS)[number];
