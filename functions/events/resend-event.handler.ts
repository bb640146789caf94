/** POST /api/v1/events/{event_id}/resend: deliver the event again, whatever its delivery status. */
import { resendEvent } from '../../shared/application/webhooks';
import { eventPath } from '../../shared/domain/webhooks/event.schemas';
import { httpHandler } from '../../shared/http/handler';
import { idempotent } from '../../shared/http/idempotent';
import { resentEventView } from '../../shared/http/views/event.view';
import { webhookDeps } from '../../shared/wiring';

export const handler = httpHandler({
  route: 'resendEvent',
  idempotency: idempotent,
  path: eventPath,
  handler: async ({ path, principal }) => ({
    status: 202,
    body: resentEventView(await resendEvent(webhookDeps(), principal, path.event_id)),
  }),
});
