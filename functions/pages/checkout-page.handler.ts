/** GET /checkout/{session_id}: the hosted checkout page (checkout_url), in the shopper's language. */
import { loadCheckout } from '../../shared/application/checkout';
import { isAppError } from '../../shared/domain/errors';
import { checkoutPagePath, checkoutPageQuery, sessionIdSchema } from '../../shared/domain/payments/payment.schemas';
import { httpHandler } from '../../shared/http/handler';
import { renderCheckoutPage, renderNotFoundPage } from '../../shared/http/pages/checkout/checkout-page';
import { resolveLocale } from '../../shared/http/pages/checkout/i18n/locale';
import { checkoutPageView } from '../../shared/http/views/checkout-page.view';
import { paymentDeps } from '../../shared/wiring';

export const handler = httpHandler({
  route: 'checkoutPage',
  path: checkoutPagePath,
  query: checkoutPageQuery,
  handler: async ({ path, query, event }) => {
    const choice = { query: query.locale, acceptLanguage: event.headers?.['accept-language'] };
    try {
      if (!sessionIdSchema.safeParse(path.session_id).success) return renderNotFoundPage(resolveLocale(choice));
      const deps = paymentDeps();
      const state = checkoutPageView(deps, await loadCheckout(deps, path.session_id));
      return renderCheckoutPage(state, resolveLocale({ ...choice, country: state.country }));
    } catch (e) {
      if (isAppError(e) && e.code === 'SESSION_NOT_FOUND') return renderNotFoundPage(resolveLocale(choice));
      throw e;
    }
  },
});
