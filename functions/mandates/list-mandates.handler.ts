/** GET /api/v1/mandates: newest first; status, from_date, to_date, limit, offset or starting_after (a mandate id: next_cursor). */
import { listMandates } from '../../shared/application/mandates';
import { listMandatesQuery } from '../../shared/domain/mandates/mandate.schemas';
import { httpHandler } from '../../shared/http/handler';
import { mandateListView } from '../../shared/http/views/mandate.view';
import { mandateDeps } from '../../shared/wiring';

export const handler = httpHandler({
  route: 'listMandates',
  query: listMandatesQuery,
  handler: async ({ query, principal }) => ({ body: mandateListView(await listMandates(mandateDeps(), principal, query), query) }),
});
