/** Webhook dependencies (event store, queue, SSRF guard, signer, HTTP sender) and the post-commit event publisher. */
import { documentClient, sqsClient } from '../adapters/aws-clients';
import { systemClock } from '../adapters/crypto';
import { eventRepository } from '../adapters/dynamodb/event.repository';
import { deliveryQueue } from '../adapters/sqs/delivery-queue';
import { deliver } from '../adapters/webhooks/http-sender';
import { checkWebhookUrl } from '../adapters/webhooks/ssrf-guard';
import type { Clock, EventPublisher } from '../application/ports';
import { dispatchEvents, type WebhookDeps } from '../application/webhooks';
import { config } from '../config';
import { parseSchedule } from '../domain/webhooks/retry';
import { signatureHeaders } from '../domain/webhooks/signature';
import { logger, SERVICE_NAME } from '../observability';
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
 * Enqueues a committed transaction's events at once. A failure never fails the request (the state change
 * is committed): the events stay in the outbox and the sweeper enqueues them.
 */
export const eventPublisher: EventPublisher = {
  async publish(events) {
    try {
      await dispatchEvents(webhookDeps(), events);
    } catch (e) {
      logger.warn('Events committed but not enqueued; the outbox sweeper will enqueue them', {
        error: e as Error,
        eventIds: events.map((ev) => ev.event_id),
      });
    }
  },
};
