/** Card connectors: the sandbox's authoriser, a provider that holds live cards, and its notifications. */
import type { DisputeSignal } from '../../domain/payments/dispute';
import type { CountryCode, CurrencyCode } from '../../domain/geo';
import type { CardInput } from '../../domain/payments/payment.schemas';
import type { NotificationRecord } from './notification-log';

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
    }
  | { readonly kind: 'redirect'; readonly redirect: ShopperRedirect; readonly pspReference?: string }
  | { readonly kind: 'pending'; readonly pspReference?: string };

/** Live cards through a provider that holds the payment (intent before call, reconciliation by reference). */
export interface HeldCardConnector {
  readonly provider: { readonly name: string; reference(paymentId: string): string };
  authorize(req: HeldCardRequest): Promise<HeldCardOutcome>;
  /** The shopper came back from authentication with the provider's result token. */
  completeRedirect(req: { paymentId: string; redirectResult: string }): Promise<HeldCardOutcome>;
  /** Seconds an open payment waits for the provider's outcome before it is cancelled by reference. */
  readonly cancelAfterSeconds: number;
  /** Technical cancel by our reference: whatever the provider made of an unanswered call is voided (asynchronous). */
  cancelByReference(paymentId: string): Promise<void>;
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
  /** Our refund id, for refund events whose merchant reference is one of our refunds. */
  readonly refundId: string | null;
  readonly pspReference: string;
  readonly amountMinor: number;
  readonly currency: string;
  readonly authorizationCode?: string;
  /** A dispute notice (chargeback, reversal, second chargeback, pre-arbitration), in our words. */
  readonly dispute?: { readonly signal: DisputeSignal; readonly reasonCode: string | null };
  /** What is kept in the notification log: the provider's fields, never card data or signatures. */
  readonly record: NotificationRecord;
  /** A decline's code of ours (AUTHORISATION success false). */
  readonly decline?: { readonly code: DeclineCode | 'AUTHENTICATION_FAILED'; readonly message: string };
}

/** A provider's notification intake: items whose signature verifies; the others are counted, never read. */
export interface CardNotifications {
  readonly provider: string;
  parse(body: unknown): { readonly items: readonly CardNotification[]; readonly forged: number } | null;
}
