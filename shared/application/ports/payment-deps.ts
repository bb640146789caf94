/** Dependencies of the pay-in use cases, passed in (hexagonal): storage, connectors, ids, clock, links. */
import type { ConnectorRegistry, NotificationLog } from '../providers';
import type { PaymentStore } from './payment-ports';
import type { RefundRails, RefundStore } from './refund-ports';
import type { Clock, EventPublisher, IdGenerator, MerchantRepository } from './ports';
import type { SpeiDepositStore } from './deposit-ports';

export interface PaymentDeps {
  readonly store: PaymentStore;
  readonly refunds: RefundStore;
  /** Where refunds are sent (sandbox: settled by the settlement worker after a delay). */
  readonly refundRails: RefundRails;
  readonly connectors: ConnectorRegistry;
  readonly merchants: Pick<MerchantRepository, 'get'>;
  readonly ids: IdGenerator;
  readonly clock: Clock;
  /** SSRF guard for a submitted notification_url (no DNS: delivery checks again): an error message, or null when allowed. */
  readonly checkNotificationUrl: (url: string, livemode: boolean) => string | null;
  /** Public base URL of the service (checkout_url, 3DS and wallet pages, QR images). */
  readonly baseUrl: () => string;
  /** Hands each committed transaction's events to webhook delivery at once. */
  readonly publisher: EventPublisher;
  /** Live SPEI pay-ins: CLABE claims and deposit records (absent: no live SPEI pay-in). */
  readonly speiDeposits?: SpeiDepositStore;
  /** Live card notifications: the log that makes them idempotent by the provider's key (absent: test mode only). */
  readonly notificationLog?: NotificationLog;
}
