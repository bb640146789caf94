/** GET /providers/dlocal/return/{payment_id}: back from dLocal's page; the payment is read back, then the shopper goes on. */
import { completeLocalReturn } from '../../shared/application/rails';
import { paymentPath } from '../../shared/domain/payments/payment.schemas';
import { httpHandler } from '../../shared/http/handler';
import { redirect } from '../../shared/http/pages/html';
import { paymentDeps } from '../../shared/wiring';
import { DLOCAL } from '../../shared/adapters/providers/dlocal/dlocal.client';

export const handler = httpHandler({
  route: 'dlocalReturn',
  path: paymentPath,
  handler: async ({ path }) => redirect(await completeLocalReturn(paymentDeps(), DLOCAL, path.payment_id)),
});
