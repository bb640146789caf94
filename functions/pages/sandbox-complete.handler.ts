/** POST /sandbox/{kind}/{payment_id}: the page's Authenticate / Fail form; completes and redirects the customer. */
import { completeFromPage } from '../../shared/application/checkout';
import { httpHandler } from '../../shared/http/handler';
import { redirect } from '../../shared/http/pages/html';
import { paymentDeps } from '../../shared/wiring';
import { sandboxPagePath, simulateBody } from '../../shared/domain/payments/payment.schemas';

export const handler = httpHandler({
  route: 'sandboxComplete',
  path: sandboxPagePath,
  body: simulateBody,
  handler: async ({ path, body }) => redirect((await completeFromPage(paymentDeps(), path.payment_id, body.outcome)).next),
});
