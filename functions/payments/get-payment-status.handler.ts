/** GET /cashier/cashier/status/{merchant_id}/{payment_id}: the payment status record. */
import { getPaymentStatus } from '../../shared/application/payments';
import { paymentStatusPath } from '../../shared/domain/payments/payment.schemas';
import { httpHandler } from '../../shared/http/handler';
import { paymentStatusView } from '../../shared/http/views/payment.view';
import { paymentDeps } from '../../shared/wiring';

export const handler = httpHandler({
  route: 'getPaymentStatus',
  path: paymentStatusPath,
  handler: async ({ path, principal }) => ({
    body: paymentStatusView(await getPaymentStatus(paymentDeps(), principal, path.merchant_id, path.payment_id)),
  }),
});
