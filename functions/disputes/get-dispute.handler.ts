/** GET /api/v1/disputes/{dispute_id}: the dispute, with the defense reasons its provider lists while it needs a response. */
import { retrieveDispute } from '../../shared/application/disputes';
import { disputePath } from '../../shared/domain/disputes/dispute.schemas';
import { httpHandler } from '../../shared/http/handler';
import { disputeView } from '../../shared/http/views/dispute.view';
import { disputeDeps } from '../../shared/wiring';

export const handler = httpHandler({
  route: 'getDispute',
  path: disputePath,
  handler: async ({ path, principal }) => {
    const { dispute, defenseReasons } = await retrieveDispute(disputeDeps(), principal, path.dispute_id);
    return { body: disputeView(dispute, defenseReasons) };
  },
});
