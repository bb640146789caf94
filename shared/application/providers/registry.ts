/**
 * The provider side of pay-ins: one interface per method kind, as a payment
 * switch's connectors. The sandbox simulator implements them; a live provider
 * plugs in behind the same interfaces. No connector means METHOD_NOT_AVAILABLE.
 */
import type { CardConnector, CardNotifications, HeldCardConnector } from './card';
import type { SpeiDepositConnector } from './deposits';
import type { HeldLocalPaymentConnector, LocalPaymentNotifications } from './local';
import type { PayoutCallbacks, PayoutConnector, SignedPayoutNotifications } from './payouts';
import type { PixCallbacks, PixConnector, PixDisputeReader } from './pix';
import type { CardRefundConnector, LocalRefundConnector, PixRefundConnector } from './refunds';
import type { HeldVoucherConnector, VoucherConnector, WalletConnector } from './voucher';

/** A mode's connectors: the sandbox has every kind; live has the kinds whose provider is configured. */
export interface Connectors {
  readonly card?: CardConnector;
  /** Live cards held by a provider (replaces `card` in live mode when configured). */
  readonly heldCard?: HeldCardConnector;
  readonly cardNotifications?: CardNotifications;
  readonly cardRefunds?: CardRefundConnector;
  readonly heldVoucher?: HeldVoucherConnector;
  readonly pix?: PixConnector;
  readonly voucher?: VoucherConnector;
  readonly wallet?: WalletConnector;
  readonly pixRefunds?: PixRefundConnector;
  readonly pixCallbacks?: PixCallbacks;
  /** Infractions (MED) against received Pix, read on a schedule. */
  readonly pixDisputes?: PixDisputeReader;
  /** Live payouts to a CLABE (SPEI) and their state callbacks. */
  readonly speiPayouts?: PayoutConnector;
  readonly speiPayoutCallbacks?: PayoutCallbacks;
  /** Live PIX payouts (by key or bank account) and their state callbacks. */
  readonly pixPayouts?: PayoutConnector;
  readonly pixPayoutCallbacks?: PayoutCallbacks;
  /** Live bank-transfer payouts (bank accounts, CVU/CBU) and their signed notifications. */
  readonly bankPayouts?: PayoutConnector;
  readonly bankPayoutNotifications?: SignedPayoutNotifications;
  readonly speiDeposits?: SpeiDepositConnector;
  /** Live local pay-ins an aggregator holds (a redirect or a ticket) and its signed notifications. */
  readonly heldLocal?: HeldLocalPaymentConnector;
  readonly localNotifications?: LocalPaymentNotifications;
  /** Live refunds of those local payments (their notifications come through `localNotifications`). */
  readonly localRefunds?: LocalRefundConnector;
}

export interface ConnectorRegistry {
  /** The connectors of a mode, or null when none is configured. Live connectors may load their configuration. */
  forMode(livemode: boolean): Promise<Connectors | null>;
}
