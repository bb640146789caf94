/** GET /sandbox/{kind}/{payment_id}: the sandbox 3DS challenge, wallet approval or "customer paid" page. */
import { sandboxPayment } from '../../shared/application/checkout';
import { sandboxPagePath } from '../../shared/domain/payments/payment.schemas';
import { httpHandler } from '../../shared/http/handler';
import { renderSandboxPage } from '../../shared/http/pages/sandbox-page';
import { paymentDeps } from '../../shared/wiring';

export const handler = httpHandler({
  route: 'sandboxPage',
  path: sandboxPagePath,
  handler: async ({ path }) => renderSandboxPage(path.kind, await sandboxPayment(paymentDeps(), path.payment_id)),
});
