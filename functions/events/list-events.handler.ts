/** GET /api/v1/events: the merchant's events, newest first, filterable and paginated. */
import { listEvents } from '../../shared/application/webhooks';
import { listEventsQuery } from '../../shared/domain/webhooks/event.schemas';
import { httpHandler } from '../../shared/http/handler';
import { eventListView } from '../../shared/http/views/event.view';
import { webhookDeps } from '../../shared/wiring';

export const handler = httpHandler({
  route: 'listEvents',
  query: listEventsQuery,
  handler: async ({ query, principal }) => ({ body: eventListView(await listEvents(webhookDeps(), principal, query)) }),
});
