/** Scheduled: enqueues events still in the outbox 30 s after their commit (a process died between commit and enqueue). */
import { sweepOutbox } from '../../shared/application/webhooks';
import { webhookDeps } from '../../shared/wiring';
import { scheduledHandler } from '../../shared/workers/scheduled-handler';

export const handler = scheduledHandler({
  run: (now) => sweepOutbox(webhookDeps({ now: () => now })),
  metrics: (r) => ({ OutboxRequeued: r.requeued, OutboxOldestAgeSeconds: r.oldestAgeSeconds }),
  log: (r) => (r.requeued > 0 ? { level: 'warn', message: 'Re-enqueued events left in the outbox' } : null),
});
