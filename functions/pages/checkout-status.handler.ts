/** GET /checkout/{session_id}/status: the session state and latest payment the hosted page polls. */
import { loadCheckout } from '../../shared/application/checkout';
import { checkoutStatusView } from '../../shared/http/views/checkout-page.view';
import { sessionPath } from '../../shared/domain/payments/payment.schemas';
import { httpHandler } from '../../shared/http/handler';
import { paymentDeps } from '../../shared/wiring';

export const handler = httpHandler({
  route: 'checkoutStatus',
  path: sessionPath,
  handler: async ({ path }) => ({
    headers: { 'cache-control': 'no-store' },
    body: checkoutStatusView(paymentDeps(), await loadCheckout(paymentDeps(), path.session_id)),
  }),
});
