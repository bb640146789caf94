/** GET /api/v1/checkout/{session_id}: the session record of SPEC.md 2.1. */
import { getCheckoutSession } from '../../shared/application/checkout';
import { sessionPath } from '../../shared/domain/payments/payment.schemas';
import { httpHandler } from '../../shared/http/handler';
import { sessionView } from '../../shared/http/views/session.view';
import { paymentDeps } from '../../shared/wiring';

export const handler = httpHandler({
  route: 'getCheckoutSession',
  path: sessionPath,
  handler: async ({ path, principal }) => ({
    body: sessionView(paymentDeps(), await getCheckoutSession(paymentDeps(), principal, path.session_id), principal.merchant),
  }),
});
