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
import { dispatchingStore } from '../application/dispatching-store';
import { dispatchEvents } from '../application/webhooks';
import { logger } from '../observability';
import { webhookDeps } from './webhook-deps';

const baseUrl = () => (config.publicBaseUrl ?? 'http://127.0.0.1:3000').replace(/\/$/, '');

let deps: PaymentDeps | undefined;

export function paymentDeps(clock: Clock = systemClock): PaymentDeps {
  deps ??= {
    store: dispatchingStore(
      paymentRepository(documentClient(), () => config.tableName),
      (events) => dispatchEvents(webhookDeps(), events),
      (e) => logger.warn('Events committed but not enqueued; the outbox sweeper will enqueue them', { error: e as Error }),
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
