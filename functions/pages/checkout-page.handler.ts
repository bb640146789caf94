/** GET /checkout/{session_id}: the hosted checkout page (checkout_url). */
import { checkoutPageModel } from '../../shared/application/pages';
import { sessionPath } from '../../shared/domain/payments/payment.schemas';
import { httpHandler } from '../../shared/http/handler';
import { htmlResponse } from '../../shared/http/pages/html';
import { renderCheckoutPage } from '../../shared/http/pages/checkout-page';
import { paymentDeps } from '../../shared/http/payment-deps';

export const handler = httpHandler({
  route: 'checkoutPage',
  path: sessionPath,
  handler: async ({ path }) => htmlResponse(renderCheckoutPage(await checkoutPageModel(paymentDeps(), path.session_id))),
});
