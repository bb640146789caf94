/** GET /api/v1/events/{event_id}: payload and every delivery attempt. */
import { getEvent } from '../../shared/application/webhooks';
import { eventPath } from '../../shared/domain/webhooks/event.schemas';
import { httpHandler } from '../../shared/http/handler';
import { eventView } from '../../shared/http/views/event.view';
import { webhookDeps } from '../../shared/wiring';

export const handler = httpHandler({
  route: 'getEvent',
  path: eventPath,
  handler: async ({ path, principal }) => ({ body: eventView(await getEvent(webhookDeps(), principal, path.event_id)) }),
});
