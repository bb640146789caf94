/** POST /api/v1/checkout/{session_id}/cancel: pending -> cancelled (SPEC.md 3.2). */
import { cancelCheckoutSession } from '../../shared/application/checkout';
import { sessionPath } from '../../shared/domain/payments/payment.schemas';
import type { CheckoutSession } from '../../shared/domain/payments/session';
import { httpHandler } from '../../shared/http/handler';
import { idempotent } from '../../shared/http/idempotent';
import { cancelledSessionView } from '../../shared/http/views/session.view';
import { paymentDeps } from '../../shared/wiring';

export const handler = httpHandler({
  route: 'cancelCheckoutSession',
  idempotency: idempotent,
  path: sessionPath,
  handler: async ({ path, principal, answering }) => {
    const view = (s: CheckoutSession) => ({ body: cancelledSessionView(s) });
    return view(await cancelCheckoutSession(paymentDeps(), principal, path.session_id, answering(view)));
  },
});
