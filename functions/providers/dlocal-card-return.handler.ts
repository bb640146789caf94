/**
 * POST /providers/dlocal/return/{payment_id}: back from dLocal's 3-D Secure page. dLocal's form posts its payment id,
 * a status and a signature to our callback_url and says to read the payment instead of trusting them: nothing of the
 * body is read. The card payment's current attempt is read back by its order_id and applied, then the shopper goes on.
 */
import { completeLocalReturn } from '../../shared/application/rails';
import { paymentPath } from '../../shared/domain/payments/payment.schemas';
import { httpHandler } from '../../shared/http/handler';
import { redirect } from '../../shared/http/pages/html';
import { paymentDeps } from '../../shared/wiring';
import { DLOCAL } from '../../shared/adapters/providers/dlocal/dlocal.client';

export const handler = httpHandler({
  route: 'dlocalCardReturn',
  path: paymentPath,
  handler: async ({ path }) => redirect(await completeLocalReturn(paymentDeps(), DLOCAL, path.payment_id)),
});
