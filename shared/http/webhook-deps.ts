/** The container's webhook dependencies: event store, SQS queue, SSRF guard, signer and HTTP sender. */
import type { Clock } from '../application/ports';
import type { WebhookDeps } from '../application/webhooks';
import { documentClient, sqsClient } from '../adapters/aws-clients';
import { systemClock } from '../adapters/crypto';
import { repositories } from '../adapters/dynamodb';
import { eventRepository } from '../adapters/dynamodb/event.repository';
import { deliveryQueue } from '../adapters/sqs/delivery-queue';
import { checkWebhookUrl } from '../adapters/webhooks/ssrf-guard';
import { deliver } from '../adapters/webhooks/http-sender';
import { signatureHeaders } from '../domain/webhooks/signature';
import { parseSchedule } from '../domain/webhooks/retry';
import { config } from '../config';
import { SERVICE_NAME } from '../observability';

export const USER_AGENT = `${SERVICE_NAME}-webhooks/1.0 (+https://docs.latam-payments.example/webhooks)`;

let deps: WebhookDeps | undefined;

export function webhookDeps(clock: Clock = systemClock): WebhookDeps {
  deps ??= {
    events: eventRepository(documentClient(), () => config.tableName),
    queue: deliveryQueue(
      sqsClient(),
      () => config.queueUrl('webhooks'),
      () => config.deadLetterUrl('webhooks'),
    ),
    merchants: repositories.merchants,
    clock: systemClock,
    schedule: () => parseSchedule(config.webhookRetrySchedule),
    checkUrl: (url, livemode) => checkWebhookUrl(url, { allowLoopback: config.webhookAllowLoopback, requireHttps: livemode }),
    signHeaders: signatureHeaders,
    send: ({ target, body, headers }) =>
      deliver({
        url: target.url,
        address: target.address,
        family: target.family,
        body,
        headers,
        timeoutMs: config.webhookTimeoutMs,
        userAgent: USER_AGENT,
      }),
  };
  return clock === systemClock ? deps : { ...deps, clock };
}
