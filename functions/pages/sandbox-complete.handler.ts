/**
 * POST /sandbox/{kind}/{payment_id}: the page's Authenticate / Fail form; completes and redirects the customer. Kind
 * mandate: Approve (success) or Reject (failed) a test mandate, then to its success_url or cancel_url.
 */
import { completeFromPage } from '../../shared/application/checkout';
import { decideFromPage } from '../../shared/application/mandates';
import { httpHandler } from '../../shared/http/handler';
import { redirect } from '../../shared/http/pages/html';
import { mandateDeps, paymentDeps } from '../../shared/wiring';
import { sandboxPagePath, simulateBody } from '../../shared/domain/payments/payment.schemas';

export const handler = httpHandler({
  route: 'sandboxComplete',
  path: sandboxPagePath,
  body: simulateBody,
  handler: async ({ path, body }) =>
    redirect(
      path.kind === 'mandate'
        ? (await decideFromPage(mandateDeps(), path.payment_id, body.outcome === 'success')).next
        : (await completeFromPage(paymentDeps(), path.payment_id, body.outcome)).next,
    ),
});
