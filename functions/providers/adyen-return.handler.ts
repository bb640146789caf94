/** GET /providers/adyen/return/{payment_id}?redirectResult=…: back from 3-D Secure; completes the payment and sends the shopper on. */
import { completeHeldCardReturn } from '../../shared/application/rails';
import { paymentPath, threeDsReturnQuery } from '../../shared/domain/payments/payment.schemas';
import { httpHandler } from '../../shared/http/handler';
import { redirect } from '../../shared/http/pages/html';
import { paymentDeps } from '../../shared/wiring';
import { ADYEN } from '../../shared/adapters/providers/adyen/adyen.client';

export const handler = httpHandler({
  route: 'adyenReturn',
  path: paymentPath,
  query: threeDsReturnQuery,
  handler: async ({ path, query }) => redirect(await completeHeldCardReturn(paymentDeps(), ADYEN, path.payment_id, query.redirectResult)),
});
