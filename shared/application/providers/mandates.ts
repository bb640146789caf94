/**
 * Recurring collection under a payer's standing authorisation (DESIGN.md 9.3): a Pix Automático recurrence held by
 * a PSP (API Pix `rec`, its charges `cobr`) and a card stored at an acquirer for merchant-initiated charges. What the
 * mandate use cases ask of a provider; the connectors live in shared/adapters/providers/<provider>/.
 */
import type { CountryCode, CurrencyCode } from '../../domain/geo';
import type { CardSummary } from '../../domain/payments/payment';
import type { HeldCardOutcome, HeldCardRequest, ShopperRedirect } from './card';

import type { MandateFrequency, MandateRetryPolicy } from '../../domain/mandates/mandate';

export type { MandateFrequency, MandateRetryPolicy } from '../../domain/mandates/mandate';

/** One Pix Automático recurrence to set up at the PSP for one mandate of ours. */
export interface PixMandateRequest {
  readonly mandateId: string;
  /** Our reference the PSP keeps with the recurrence (provider.reference(mandateId)): how an unanswered create is found. */
  readonly reference: string;
  /** The payer (the debtor the PSP names in the recurrence). */
  readonly debtor: { readonly document: string; readonly name: string };
  /** What the payer authorises, shown in the bank app. */
  readonly description: string;
  readonly frequency: MandateFrequency;
  /** YYYY-MM-DD. */
  readonly startDate: string;
  readonly endDate?: string;
  /** A fixed amount per cycle (minor units); absent: a variable amount (our max_amount is ours to enforce). */
  readonly amountMinor?: number;
  readonly retryPolicy: MandateRetryPolicy;
  /** Jornada 1: a push request to the payer's PSP. Absent: Jornada 2, a recurrence QR shown to the payer. */
  readonly payer?: { readonly ispb: string; readonly agency?: string; readonly account?: string };
  /** When the approval request stops being valid (ISO). */
  readonly approvalExpiresAt: string;
  readonly createdAt: string;
}

/** What the PSP answered a create with: its recurrence id and what the payer approves. */
export interface PixMandateCreated {
  readonly providerMandateId: string;
  readonly approval: { readonly type: 'pix_qr'; readonly pixCode: string } | { readonly type: 'pix_request'; readonly requestId: string };
}

/** A recurrence as the PSP holds it now (read back: never taken from a callback body). */
export type PixMandateState =
  | { readonly kind: 'not_found' }
  | { readonly kind: 'pending'; readonly providerMandateId: string }
  | { readonly kind: 'active'; readonly providerMandateId: string; readonly at: string }
  | { readonly kind: 'rejected'; readonly providerMandateId: string; readonly at: string }
  | { readonly kind: 'cancelled'; readonly providerMandateId: string; readonly by: 'payer' | 'receiver' | 'provider'; readonly at: string }
  | { readonly kind: 'expired'; readonly providerMandateId: string; readonly at: string };

/** One charge (a `cobr`) of an active recurrence. */
export interface PixMandateChargeRequest {
  readonly paymentId: string;
  /** Our reference of the charge (provider.chargeReference(paymentId)). */
  readonly reference: string;
  readonly providerMandateId: string;
  readonly amountMinor: number;
  /** YYYY-MM-DD. */
  readonly dueDate: string;
  readonly description?: string | null;
  readonly retryPolicy: MandateRetryPolicy;
}

/** One settlement attempt of a charge on a day, as the PSP reports it. */
export interface PixMandateChargeAttempt {
  readonly date: string;
  readonly outcome: 'scheduled' | 'paid' | 'failed';
  /** The PSP's reason for a failed attempt, mapped to our failure code. */
  readonly failureCode?: string;
}

/** A charge as the PSP holds it now (read back). */
export type PixMandateChargeState =
  | { readonly kind: 'not_found' }
  | { readonly kind: 'scheduled'; readonly attempts: readonly PixMandateChargeAttempt[] }
  | {
      readonly kind: 'paid';
      readonly endToEndId: string;
      readonly amountMinor: number;
      readonly paidAt: string;
      readonly attempts: readonly PixMandateChargeAttempt[];
    }
  | {
      readonly kind: 'failed';
      readonly failureCode: string;
      readonly message: string;
      readonly attempts: readonly PixMandateChargeAttempt[];
    }
  | { readonly kind: 'cancelled'; readonly attempts: readonly PixMandateChargeAttempt[] };

export interface PixMandateConnector {
  readonly provider: {
    readonly name: string;
    reference(mandateId: string): string;
    chargeReference(paymentId: string): string;
  };
  /**
   * The days before its due date inside which a charge may be sent (the central bank's rule for Pix Automático):
   * a charge due sooner than `min` or later than `max` days from today is refused before any call.
   */
  readonly chargeWindowDays: { readonly min: number; readonly max: number };
  /** Sets up the recurrence and what the payer approves (Jornada 2 QR, or Jornada 1 request when `payer` is given). */
  create(req: PixMandateRequest): Promise<PixMandateCreated>;
  /** Reads the recurrence back: by the PSP's id when known, else by our reference among those made around `createdAt`. */
  get(q: { readonly providerMandateId?: string; readonly reference: string; readonly createdAt: string }): Promise<PixMandateState>;
  /** Cancels the recurrence (by the receiver); answers the state after. */
  cancel(providerMandateId: string): Promise<PixMandateState>;
  /** Sends a charge; the same request again for the same reference changes nothing (the PSP keeps the first). */
  createCharge(req: PixMandateChargeRequest): Promise<PixMandateChargeState>;
  getCharge(reference: string): Promise<PixMandateChargeState>;
  /**
   * A new attempt of a charge whose attempt failed, on `date` (YYYY-MM-DD), where the PSP takes retries from the
   * receiver (API Pix: POST /cobr/{txid}/retentativa/{date}, under PERMITE_3R_7D only); absent where it does not.
   */
  retryCharge?(reference: string, date: string): Promise<PixMandateChargeState>;
}

/** The PSP's recurrence and charge callbacks (API Pix `webhookrec`, `webhookcobr`): what to read back. */
export interface PixMandateCallbacks {
  /** Constant-time check of the unguessable token in the callback URL. */
  tokenMatches(token: string): boolean;
  /** The recurrence ids a `webhookrec` body names, or null when it is not that shape. */
  parseRecurrences(body: unknown): { readonly providerMandateIds: readonly string[]; readonly ignored: number } | null;
  /** The charge references (txids) a `webhookcobr` body names, or null when it is not that shape. */
  parseCharges(body: unknown): { readonly references: readonly string[]; readonly ignored: number } | null;
  /** Our payment id for a charge reference of ours, or null when the reference is not one we derive. */
  paymentIdOf(reference: string): string | null;
}

/** A PSP's Pix Automático: its connector and callbacks, and its webhook registration (the ops CLI). */
export interface PixMandateRail {
  readonly mandates: PixMandateConnector;
  readonly callbacks: PixMandateCallbacks;
}

/** The approval of a card mandate: a zero-value authorisation, authenticated, that stores the card. */
export interface StoreCardRequest extends Omit<HeldCardRequest, 'paymentId' | 'amountMinor' | 'installments' | 'reference'> {
  readonly mandateId: string;
  /** Our reference of the approval at the provider (provider.reference(mandateId)). */
  readonly reference: string;
  /** The shopper the card is stored under (provider.shopperReference(mandateId)). */
  readonly shopperReference: string;
}

export type StoreCardOutcome =
  | { readonly kind: 'stored'; readonly storedPaymentMethodId: string; readonly card: CardSummary; readonly pspReference: string }
  | Extract<HeldCardOutcome, { kind: 'declined' | 'pending' }>
  | { readonly kind: 'redirect'; readonly redirect: ShopperRedirect; readonly pspReference?: string };

/** A merchant-initiated charge on a stored card (no shopper present, no 3-D Secure). */
export interface StoredCardChargeRequest {
  readonly paymentId: string;
  /** This attempt's reference (the held-card connector's reference(paymentId)). */
  readonly reference: string;
  readonly amountMinor: number;
  readonly currency: CurrencyCode;
  readonly country: CountryCode;
  readonly shopperReference: string;
  readonly storedPaymentMethodId: string;
  readonly description?: string | null;
  /**
   * Where the provider would send a shopper back (the held card's return URL of this payment): a merchant-initiated
   * charge never redirects, yet a provider's API may require the field (Adyen's /payments does).
   */
  readonly returnUrl: string;
}

export interface StoredCardConnector {
  readonly provider: {
    readonly name: string;
    reference(mandateId: string): string;
    shopperReference(mandateId: string): string;
  };
  /** The approval's authorisation (zero value, 3-D Secure, card stored for subscriptions). */
  store(req: StoreCardRequest): Promise<StoreCardOutcome>;
  /** The shopper came back from authentication with the provider's result. */
  completeStore(req: { readonly mandateId: string; readonly redirectResult: string }): Promise<StoreCardOutcome>;
  /** A charge on the stored card (ContAuth, subscription): decided at once, or pending the provider's notification. */
  charge(req: StoredCardChargeRequest): Promise<HeldCardOutcome>;
  /** The stored card disabled at the provider (a cancelled mandate): no charge can use it again. */
  disable(req: { readonly shopperReference: string; readonly storedPaymentMethodId: string }): Promise<void>;
}
