/** GET /api/v1/balance: the merchant's balance per currency in the key's mode. */
import { balances } from '../../shared/application/payouts';
import { httpHandler } from '../../shared/http/handler';
import { balancesView } from '../../shared/http/views/payout.view';
import { payoutDeps } from '../../shared/wiring';

export const handler = httpHandler({
  route: 'getBalance',
  handler: async ({ principal }) => ({ body: balancesView(principal.livemode, await balances(payoutDeps(), principal)) }),
});
