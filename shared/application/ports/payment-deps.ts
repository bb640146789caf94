/** Dependencies of the pay-in use cases, passed in (hexagonal): storage, connectors, ids, clock, links. */
import type { ConnectorRegistry, NotificationLog } from '../providers';
import type { Payment } from '../../domain/payments/payment';
import type { PaymentStore } from './payment-ports';
import type { RefundRails, RefundStore } from './refund-ports';
import type { Clock, EventPublisher, IdGenerator, MerchantRepository } from './ports';
import type { SpeiDepositStore } from './deposit-ports';

/** Where routing tells what it saw (the wiring logs and counts it: dashboards, alarms, `providers stats`). */
export interface AttemptObserver {
  /** One call at a provider for a routed kind: its result and how long it took. */
  attempt(provider: string, kind: string, result: 'approved' | 'pending' | 'declined' | 'rejected' | 'no_answer', latencyMs: number): void;
  breakerChanged(provider: string, kind: string, to: 'closed' | 'open' | 'half_open'): void;
  /** A failover happened: from one provider to the next, and why (our code). */
  failedOver(provider: string, kind: string, failureCode: string): void;
  /** A provider's approval rate fell below its usual level (this container's view): this pages. */
  approvalDropped?(provider: string, kind: string, rate: number, usual: number): void;
  /** An abandoned attempt was found to have moved money after all, and was undone: this pages. */
  lateSuccess(provider: string, kind: string, undone: 'removed' | 'refunded' | 'cancelled'): void;
}

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
  /**
   * A status read of a payment a live provider holds asks the provider once more (bounded per payment): the
   * wiring passes the rails' read-back here, below which payments cannot import (absent: stored state only).
   */
  readonly readBack?: (deps: PaymentDeps, payment: Payment) => Promise<Payment>;
  /** Routing's observations (absent: not told; tests). */
  readonly attempts?: AttemptObserver;
}
