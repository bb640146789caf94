/** GET /api/v1/payout/{payout_id}: the payout record, beneficiary masked. */
import { getPayout } from '../../shared/application/payouts';
import { payoutPath } from '../../shared/domain/payouts/payout.schemas';
import { httpHandler } from '../../shared/http/handler';
import { payoutView } from '../../shared/http/views/payout.view';
import { payoutDeps } from '../../shared/wiring';

export const handler = httpHandler({
  route: 'getPayout',
  path: payoutPath,
  handler: async ({ path, principal }) => ({ body: payoutView(await getPayout(payoutDeps(), principal, path.payout_id)) }),
});
