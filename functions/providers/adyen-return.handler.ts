/**
 * GET /providers/adyen/return/{payment_id}?redirectResult=…: back from 3-D Secure; completes the payment (pi_) or a
 * card mandate's approval (md_) and sends the shopper or payer on.
 */
import { completeCardMandateReturn } from '../../shared/application/mandates';
import { completeHeldCardReturn } from '../../shared/application/rails';
import { heldReturnPath, threeDsReturnQuery } from '../../shared/domain/payments/payment.schemas';
import { httpHandler } from '../../shared/http/handler';
import { redirect } from '../../shared/http/pages/html';
import { mandateDeps, paymentDeps } from '../../shared/wiring';
import { ADYEN } from '../../shared/adapters/providers/adyen/adyen.client';

export const handler = httpHandler({
  route: 'adyenReturn',
  path: heldReturnPath,
  query: threeDsReturnQuery,
  handler: async ({ path, query }) =>
    redirect(
      path.payment_id.startsWith('md_')
        ? await completeCardMandateReturn(mandateDeps(), path.payment_id, query.redirectResult)
        : await completeHeldCardReturn(paymentDeps(), ADYEN, path.payment_id, query.redirectResult),
    ),
});
