/** POST /api/v1/disputes/{dispute_id}/accept: the merchant gives up the disputed amount; the case closes, accepted. */
import { acceptDispute } from '../../shared/application/disputes';
import type { DisputeCase } from '../../shared/domain/disputes/dispute-case';
import { disputePath } from '../../shared/domain/disputes/dispute.schemas';
import { httpHandler } from '../../shared/http/handler';
import { idempotent } from '../../shared/http/idempotent';
import { disputeView } from '../../shared/http/views/dispute.view';
import { disputeDeps } from '../../shared/wiring';

export const handler = httpHandler({
  route: 'acceptDispute',
  idempotency: idempotent,
  path: disputePath,
  handler: async ({ path, principal, answering }) => {
    const view = async (d: DisputeCase) => ({ body: disputeView(d) });
    return view(await acceptDispute(disputeDeps(), principal, path.dispute_id, answering(view)));
  },
});
