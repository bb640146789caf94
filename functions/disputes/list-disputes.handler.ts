/** GET /api/v1/disputes: newest first; status, payment_id, from_date, to_date, limit, offset or starting_after (next_cursor). */
import { listDisputes } from '../../shared/application/disputes';
import { listDisputesQuery } from '../../shared/domain/disputes/dispute.schemas';
import { httpHandler } from '../../shared/http/handler';
import { disputeListView } from '../../shared/http/views/dispute.view';
import { disputeDeps } from '../../shared/wiring';

export const handler = httpHandler({
  route: 'listDisputes',
  query: listDisputesQuery,
  handler: async ({ query, principal }) => ({ body: disputeListView(await listDisputes(disputeDeps(), principal, query), query) }),
});
