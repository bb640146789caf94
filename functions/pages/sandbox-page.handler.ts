/** GET /sandbox/{kind}/{payment_id}: the sandbox 3DS challenge, wallet approval or "customer paid" page, or a test mandate's approval. */
import { sandboxPayment } from '../../shared/application/checkout';
import { sandboxMandate } from '../../shared/application/mandates';
import { sandboxPagePath } from '../../shared/domain/payments/payment.schemas';
import { httpHandler } from '../../shared/http/handler';
import { renderMandatePage, renderSandboxPage } from '../../shared/http/pages/sandbox-page';
import { mandateDeps, paymentDeps } from '../../shared/wiring';

export const handler = httpHandler({
  route: 'sandboxPage',
  path: sandboxPagePath,
  handler: async ({ path }) =>
    path.kind === 'mandate'
      ? renderMandatePage(await sandboxMandate(mandateDeps(), path.payment_id))
      : renderSandboxPage(path.kind, await sandboxPayment(paymentDeps(), path.payment_id)),
});
