/** POST /api/v1/sandbox/balance/top-up: adds test money to a sandbox balance (sk_test_ keys only). */
import { balances, topUpTestBalance } from '../../shared/application/payouts';
import type { BalanceView } from '../../shared/application/ports';
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
  handler: async ({ body, principal, answering }) => {
    if (principal.livemode) throw new AppError('FORBIDDEN', 'Only sandbox balances can be topped up, with a sk_test_ key.');
    const view = (list: BalanceView[]) => ({ body: balancesView(principal.livemode, list) });
    await topUpTestBalance(payoutDeps(), principal.merchant.merchant_id, body.currency, body.amount, answering(view));
    return view(await balances(payoutDeps(), principal));
  },
});
