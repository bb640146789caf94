import type { Access } from './access';

/** Scheduled jobs: EventBridge schedules on AWS, timers on the local stack. */
export interface JobDefinition {
  readonly id: string;
  readonly description: string;
  /** Handler file, relative to the repository root; it exports `handler`. */
  readonly handler: string;
  readonly everyMinutes: number;
  readonly timeoutSeconds: number;
  readonly access: Access;
}

/** Later issues add the outbox sweeper and expiry jobs here, with their handlers. */
export const JOBS: readonly JobDefinition[] = [];
