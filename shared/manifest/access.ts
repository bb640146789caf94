import type { QueueId } from './queue-ids';

/** What a function may touch; CDK turns this into least-privilege IAM grants. */
export interface Access {
  readonly table: 'none' | 'read' | 'readwrite';
  readonly queues?: Partial<Record<QueueId, 'send' | 'consume' | 'send+consume'>>;
  /** Queues whose dead-letter queue the function sends to itself (after its last retry). */
  readonly deadLetters?: readonly QueueId[];
  /**
   * The function calls live payment providers (DESIGN.md section 8): it reads the stage's provider
   * configuration secret (latam-payments/<stage>/providers) and decrypts it with that secret's key.
   */
  readonly providers?: boolean;
}
