/** Scheduled: sends again the settlement step of payouts processing and refunds pending past the grace period. */
import { resumeSettlements } from '../../shared/application/payouts';
import { settlementDeps, settlementGraceSeconds } from '../../shared/wiring';
import { scheduledHandler } from '../../shared/workers/scheduled-handler';

export const handler = scheduledHandler({
  run: (now) => resumeSettlements(settlementDeps(), now, settlementGraceSeconds()),
  metrics: (r) => ({ SettlementsOverdue: r.due, SettlementsResumed: r.resumed, SettlementOldestAgeSeconds: r.oldestAgeSeconds }),
  log: (r) => (r.resumed > 0 ? { level: 'warn', message: 'Sent again the settlement step of money in flight' } : null),
});
