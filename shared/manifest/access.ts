import type { QueueId } from './queues';

/** What a function may touch; CDK turns this into least-privilege IAM grants. */
export interface Access {
  readonly table: 'none' | 'read' | 'readwrite';
  readonly queues?: Partial<Record<QueueId, 'send' | 'consume' | 'send+consume'>>;
  /** Queues whose dead-letter queue the function sends to itself (after its last retry). */
  readonly deadLetters?: readonly QueueId[];
}
