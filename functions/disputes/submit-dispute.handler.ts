/** POST /api/v1/disputes/{dispute_id}/submit: the staged evidence sent to the provider once; under_review. */
import { submitDispute } from '../../shared/application/disputes';
import type { DisputeCase } from '../../shared/domain/disputes/dispute-case';
import { disputePath } from '../../shared/domain/disputes/dispute.schemas';
import { httpHandler } from '../../shared/http/handler';
import { idempotent } from '../../shared/http/idempotent';
import { disputeView } from '../../shared/http/views/dispute.view';
import { disputeDeps } from '../../shared/wiring';

export const handler = httpHandler({
  route: 'submitDispute',
  idempotency: idempotent,
  path: disputePath,
  handler: async ({ path, principal, answering }) => {
    const view = async (d: DisputeCase) => ({ body: disputeView(d) });
    return view(await submitDispute(disputeDeps(), principal, path.dispute_id, answering(view)));
  },
});
