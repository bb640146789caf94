/**
 * Local pay-ins held by an aggregator (issue 32): a payment the shopper finishes on the provider's (or the bank's)
 * page, a `redirect` (PSE, Nequi, Yape, Webpay, a bank transfer), or a `ticket` paid elsewhere (PagoEfectivo's
 * CIP, Efecty, Servipag). The intent is committed before `create`; what the provider holds is only learned by
 * reading it back (never from a notification's body).
 */
import type { CountryCode, CurrencyCode } from '../../domain/geo';
import type { WalletChoice } from '../../domain/payments/methods';

/**
 * How the shopper pays a held local payment: on the provider's page, with a ticket paid elsewhere, or by scanning a
 * QR our page shows with its countdown (Bre-B; a crypto order, which also has the provider's checkout page).
 */
export type LocalFlow = 'redirect' | 'ticket' | 'qr';

export { WALLET_CHOICES, type WalletChoice } from '../../domain/payments/methods';

export interface LocalPaymentRequest {
  readonly paymentId: string;
  /** Our method code (svc-mt-*) in the payment's country. */
  readonly methodCode: string;
  readonly amountMinor: number;
  readonly currency: CurrencyCode;
  readonly country: CountryCode;
  readonly payer: { readonly name: string; readonly email: string; readonly document: string };
  readonly description?: string;
  /** Our notification route and where the payer's browser comes back from the provider's page. */
  readonly notificationUrl: string;
  readonly returnUrl: string;
  /** The wallet the shopper chose, for a method served by several wallets (one the connector serves). */
  readonly wallet?: WalletChoice;
  /** When the payment stops being payable here (ISO 8601): a QR order should expire no later. */
  readonly expiresAt?: string;
  /** When the payment was made (ISO 8601): what a provider's own expiry is counted from, so a retry asks the same. */
  readonly createdAt?: string;
  /** Shown to the shopper by the provider (a crypto order's goods name); at most 100 characters. */
  readonly merchantName?: string;
}

/** What the shopper is given once the provider holds the payment. */
export type LocalPaymentArtefact =
  | { readonly kind: 'redirect'; readonly redirectUrl: string }
  /** The ticket's fields as the provider gives them: number, barcode, reference, expiration_date, image_url, ... */
  | { readonly kind: 'ticket'; readonly ticket: Readonly<Record<string, string>> }
  /**
   * A QR our page shows (its content, rendered by us), with its expiry when the provider gives one, and the provider's
   * own checkout page when it has one (a crypto order: pay on Binance's page or scan its QR).
   */
  | { readonly kind: 'qr'; readonly qrContent: string; readonly expiresAt?: string; readonly checkoutUrl?: string };

/**
 * A payment priced by the provider in another currency (a crypto order in a fiat session): what it asks the shopper
 * to pay, as the provider quoted it. The payment keeps its own amount; this is shown beside it.
 */
export interface ProviderQuote {
  /** The currency the shopper pays in (USDT). */
  readonly currency: string;
  /** The amount the provider quoted, as a decimal string (up to 8 places). */
  readonly amount: string;
}

/** Where a held local payment stands at the provider. */
export type LocalPaymentOutcome =
  | { readonly kind: 'pending' }
  | { readonly kind: 'paid'; readonly at: string | null; readonly amountMinor: number }
  | { readonly kind: 'failed'; readonly code: string }
  | { readonly kind: 'cancelled' }
  | { readonly kind: 'expired' };

/** A payment as the provider holds it: its id there, where it stands, and the artefact while it is open. */
export type LocalPaymentState =
  | { readonly kind: 'not_found' }
  | {
      readonly providerPaymentId: string;
      readonly outcome: LocalPaymentOutcome;
      readonly artefact?: LocalPaymentArtefact;
      /** A payment the provider priced in another currency: its quote (and, once paid, what was paid). */
      readonly quote?: ProviderQuote;
    };

export type FoundLocalPayment = Exclude<LocalPaymentState, { kind: 'not_found' }>;

export interface HeldLocalPaymentConnector {
  readonly provider: { readonly name: string; reference(paymentId: string): string };
  /** The flow of a method code in a country it serves live, or null (not offered live). */
  flowOf(methodCode: string, country: CountryCode): LocalFlow | null;
  /** The wallets it serves for a method code in a country (in the order offered), or an empty list. */
  walletsOf?(methodCode: string, country: CountryCode): readonly WalletChoice[];
  /**
   * Creates the payment at the provider (the intent is already committed). A second create for the same payment (a
   * retry after a lost answer) is answered by reading the payment back, never by a second payment.
   * ProviderUnavailable: outcome unknown; ProviderRejected: none was made.
   */
  create(req: LocalPaymentRequest): Promise<FoundLocalPayment>;
  /** The payment read back by our reference (never taken from a notification body). */
  get(paymentId: string): Promise<LocalPaymentState>;
  /** The payment read back by the provider's id. */
  getByProviderId(providerPaymentId: string): Promise<LocalPaymentState>;
}

/**
 * Our routes of a local provider: its notifications, and where the shopper's browser comes back from its page. The
 * route segment is the provider's name as the providers document spells it, with hyphens (binance_pay: binance-pay).
 */
export const heldLocalPaths = (provider: string, paymentId: string) => {
  const segment = provider.replace(/_/g, '-');
  return { notifications: `/providers/${segment}/notifications`, return: `/providers/${segment}/return/${paymentId}` };
};

/** A verified notification of a held local payment: which payment to read back (and the status it claims, for the log). */
export type LocalNotification =
  | {
      readonly kind: 'payment';
      readonly paymentId: string | null;
      readonly providerPaymentId: string;
      readonly claimed: string;
      /** A card payment's: the attempt's reference it names (only the payment's current attempt's applies). */
      readonly cardReference?: string;
    }
  | {
      readonly kind: 'refund';
      readonly refundId: string | null;
      /** Our payment, when the notification names its order. */
      readonly paymentId: string | null;
      readonly providerRefundId: string;
      readonly providerPaymentId: string;
      readonly claimed: string;
    }
  /**
   * A PIX charge the provider holds as one of its PIX rail's (pix.ts), named by our reference for the attempt: read
   * back through that rail and applied as PIX (pix-reconcile.ts), only for a payment held there under that reference.
   */
  | {
      readonly kind: 'pix';
      readonly reference: string;
      /** Our payment the reference names, or null when it is not one of ours. */
      readonly paymentId: string | null;
      readonly providerPaymentId: string;
      readonly claimed: string;
    };

export type RequestHeaders = Readonly<Record<string, string | string[] | undefined>>;

export type LocalNotificationParse = { readonly item: LocalNotification } | { readonly forged: true } | null;

export interface LocalPaymentNotifications {
  readonly provider: string;
  /**
   * The signature checked over the raw body before anything of it is read: `forged` (bad or missing signature),
   * null (signed, but not the provider's shape), or what to read back.
   */
  parse(headers: RequestHeaders, rawBody: string): LocalNotificationParse | Promise<LocalNotificationParse>;
  /** The body the provider expects in answer to a notification taken (dLocal: none; Binance Pay: its return code). */
  readonly acknowledgement?: unknown;
}
