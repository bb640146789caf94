/** The webhook sender: drains the webhooks queue, one delivery attempt per message, partial batch failures. */
import { deliverMessage, deliveryCounts } from '../../shared/application/webhooks';
import { deliveryMessage } from '../../shared/application/webhook-ports';
import { webhookDeps } from '../../shared/wiring';
import { sqsHandler } from '../../shared/workers/sqs-handler';

export const handler = sqsHandler({
  message: deliveryMessage,
  handle: (m) => deliverMessage(webhookDeps(), m),
  metrics: { received: 'WebhookMessages', failed: 'WebhookMessageFailures' },
  counts: deliveryCounts,
});
