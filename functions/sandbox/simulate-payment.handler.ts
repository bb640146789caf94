/** POST /api/v1/sandbox/payments/{payment_id}/simulate: complete a pending test payment (test keys only). */
import { completePayment } from '../../shared/application/payments';
import { AppError } from '../../shared/domain/errors';
import { paymentPath, simulateBody } from '../../shared/domain/payments/payment.schemas';
import { httpHandler } from '../../shared/http/handler';
import { idempotent } from '../../shared/http/idempotent';
import { paymentStatusView } from '../../shared/http/views/payment.view';
import { paymentDeps } from '../../shared/wiring';

export const handler = httpHandler({
  route: 'simulatePayment',
  idempotency: idempotent,
  path: paymentPath,
  body: simulateBody,
  handler: async ({ path, body, principal }) => {
    if (principal.livemode) throw new AppError('FORBIDDEN', 'The sandbox simulator only accepts sk_test_ keys.');
    const payment = await completePayment(paymentDeps(), path.payment_id, body.outcome, principal);
    return { body: { success: true, ...paymentStatusView(payment) } };
  },
});
