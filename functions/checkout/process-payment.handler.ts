/** POST /api/v1/checkout/process: the hosted page pays a session; authorised by the session id. */
import { processCheckoutPayment } from '../../shared/application/checkout';
import { processBody } from '../../shared/domain/payments/payment.schemas';
import { httpHandler } from '../../shared/http/handler';
import { processPaymentView } from '../../shared/http/views/payment.view';
import { paymentDeps } from '../../shared/wiring';

export const handler = httpHandler({
  route: 'processCheckoutPayment',
  body: processBody,
  handler: async ({ body, newId }) => processPaymentView(paymentDeps(), await processCheckoutPayment(paymentDeps(), body, newId('pi_'))),
});
