/** POST /api/v1/payout: create a payout (SPEC.md 4.4.1). */
import { createPayout } from '../../shared/application/payouts';
import type { Payout } from '../../shared/domain/payouts/payout';
import { createPayoutBody } from '../../shared/domain/payouts/payout.schemas';
import { httpHandler } from '../../shared/http/handler';
import { idempotent } from '../../shared/http/idempotent';
import { createdPayoutView } from '../../shared/http/views/payout.view';
import { payoutDeps } from '../../shared/wiring';

export const handler = httpHandler({
  route: 'createPayout',
  idempotency: idempotent,
  body: createPayoutBody,
  handler: async ({ body, principal, newId, answering }) => {
    const view = (p: Payout) => ({ body: createdPayoutView(p) });
    return view(await createPayout(payoutDeps(), principal, body, newId('po_'), answering(view)));
  },
});
