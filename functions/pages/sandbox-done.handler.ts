/** GET /sandbox/3ds/{payment_id}/done: where a direct payment without a return_url lands after 3DS (test or live). */
import { resultPagePayment } from '../../shared/application/checkout';
import { paymentPath } from '../../shared/domain/payments/payment.schemas';
import { httpHandler } from '../../shared/http/handler';
import { renderDonePage } from '../../shared/http/pages/sandbox-page';
import { paymentDeps } from '../../shared/wiring';

export const handler = httpHandler({
  route: 'sandboxDone',
  path: paymentPath,
  handler: async ({ path }) => renderDonePage(await resultPagePayment(paymentDeps(), path.payment_id)),
});
