/** GET /checkout/{session_id}/status: the session state and latest payment the hosted page polls. */
import { checkoutStatus } from '../../shared/application/checkout-page';
import { sessionPath } from '../../shared/domain/payments/payment.schemas';
import { httpHandler } from '../../shared/http/handler';
import { paymentDeps } from '../../shared/wiring';

export const handler = httpHandler({
  route: 'checkoutStatus',
  path: sessionPath,
  handler: async ({ path }) => ({ headers: { 'cache-control': 'no-store' }, body: await checkoutStatus(paymentDeps(), path.session_id) }),
});
