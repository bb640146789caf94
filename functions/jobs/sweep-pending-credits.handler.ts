/** Scheduled: folds credits still pending 120 s after their commit (a stream record the fold worker never handled). */
import { sweepPendingCredits } from '../../shared/application/balance';
import { ledgerFoldDeps } from '../../shared/wiring';
import { scheduledHandler } from '../../shared/workers/scheduled-handler';

export const handler = scheduledHandler({
  run: (now) => sweepPendingCredits(ledgerFoldDeps(), now),
  metrics: (r) => ({ LedgerCreditsSwept: r.folded }),
  log: (r) => (r.folded > 0 ? { level: 'warn', message: 'Folded credits the stream worker had left pending' } : null),
});
