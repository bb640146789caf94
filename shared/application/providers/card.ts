/** Card connectors: the sandbox's authoriser, a provider that holds live cards, and its notifications. */
import type { DisputeSignal } from '../../domain/payments/dispute';
import type { CountryCode, CurrencyCode } from '../../domain/geo';
import type { CardInput } from '../../domain/payments/payment.schemas';
import type { NotificationRecord } from './notification-log';
import type { RequestHeaders } from './local';

export type DeclineCode = 'CARD_DECLINED' | 'INSUFFICIENT_FUNDS' | 'EXPIRED_CARD' | 'INCORRECT_CVC';

export type CardOutcome =
  | { readonly kind: 'approved'; readonly authorizationCode: string }
  | { readonly kind: 'requires_3ds' }
  | { readonly kind: 'declined'; readonly code: DeclineCode; readonly message: string };

export interface CardConnector {
  authorize(req: {
    paymentId: string;
    amountMinor: number;
    currency: CurrencyCode;
    card: CardInput;
    installments: number;
  }): Promise<CardOutcome>;
  /** Completes a 3-D Secure challenge: authenticated -> approved, else declined. */
  completeChallenge(req: { paymentId: string; authenticated: boolean }): Promise<CardOutcome>;
}

/** The browser of a hosted-page shopper, for 3-D Secure 2 (what the page collected). */
export interface ShopperBrowser {
  readonly acceptHeader: string;
  readonly userAgent: string;
  readonly language: string;
  readonly colorDepth: number;
  readonly screenHeight: number;
  readonly screenWidth: number;
  readonly timeZoneOffset: number;
  readonly javaEnabled: boolean;
}

/** A live card authorisation held by a provider: our ids, the raw card (never logged or stored), where 3DS returns. */
export interface HeldCardRequest {
  readonly paymentId: string;
  readonly amountMinor: number;
  readonly currency: CurrencyCode;
  readonly country: CountryCode;
  readonly card: CardInput;
  readonly installments: number;
  readonly shopper: { readonly reference: string; readonly email: string };
  /** Our 3-D Secure return URL: the provider sends the shopper back here. */
  readonly returnUrl: string;
  readonly browser?: ShopperBrowser;
  /** This attempt's reference (provider.reference(paymentId, attempt)); absent: the first attempt's. */
  readonly reference?: string;
  /** The payer's document (and name), for a provider that requires it; one that does not ignores it. */
  readonly payer?: { readonly name?: string; readonly document: string };
  /** Our notification route, for a provider that takes it per payment (one configured elsewhere ignores it). */
  readonly notificationUrl?: string;
}

/** Where the shopper must go to authenticate (the provider's action): a GET, or a POST of form fields. */
export interface ShopperRedirect {
  readonly url: string;
  readonly method: 'GET' | 'POST';
  readonly data: Readonly<Record<string, string>>;
}

/** A held card's outcome: decided, waiting on the shopper's authentication, or waiting on the provider's notification. */
export type HeldCardOutcome =
  | { readonly kind: 'approved'; readonly authorizationCode: string; readonly pspReference: string }
  | {
      readonly kind: 'declined';
      readonly code: DeclineCode | 'AUTHENTICATION_FAILED';
      readonly message: string;
      readonly providerCode: string;
      readonly pspReference?: string;
      /**
       * A soft decline (the provider's own table, in its transformers): the issuer never said no (an acquirer's
       * error, an issuer it could not reach), so another acquirer may be tried, once per payment (DESIGN.md 9.2).
       */
      readonly soft?: true;
    }
  | { readonly kind: 'redirect'; readonly redirect: ShopperRedirect; readonly pspReference?: string }
  | { readonly kind: 'pending'; readonly pspReference?: string };

/** What a read-back by an attempt's reference finds: the attempt's outcome there, or certainly nothing. */
export type HeldCardReadBack = HeldCardOutcome | { readonly kind: 'not_found' };

/**
 * Live cards through a provider that holds the payment (intent before call, reconciliation by reference). Each
 * attempt of a payment (routing and failover, DESIGN.md 9.2) has its own reference, `provider.reference(paymentId,
 * attempt)`: attempt 1's is the payment's reference as before routing.
 */
export interface HeldCardConnector {
  readonly provider: { readonly name: string; reference(paymentId: string, attempt?: number): string };
  authorize(req: HeldCardRequest): Promise<HeldCardOutcome>;
  /** The shopper came back from authentication (with the provider's result token, when it gives one). */
  completeRedirect(req: { paymentId: string; redirectResult: string; reference?: string }): Promise<HeldCardOutcome>;
  /**
   * The attempt read back by its reference (default attempt 1's), for a provider that can be asked: what lets a
   * call that got no answer fail over (only when it finds nothing) and the job settle an open payment. A provider
   * without it is never failed over from after no answer.
   */
  readBack?(paymentId: string, opts?: { reference?: string }): Promise<HeldCardReadBack>;
  /** Seconds an open payment waits for the provider's outcome before it is cancelled by reference. */
  readonly cancelAfterSeconds: number;
  /**
   * Technical cancel by our reference (default attempt 1's): whatever the provider made of an unanswered call is
   * voided. A provider that can tell a paid payment (which a cancel cannot void) throws ProviderRejected
   * `paid_refund_required`: that money goes back by a refund.
   */
  cancelByReference(paymentId: string, opts?: { reference?: string }): Promise<void>;
  /**
   * The shopper authenticates at the provider's own URL (a GET), not through our forwarding page: the payment's
   * redirect_url is then that URL.
   */
  readonly redirectsDirectly?: boolean;
}

/** A provider notification item, verified by the connector before anything of it was read. */
export interface CardNotification {
  /** Idempotency: one effect per provider reference and event. */
  readonly key: string;
  readonly event: 'authorisation' | 'cancellation' | 'refund' | 'refund_failed' | 'capture' | 'dispute' | 'other';
  readonly eventCode: string;
  readonly success: boolean;
  /** Our payment id from the merchant reference (or the original reference), when it is one of ours. */
  readonly paymentId: string | null;
  /** The attempt's reference it names (the merchant reference), when it names a payment's: only the current attempt's applies. */
  readonly reference?: string;
  /** Our refund id, for refund events whose merchant reference is one of our refunds. */
  readonly refundId: string | null;
  readonly pspReference: string;
  readonly amountMinor: number;
  readonly currency: string;
  readonly authorizationCode?: string;
  /** A dispute notice (chargeback, reversal, second chargeback, pre-arbitration), in our words. */
  readonly dispute?: {
    readonly signal: DisputeSignal;
    readonly reasonCode: string | null;
    /** Until when the case may be defended, when the notice says (ISO). */
    readonly deadline?: string | null;
  };
  /** What is kept in the notification log: the provider's fields, never card data or signatures. */
  readonly record: NotificationRecord;
  /**
   * The card mandate whose approval this item is about (its merchant reference is the stored-card connector's
   * reference(mandateId)), when it names one of ours: such an item never names a payment.
   */
  readonly mandateId?: string;
  /** The card stored at the provider by that approval (a successful authorisation or stored-card event), when it says. */
  readonly storedPaymentMethodId?: string;
  /** A decline's code of ours (AUTHORISATION success false). */
  readonly decline?: { readonly code: DeclineCode | 'AUTHENTICATION_FAILED'; readonly message: string };
}

/** A provider's notification intake: items whose signature verifies; the others are counted, never read. */
export interface CardNotifications {
  readonly provider: string;
  parse(body: unknown): { readonly items: readonly CardNotification[]; readonly forged: number } | null;
}

/**
 * A chargeback as its provider holds it, read back after a verified notice (a provider that notifies chargebacks on
 * a route of their own, dLocal's): what the dispute machinery needs, never the provider's status text.
 */
export interface CardChargeback {
  /** The provider's chargeback id: the dispute's provider reference (one dispute per chargeback). */
  readonly chargebackId: string;
  /** The provider's id of the disputed payment (what a paid attempt stored as its psp_reference). */
  readonly providerPaymentId: string;
  /** Our payment id, from the order of ours the chargeback names (null when it names none of ours). */
  readonly paymentId: string | null;
  /** The provider's status, for the log and the idempotency key (one effect per chargeback and status). */
  readonly status: string;
  /** What the status does to the money (null: nothing yet, or nothing at all). */
  readonly signal: DisputeSignal | null;
  readonly amountMinor: number;
  readonly currency: string;
  readonly reasonCode: string | null;
}

/** A provider's chargeback notices: verified over the raw body, then the chargeback read back from the provider. */
export interface CardChargebacks {
  readonly provider: string;
  /**
   * forged (the signature does not verify: nothing of it was read), null (not the chargeback shape), or the notice's
   * chargeback id with its read-back: the chargeback as the provider holds it now (null when it has none;
   * ProviderUnavailable when it did not answer).
   */
  parse(
    headers: RequestHeaders,
    rawBody: string,
  ): { readonly forged: true } | { readonly chargebackId: string; readBack(): Promise<CardChargeback | null> } | null;
}
