/** Scheduled: expires due sessions and payments found through the work index (no Scan). */
import { expireDue } from '../../shared/application/payments';
import { paymentDeps } from '../../shared/wiring';
import { scheduledHandler } from '../../shared/workers/scheduled-handler';

export const handler = scheduledHandler({
  run: (now) => expireDue(paymentDeps({ now: () => now }), now),
  metrics: (r) => ({ Expired: r.expired }),
  log: (r) => (r.expired > 0 ? { level: 'info', message: 'Expired due sessions and payments' } : null),
});
