import type { Access } from './access';

/** Scheduled jobs: EventBridge schedules on AWS, timers on the local stack. */
export interface JobDefinition {
  readonly id: string;
  readonly description: string;
  /** Handler file, relative to the repository root; it exports `handler`. */
  readonly handler: string;
  readonly everyMinutes: number;
  readonly timeoutSeconds: number;
  /** Lambda memory (MB); default DEFAULT_MEMORY_MB (lib/bundling.ts). */
  readonly memoryMb?: number;
  readonly access: Access;
}

export const JOBS: readonly JobDefinition[] = [
  {
    id: 'expirePayments',
    description: 'Expires checkout sessions and payments past their expires_at (work index GSI2, no Scan).',
    handler: 'functions/jobs/expire-payments.handler.ts',
    everyMinutes: 1,
    timeoutSeconds: 60,
    access: { table: 'readwrite', queues: { webhooks: 'send' } },
  },
  {
    id: 'sweepPendingCredits',
    description: 'Folds credits still pending 120 s after their commit into their balances (FOLD# partitions, no Scan).',
    handler: 'functions/jobs/sweep-pending-credits.handler.ts',
    everyMinutes: 1,
    timeoutSeconds: 60,
    access: { table: 'readwrite' },
  },
  {
    id: 'resumeSettlements',
    description: 'Sends again the settlement step of payouts processing and refunds pending past the grace (GSI2 SETTLE partitions).',
    handler: 'functions/jobs/resume-settlements.handler.ts',
    everyMinutes: 1,
    timeoutSeconds: 60,
    access: { table: 'read', queues: { payouts: 'send' } },
  },
  {
    id: 'reconcileProviders',
    description:
      'Reads back from its provider every live payment still waiting on it (missed callbacks, timeouts, expiry), in bounded batches.',
    handler: 'functions/jobs/reconcile-providers.handler.ts',
    everyMinutes: 1,
    timeoutSeconds: 120,
    access: { table: 'readwrite', queues: { webhooks: 'send', payouts: 'send' }, providers: true },
  },
  {
    id: 'readPixDisputes',
    description:
      "Reads the PIX PSP's infractions (MED) of the last PIX_DISPUTE_WINDOW_DAYS and puts each on its live PIX payment " +
      'as a dispute (Efí sends no infraction callback); warns of every dispute unanswered 48 hours before its deadline.',
    handler: 'functions/jobs/read-pix-disputes.handler.ts',
    everyMinutes: 10,
    timeoutSeconds: 120,
    access: { table: 'readwrite', queues: { webhooks: 'send' }, providers: true },
  },
];
