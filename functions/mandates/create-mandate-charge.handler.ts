/** POST /api/v1/mandates/{mandate_id}/charges: a payment under the mandate, one per billing cycle (DESIGN.md 9.3). */
import { createMandateCharge } from '../../shared/application/mandates';
import type { Payment } from '../../shared/domain/payments/payment';
import { createMandateChargeBody, mandatePath } from '../../shared/domain/mandates/mandate.schemas';
import { httpHandler } from '../../shared/http/handler';
import { idempotent } from '../../shared/http/idempotent';
import { paymentStatusView } from '../../shared/http/views/payment.view';
import { mandateDeps } from '../../shared/wiring';

export const handler = httpHandler({
  route: 'createMandateCharge',
  idempotency: idempotent,
  path: mandatePath,
  body: createMandateChargeBody,
  handler: async ({ path, body, principal, newId, answering }) => {
    const view = (p: Payment) => ({ body: { success: true, ...paymentStatusView(p) } });
    return view(await createMandateCharge(mandateDeps(), principal, path.mandate_id, body, newId('pi_'), answering(view)));
  },
});
