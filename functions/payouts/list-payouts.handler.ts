/** GET /api/v1/payout: newest first; status, from_date, to_date, limit, offset or starting_after (a payout id: next_cursor). */
import { listPayouts } from '../../shared/application/payouts';
import { listPayoutsQuery } from '../../shared/domain/payouts/payout.schemas';
import { httpHandler } from '../../shared/http/handler';
import { payoutListView } from '../../shared/http/views/payout.view';
import { payoutDeps } from '../../shared/wiring';

export const handler = httpHandler({
  route: 'listPayouts',
  query: listPayoutsQuery,
  handler: async ({ query, principal }) => ({ body: payoutListView(await listPayouts(payoutDeps(), principal, query), query) }),
});
