/**
 * The provider side of pay-ins: one interface per method kind, as a payment
 * switch's connectors. The sandbox simulator implements them; a live provider
 * plugs in behind the same interfaces. No connector means METHOD_NOT_AVAILABLE.
 */
import type { CountryCode } from '../../domain/geo';
import type { CardChargebacks, CardConnector, CardNotifications, HeldCardConnector } from './card';
import type { SpeiDepositConnector } from './deposits';
import type { HeldLocalPaymentConnector, LocalPaymentNotifications } from './local';
import type { PayoutCallbacks, PayoutConnector, SignedPayoutNotifications } from './payouts';
import type { CardDisputeConnector, PixInfractionDefense } from './disputes';
import type { PixMandateRail, StoredCardConnector } from './mandates';
import type { PixCallbacks, PixConnector, PixDisputeReader, PixRail } from './pix';
import type { CardRefundConnector, LocalRefundConnector, PixRefundConnector } from './refunds';
import type { CryptoOrderConnector, HeldVoucherConnector, VoucherConnector, WalletConnector } from './voucher';

/** A mode's connectors: the sandbox has every kind; live has the kinds whose provider is configured. */
export interface Connectors {
  readonly card?: CardConnector;
  /**
   * Live cards held by a provider (they replace `card` in live mode): every configured card provider, in the
   * providers document's fixed order (adyen, then dlocal); `route` orders them for one payment (DESIGN.md 9.2).
   */
  readonly cardRails?: readonly CardRail[];
  readonly heldVoucher?: HeldVoucherConnector;
  /** The sandbox's PIX charges (simulated); live ones are `pixRails`. */
  readonly pix?: PixConnector;
  /**
   * Live PIX pay-ins: every configured PSP that serves them, in the providers document's fixed order (the first
   * serves when no routing rule applies; `route` orders them for one payment, DESIGN.md 9.2).
   */
  readonly pixRails?: readonly PixRail[];
  /**
   * The ordered provider names to try for one payment of a routed kind (`card`, `pix`, `pix_payout`) in a country,
   * by the document's routing and the merchant's override; null when no rule applies (the fixed order serves).
   */
  readonly route?: (kind: string, country: CountryCode, merchantRules?: MerchantRouting) => string[] | null;
  readonly voucher?: VoucherConnector;
  readonly wallet?: WalletConnector;
  /** The sandbox's crypto orders (a simulated quote, QR and checkout page); live ones are `heldCrypto`. */
  readonly crypto?: CryptoOrderConnector;
  readonly pixRefunds?: PixRefundConnector;
  readonly pixCallbacks?: PixCallbacks;
  /** Infractions (MED) against received Pix, read on a schedule. */
  readonly pixDisputes?: PixDisputeReader;
  /** Live payouts to a CLABE (SPEI) and their state callbacks. */
  readonly speiPayouts?: PayoutConnector;
  readonly speiPayoutCallbacks?: PayoutCallbacks;
  /** Live PIX payouts (by key or bank account) and their state callbacks: `pixPayouts` is the first of `pixPayoutRails`. */
  readonly pixPayouts?: PayoutConnector;
  /** Every configured provider of live PIX payouts, in the document's fixed order (efi, then dlocal): routed by `route`. */
  readonly pixPayoutRails?: readonly PayoutConnector[];
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
  /** Live crypto orders (USDT, svc-mt-4) a crypto provider holds, its signed notifications and its refunds. */
  readonly heldCrypto?: HeldLocalPaymentConnector;
  readonly cryptoNotifications?: LocalPaymentNotifications;
  readonly cryptoRefunds?: LocalRefundConnector;
  /** Live Pix Automático (DESIGN.md 9.3): the API Pix PSP's recurrences and charges, with their callbacks. */
  readonly pixMandates?: PixMandateRail;
  /** Live card on file (DESIGN.md 9.3): cards stored at the acquirer for merchant-initiated charges. */
  readonly storedCards?: StoredCardConnector;
  /** Card chargebacks fought at the acquirer's disputes API (DESIGN.md 9.4). */
  readonly cardDisputes?: CardDisputeConnector;
  /** PIX infractions (MED) defended at the PSP that received the Pix (DESIGN.md 9.4). */
  readonly pixInfractionDefense?: PixInfractionDefense;
}

/** A merchant's routing overrides as stored: kind -> country or `*` -> rule. */
export type MerchantRouting = Readonly<Record<string, Readonly<Record<string, { providers: string[]; split?: number[] }>>>>;

/** The live PIX rail of a PSP by its name (a stored payment's provider, a callback's route), or null. */
export const pixRailOf = (c: Connectors | null | undefined, provider: string | undefined): PixRail | null =>
  (provider ? c?.pixRails?.find((r) => r.charges.provider.name === provider) : undefined) ?? null;

/**
 * One provider's live cards: its card payments, their refunds (acknowledged by the provider and settled by its
 * notification, or read back by our refund: a local aggregator's) and its own notification intake, if it has one.
 */
export interface CardRail {
  readonly cards: HeldCardConnector;
  readonly refunds?: CardRefundConnector | LocalRefundConnector;
  readonly notifications?: CardNotifications;
  /** Its chargeback notices, when the provider sends them on a route of their own (dLocal's). */
  readonly chargebacks?: CardChargebacks;
  /**
   * Serves only the payments a routing rule sends to it (the document's or the merchant's): never the default card
   * provider, so a stage whose document adds this provider for other methods does not start taking cards through it.
   */
  readonly routedOnly?: boolean;
}

/** The live card rail of a provider by its name (a stored payment's provider, a callback's route), or null. */
export const cardRailOf = (c: Connectors | null | undefined, provider: string | undefined): CardRail | null =>
  (provider ? c?.cardRails?.find((r) => r.cards.provider.name === provider) : undefined) ?? null;

/** Refunds a provider reads back by our refund (LocalRefundConnector), not only acknowledges. */
export const readsBackRefunds = (r: CardRail['refunds']): r is LocalRefundConnector => Boolean(r && 'get' in r);

/** One provider's held local payments with their notifications and refunds (dLocal's; a crypto provider's). */
export interface LocalRail {
  readonly payments: HeldLocalPaymentConnector;
  readonly notifications?: LocalPaymentNotifications;
  readonly refunds?: LocalRefundConnector;
}

/** The configured local rails, in the order a method is looked up: the local aggregator first, then crypto. */
export function localRails(c: Connectors): LocalRail[] {
  const rails: LocalRail[] = [];
  if (c.heldLocal) rails.push({ payments: c.heldLocal, notifications: c.localNotifications, refunds: c.localRefunds });
  if (c.heldCrypto) rails.push({ payments: c.heldCrypto, notifications: c.cryptoNotifications, refunds: c.cryptoRefunds });
  return rails;
}

/** The local rail of a provider by its name (a stored payment's provider, a notification's route), or null. */
export const localRailOf = (c: Connectors | null | undefined, provider: string | undefined): LocalRail | null =>
  (c && provider ? localRails(c).find((r) => r.payments.provider.name === provider) : undefined) ?? null;

export interface ConnectorRegistry {
  /** The connectors of a mode, or null when none is configured. Live connectors may load their configuration. */
  forMode(livemode: boolean): Promise<Connectors | null>;
}
