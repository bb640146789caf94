/** POST /api/v1/payouts/batch: up to 100 payouts, each checked and answered on its own. */
import { createPayoutBatch, type BatchResult } from '../../shared/application/payouts';
import { createPayoutBatchBody } from '../../shared/domain/payouts/payout.schemas';
import { httpHandler } from '../../shared/http/handler';
import { idempotent } from '../../shared/http/idempotent';
import { payoutBatchView } from '../../shared/http/views/payout.view';
import { payoutDeps } from '../../shared/wiring';

export const handler = httpHandler({
  route: 'createPayoutBatch',
  idempotency: idempotent,
  body: createPayoutBatchBody,
  handler: async ({ body, principal, newId, answering }) => {
    const view = (r: BatchResult) => ({ body: payoutBatchView(r) });
    return view(await createPayoutBatch(payoutDeps(), principal, body.payouts, newId('pb_'), answering(view)));
  },
});
