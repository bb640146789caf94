/** GET /api/v1/checkout/{session_id}: the session record of SPEC.md 2.1. */
import { getCheckoutSession } from '../../shared/application/checkout';
import { sessionPath } from '../../shared/domain/payments/payment.schemas';
import { httpHandler } from '../../shared/http/handler';
import { sessionView } from '../../shared/http/views/session.view';
import { paymentDeps } from '../../shared/wiring';
import { servedMerchant } from '../../shared/application/payins';

export const handler = httpHandler({
  route: 'getCheckoutSession',
  path: sessionPath,
  handler: async ({ path, principal }) => {
    const deps = paymentDeps();
    const found = await getCheckoutSession(deps, principal, path.session_id);
    return { body: sessionView(deps, found, await servedMerchant(deps, principal.merchant, principal.livemode)) };
  },
});
