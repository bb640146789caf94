/** GET /api/v1/payout/methods/available: payout methods the merchant can use (SPEC.md 4.4.5). */
import { availablePayoutMethods } from '../../shared/application/payouts';
import { availablePayoutMethodsQuery } from '../../shared/domain/payouts/payout.schemas';
import { httpHandler } from '../../shared/http/handler';

export const handler = httpHandler({
  route: 'availablePayoutMethods',
  query: availablePayoutMethodsQuery,
  handler: async ({ query, principal }) => ({ body: { success: true, methods: availablePayoutMethods(principal, query) } }),
});
