/** POST /api/v1/sandbox/balance/top-up: adds test money to a sandbox balance (sk_test_ keys only). */
import { balances, topUpTestBalance } from '../../shared/application/payouts';
import { AppError } from '../../shared/domain/errors';
import { topUpBody } from '../../shared/domain/payouts/payout.schemas';
import { httpHandler } from '../../shared/http/handler';
import { idempotent } from '../../shared/http/idempotent';
import { balancesView } from '../../shared/http/views/payout.view';
import { payoutDeps } from '../../shared/wiring';

export const handler = httpHandler({
  route: 'topUpTestBalance',
  idempotency: idempotent,
  body: topUpBody,
  handler: async ({ body, principal }) => {
    if (principal.livemode) throw new AppError('FORBIDDEN', 'Only sandbox balances can be topped up, with a sk_test_ key.');
    await topUpTestBalance(payoutDeps(), principal.merchant.merchant_id, body.currency, body.amount);
    return { body: balancesView(principal.livemode, await balances(payoutDeps(), principal)) };
  },
});
