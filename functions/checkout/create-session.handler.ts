/** POST /api/v1/checkout: create a hosted checkout session (SPEC.md 4.1.1). */
import { createCheckoutSession } from '../../shared/application/checkout';
import { createSessionBody } from '../../shared/domain/payments/payment.schemas';
import { httpHandler } from '../../shared/http/handler';
import { idempotent } from '../../shared/http/idempotent';
import { createdSessionView } from '../../shared/http/views/session.view';
import { paymentDeps } from '../../shared/wiring';

export const handler = httpHandler({
  route: 'createCheckoutSession',
  idempotency: idempotent,
  body: createSessionBody,
  handler: async ({ body, principal, newId }) => ({
    body: createdSessionView(paymentDeps(), await createCheckoutSession(paymentDeps(), principal, body, newId('cs_'))),
  }),
});
