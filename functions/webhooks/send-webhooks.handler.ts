/** The webhook sender: drains the webhooks queue, one delivery attempt per message, partial batch failures. */
import { deliverMessage, deliveryCounts, deliveryMessage } from '../../shared/application/webhooks';
import { webhookDeps } from '../../shared/wiring';
import { sqsHandler } from '../../shared/workers/sqs-handler';

export const handler = sqsHandler({
  message: deliveryMessage,
  handle: (m) => deliverMessage(webhookDeps(), m),
  metrics: { received: 'WebhookMessages', failed: 'WebhookMessageFailures' },
  counts: deliveryCounts,
  faults: ['WebhookDeadLettered'],
});
