/** GET /api/v1/methods/{method_code}: one method (PaymentMethodInfo). */
import { getPaymentMethod } from '../../shared/application/merchants';
import { getMethodPath, getMethodQuery } from '../../shared/domain/catalog/discovery.schemas';
import { httpHandler } from '../../shared/http/handler';
import { servedMerchant } from '../../shared/application/payins';
import { paymentDeps } from '../../shared/wiring';

export const handler = httpHandler({
  route: 'getMethod',
  path: getMethodPath,
  query: getMethodQuery,
  handler: async ({ path, query, principal }) => ({
    body: getPaymentMethod(await servedMerchant(paymentDeps(), principal.merchant, principal.livemode), path.method_code, query.country),
  }),
});
