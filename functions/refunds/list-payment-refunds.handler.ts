/** GET /api/v1/payments/{payment_id}/refunds: a payment's refunds, oldest first. */
import { listPaymentRefunds } from '../../shared/application/refunds';
import { paymentRefundsPath } from '../../shared/domain/refunds/refund.schemas';
import { httpHandler } from '../../shared/http/handler';
import { paymentRefundsView } from '../../shared/http/views/refund.view';
import { paymentDeps } from '../../shared/wiring';

export const handler = httpHandler({
  route: 'listPaymentRefunds',
  path: paymentRefundsPath,
  handler: async ({ path, principal }) => ({
    body: paymentRefundsView(await listPaymentRefunds(paymentDeps(), principal, path.payment_id)),
  }),
});
