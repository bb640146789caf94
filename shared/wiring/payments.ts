/** Pay-in dependencies: DynamoDB store, connector registry, merchants, ids, clock, links and the event publisher; QR images apart. */
import { readBackOnRead } from '../application/rails';
import { documentClient, sqsClient } from '../adapters/aws-clients';
import { connectorRegistry } from '../adapters/connectors/registry';
import { randomIds, systemClock } from '../adapters/crypto';
import { paymentRepository } from '../adapters/dynamodb/payment.repository';
import { refundRepository } from '../adapters/dynamodb/refund.repository';
import { liveRefundRail, sandboxRefundRails } from '../adapters/sqs/payout-rail';
import { liveConnectors } from '../adapters/providers/live-providers';
import { routingObserver } from './attempts';
import { speiDepositRepository } from '../adapters/dynamodb/spei-deposit.repository';
import { notificationLogRepository } from '../adapters/dynamodb/notification-log.repository';
import { checkUrlSyntax, UnsafeUrlError } from '../adapters/webhooks/ssrf-guard';
import type { PaymentDeps, Clock, QrCodes } from '../application/ports';
import { config } from '../config';
import { repositories, tableName } from './repositories';
import { eventPublisher } from './webhooks';

const baseUrl = () => (config.publicBaseUrl ?? 'http://127.0.0.1:3000').replace(/\/$/, '');
/** The root of our public API (where providers are told to call back). */
export const publicBaseUrl = baseUrl;

/** SSRF guard for a submitted notification_url (syntax only; delivery resolves and checks again). */
export function checkNotificationUrl(url: string, livemode: boolean): string | null {
  try {
    checkUrlSyntax(url, {
      requireHttps: livemode,
      allowLoopback: config.webhookAllowLoopback,
      allowLoopbackHttp: config.webhookAllowLoopback,
    });
    return null;
  } catch (e) {
    if (e instanceof UnsafeUrlError) return e.message;
    throw e;
  }
}

let deps: PaymentDeps | undefined;

export function paymentDeps(clock: Clock = systemClock): PaymentDeps {
  deps ??= {
    store: paymentRepository(documentClient(), tableName),
    refunds: refundRepository(documentClient(), tableName),
    refundRails: sandboxRefundRails(
      sqsClient(),
      () => config.queueUrl('payouts'),
      () => config.refundSettlementDelaySeconds,
      // Live refunds go to the settlement worker at once; it sends them to the provider (or reads them back).
      liveRefundRail(sqsClient(), () => config.queueUrl('payouts')),
    ),
    connectors: connectorRegistry(baseUrl, liveConnectors),
    merchants: repositories.merchants,
    ids: randomIds,
    clock: systemClock,
    baseUrl,
    checkNotificationUrl,
    publisher: eventPublisher,
    speiDeposits: speiDepositRepository(documentClient(), tableName),
    notificationLog: notificationLogRepository(documentClient(), tableName),
    attempts: routingObserver,
    readBack: (d, p) =>
      readBackOnRead(d, p, {
        lostIntentSeconds: config.providerLostIntentSeconds,
        checkIntervalSeconds: config.providerCheckIntervalSeconds,
      }),
  };
  return clock === systemClock ? deps : { ...deps, clock };
}

/**
 * QR images of payment codes: only the routes that render one (direct PIX, the PIX QR page) reach the encoder,
 * and they load it with the first image they draw (a chunk of its own when bundled, issue 31): a card or
 * voucher payment never loads it.
 */
export const qrCodes: QrCodes = {
  pngDataUri: async (text) => (await import('../adapters/qr')).qrPngDataUri(text),
  png: async (text) => (await import('../adapters/qr')).qrPng(text),
};
