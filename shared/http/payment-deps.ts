/** The container's pay-in dependencies, wired to DynamoDB, the connector registry and the clock. */
import type { PaymentDeps } from '../application/payment-deps';
import { documentClient } from '../adapters/aws-clients';
import { randomIds, systemClock } from '../adapters/crypto';
import { repositories } from '../adapters/dynamodb';
import { paymentRepository } from '../adapters/dynamodb/payment.repository';
import { connectorRegistry } from '../adapters/connectors/registry';
import { config } from '../config';
import type { Clock } from '../application/ports';
import { checkUrlSyntax, UnsafeUrlError } from '../adapters/webhooks/ssrf-guard';
import { dispatchAfterCommit } from '../application/dispatching-store';
import { dispatchEvents } from '../application/webhooks';
import { logger } from '../observability';
import { webhookDeps } from './webhook-deps';

const baseUrl = () => (config.publicBaseUrl ?? 'http://127.0.0.1:3000').replace(/\/$/, '');

/** A committed transaction whose events did not reach the queue: the outbox sweeper will enqueue them. */
export const warnUndispatched = (e: unknown) =>
  logger.warn('Events committed but not enqueued; the outbox sweeper will enqueue them', { error: e as Error });

let deps: PaymentDeps | undefined;

export function paymentDeps(clock: Clock = systemClock): PaymentDeps {
  deps ??= {
    store: dispatchAfterCommit(
      paymentRepository(documentClient(), () => config.tableName),
      ['recordNewPayment', 'transitionPayment', 'transitionSession'],
      (events) => dispatchEvents(webhookDeps(), events),
      warnUndispatched,
    ),
    connectors: connectorRegistry(baseUrl),
    merchants: repositories.merchants,
    ids: randomIds,
    clock: systemClock,
    baseUrl,
    checkNotificationUrl: (url, livemode) => {
      try {
        checkUrlSyntax(url, { requireHttps: livemode, allowLoopback: config.webhookAllowLoopback });
        return null;
      } catch (e) {
        if (e instanceof UnsafeUrlError) return e.message;
        throw e;
      }
    },
  };
  return clock === systemClock ? deps : { ...deps, clock };
}
