/** GET /providers/adyen/3ds/{payment_id}: forwards the shopper to Adyen's 3-D Secure redirect action (GET, or an auto-posted form). */
import { AppError } from '../../shared/domain/errors';
import { heldCardRedirect } from '../../shared/application/rails';
import { paymentPath } from '../../shared/domain/payments/payment.schemas';
import { httpHandler } from '../../shared/http/handler';
import { authenticationRedirect } from '../../shared/http/pages/authentication';
import { paymentDeps } from '../../shared/wiring';

export const handler = httpHandler({
  route: 'adyenThreeDs',
  path: paymentPath,
  handler: async ({ path }) => {
    const action = await heldCardRedirect(paymentDeps(), path.payment_id);
    if (!action) throw new AppError('PAYMENT_NOT_FOUND');
    return authenticationRedirect(action);
  },
});
