/** GET /providers/adyen/3ds/{payment_id}: forwards the shopper to Adyen's 3-D Secure redirect action (GET, or an auto-posted form). */
import { AppError } from '../../shared/domain/errors';
import { heldCardRedirect } from '../../shared/application/rails';
import { paymentPath } from '../../shared/domain/payments/payment.schemas';
import { httpHandler } from '../../shared/http/handler';
import { esc, htmlPage, redirect } from '../../shared/http/pages/html';
import { paymentDeps } from '../../shared/wiring';

export const handler = httpHandler({
  route: 'adyenThreeDs',
  path: paymentPath,
  handler: async ({ path }) => {
    const action = await heldCardRedirect(paymentDeps(), path.payment_id);
    if (!action) throw new AppError('PAYMENT_NOT_FOUND');
    if (action.method === 'GET') return redirect(action.url);
    const fields = Object.entries(action.data)
      .map(([k, v]) => `<input type="hidden" name="${esc(k)}" value="${esc(v)}">`)
      .join('');
    return htmlPage({
      title: 'Card authentication',
      formsRedirectOffSite: true,
      body: `<form id="f" method="post" action="${esc(action.url)}">${fields}<button type="submit">Continue to your bank</button></form>`,
      script: "document.getElementById('f').submit();",
    });
  },
});
