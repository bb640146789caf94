/** POST /api/v1/disputes/{dispute_id}/evidence: stages a defense reason, its documents and text (nothing sent yet). */
import { stageEvidence } from '../../shared/application/disputes';
import type { DisputeCase } from '../../shared/domain/disputes/dispute-case';
import { disputePath, evidenceBody } from '../../shared/domain/disputes/dispute.schemas';
import { httpHandler } from '../../shared/http/handler';
import { idempotent } from '../../shared/http/idempotent';
import { disputeView } from '../../shared/http/views/dispute.view';
import { disputeDeps } from '../../shared/wiring';

export const handler = httpHandler({
  route: 'stageDisputeEvidence',
  idempotency: idempotent,
  path: disputePath,
  body: evidenceBody,
  handler: async ({ path, body, principal, answering }) => {
    const view = async (d: DisputeCase) => ({ body: disputeView(d) });
    return view(await stageEvidence(disputeDeps(), principal, path.dispute_id, body, answering(view)));
  },
});
