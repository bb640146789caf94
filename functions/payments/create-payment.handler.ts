/** POST /cashier/cashier/payment: a direct PIX or card payment (SPEC.md 2.4, 4.2). */
import { createDirectPayment } from '../../shared/application/payins';
import type { Payment } from '../../shared/domain/payments/payment';
import { directPaymentBody } from '../../shared/domain/payments/payment.schemas';
import { httpHandler } from '../../shared/http/handler';
import { idempotent } from '../../shared/http/idempotent';
import { directPaymentView } from '../../shared/http/views/payment.view';
import { paymentDeps, qrCodes } from '../../shared/wiring';

export const handler = httpHandler({
  route: 'createDirectPayment',
  idempotency: idempotent,
  body: directPaymentBody,
  handler: async ({ body, principal, newId, answering }) => {
    const view = async (p: Payment) => ({ body: await directPaymentView({ qr: qrCodes }, p) });
    return view(await createDirectPayment(paymentDeps(), principal, body, newId('pi_'), answering(view)));
  },
});
