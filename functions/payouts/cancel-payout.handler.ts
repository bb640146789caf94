/** POST /api/v1/payout/{payout_id}/cancel: pending -> cancelled, amount credited back. */
import { cancelPayout } from '../../shared/application/payouts';
import { payoutPath } from '../../shared/domain/payouts/payout.schemas';
import type { Payout } from '../../shared/domain/payouts/payout';
import { httpHandler } from '../../shared/http/handler';
import { idempotent } from '../../shared/http/idempotent';
import { cancelledPayoutView } from '../../shared/http/views/payout.view';
import { payoutDeps } from '../../shared/wiring';

export const handler = httpHandler({
  route: 'cancelPayout',
  idempotency: idempotent,
  path: payoutPath,
  handler: async ({ path, principal, answering }) => {
    const view = (p: Payout) => ({ body: cancelledPayoutView(p) });
    return view(await cancelPayout(payoutDeps(), principal, path.payout_id, answering(view)));
  },
});
