/** POST /api/v1/sandbox/payments/{payment_id}/dispute: a test payment disputed by its payer's bank (sk_test_ keys only). */
import { simulateDispute } from '../../shared/application/disputes';
import type { DisputeCase } from '../../shared/domain/disputes/dispute-case';
import { simulateDisputeBody } from '../../shared/domain/disputes/dispute.schemas';
import { paymentPath } from '../../shared/domain/payments/payment.schemas';
import { httpHandler } from '../../shared/http/handler';
import { idempotent } from '../../shared/http/idempotent';
import { disputeView } from '../../shared/http/views/dispute.view';
import { disputeDeps } from '../../shared/wiring';

export const handler = httpHandler({
  route: 'simulateDispute',
  idempotency: idempotent,
  path: paymentPath,
  body: simulateDisputeBody,
  handler: async ({ path, body, principal, answering }) => {
    const view = async (d: DisputeCase) => ({ body: disputeView(d) });
    const d = await simulateDispute(disputeDeps(), principal, path.payment_id, body);
    await answering(view);
    return view(d);
  },
});
