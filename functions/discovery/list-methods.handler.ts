/** GET /api/v1/methods: payment methods the merchant can use (SPEC.md 4.3). */
import { listPaymentMethods } from '../../shared/application/merchants';
import { listMethodsQuery } from '../../shared/domain/catalog/discovery.schemas';
import { httpHandler } from '../../shared/http/handler';
import { servedMerchant } from '../../shared/application/payins';
import { paymentDeps } from '../../shared/wiring';

export const handler = httpHandler({
  route: 'listMethods',
  query: listMethodsQuery,
  handler: async ({ query, principal }) => ({
    body: listPaymentMethods(await servedMerchant(paymentDeps(), principal.merchant, principal.livemode), query),
  }),
});
