/** Webhook dependencies (event store, queue, SSRF guard, signer, HTTP sender) and the use cases' event publisher. */
import { documentClient, sqsClient } from '../adapters/aws-clients';
import { systemClock } from '../adapters/crypto';
import { eventRepository } from '../adapters/dynamodb/event.repository';
import { deliveryQueue } from '../adapters/sqs/delivery-queue';
import { deliver } from '../adapters/webhooks/http-sender';
import { checkWebhookUrl } from '../adapters/webhooks/ssrf-guard';
import type { Clock, EventPublisher } from '../application/ports';
import type { WebhookDeps } from '../application/webhooks';
import { config } from '../config';
import { parseSchedule } from '../domain/webhooks/retry';
import { signatureHeaders } from '../domain/webhooks/signature';
import { SERVICE_NAME } from '../observability';
import { repositories, tableName } from './repositories';

export const USER_AGENT = `${SERVICE_NAME}-webhooks/1.0 (+https://docs.latam-payments.example/webhooks)`;

let deps: WebhookDeps | undefined;

export function webhookDeps(clock: Clock = systemClock): WebhookDeps {
  deps ??= {
    events: eventRepository(documentClient(), tableName),
    queue: deliveryQueue(
      sqsClient(),
      () => config.queueUrl('webhooks'),
      () => config.deadLetterUrl('webhooks'),
    ),
    merchants: repositories.merchants,
    clock: systemClock,
    schedule: () => parseSchedule(config.webhookRetrySchedule),
    checkUrl: (url, livemode) =>
      checkWebhookUrl(url, {
        allowLoopback: config.webhookAllowLoopback,
        allowLoopbackHttp: config.webhookAllowLoopback,
        requireHttps: livemode,
      }),
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

/**
 * The publisher the use cases are wired with: nothing to do after the commit, because the commit is the
 * publish. Each event item a transaction inserts reaches the table's stream, whose eventDispatch consumer
 * puts it on the delivery queue (shared/manifest/streams.ts); no process that dies after its commit can lose
 * an event, and no outbox row is written and cleared per event (issue 22).
 */
export const eventPublisher: EventPublisher = {
  async publish() {},
};
