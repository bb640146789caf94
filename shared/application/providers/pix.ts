/**
 * PIX connectors: charges (sandbox or held by a provider), the provider's pay-in callbacks, and the dispute
 * signals of received Pix (the central bank's special return mechanism, MED: infractions and fraud returns).
 */
import type { DisputeSignal } from '../../domain/payments/dispute';
import type { PixRefundConnector, ProviderRefundState } from './refunds';

export interface PixChargeRequest {
  readonly paymentId: string;
  /** Our reference for this attempt (provider.reference(paymentId, attempt)); absent: the first attempt's. */
  readonly reference?: string;
  readonly amountMinor: number;
  readonly merchantName: string;
  /** When the charge was created (the intent's time) and when it stops accepting payment. */
  readonly createdAt: string;
  readonly expiresAt: string;
  /** The payer, when the customer's document is known (a live charge then names its debtor). */
  readonly debtor?: { readonly document: string; readonly name: string };
  readonly description?: string | null;
  /** The payer's e-mail (a provider that asks for it with the payer: an aggregator). */
  readonly payerEmail?: string;
  /** Our public API's root: a provider that posts its notifications to a URL given with each charge appends its route. */
  readonly callbackBaseUrl?: string;
}

export interface PixCharge {
  readonly pixCode: string;
  readonly txid: string;
  /** What the provider answered that is worth keeping (location, revision, ...). */
  readonly details?: Readonly<Record<string, string>>;
}

/** A Pix received against a charge, as the provider reports it. */
export interface ReceivedPix {
  readonly endToEndId: string;
  readonly amountMinor: number;
  readonly paidAt: string;
  /** Refunds (devoluções) of this Pix the provider reports, by our refund id. */
  readonly refunds: readonly ProviderRefundState[];
  /** Returns made for fraud (MED) that reached the payer, by the provider's id: never a refund of ours. */
  readonly fraudReturns: readonly PixFraudReturn[];
  /** The provider's id of the payment that received it, for a provider that refunds by that id (an aggregator). */
  readonly providerPaymentId?: string;
}

export interface PixFraudReturn {
  readonly id: string;
  readonly amountMinor: number;
  readonly at: string;
}

/** A charge as the provider holds it now (read back: never taken from a callback body). */
export type PixChargeState =
  | { readonly kind: 'not_found' }
  | { readonly kind: 'open'; readonly charge: PixCharge; readonly expiresAt: string }
  | { readonly kind: 'paid'; readonly charge: PixCharge; readonly received: readonly ReceivedPix[] }
  | { readonly kind: 'removed'; readonly received: readonly ReceivedPix[] };

export interface PixConnector {
  /**
   * Live providers: the connector's name and our reference for the charge, derived from the payment id
   * (known before the call, so the intent is committed with it). The sandbox has none.
   */
  readonly provider?: { readonly name: string; reference(paymentId: string, attempt?: number): string };
  /**
   * The PSP takes no expiry with the charge (an aggregator sets its own): the reconciliation removes it at the
   * payment's own expiry, or at the PSP's when that comes first. Absent: the PSP's expiry (the one we asked for).
   */
  readonly expiresWithPayment?: boolean;
  createCharge(req: PixChargeRequest): Promise<PixCharge>;
  /** Live providers: reads the charge back. */
  getCharge?(reference: string): Promise<PixChargeState>;
  /** Live providers: stops the charge from accepting payment; answers the state after (a paid charge stays paid). */
  removeCharge?(reference: string): Promise<PixChargeState>;
}

/** A pay-in callback item, parsed and verified by the provider's connector: only what to read back. */
export interface PixCallbackItem {
  readonly reference: string;
  readonly endToEndId: string;
  /** The body names a return that is not one of our refunds (a MED return): a hint to read the Pix back, never trusted. */
  readonly returnHint?: boolean;
}

/** The provider's pay-in callbacks: its token check and its body parser (the use case reads each item back). */
export interface PixCallbacks {
  /** Constant-time check of the unguessable token in the callback URL. */
  tokenMatches(token: string): boolean;
  /** The items of a callback body, or null when the body is not the provider's shape. */
  parse(body: unknown): { readonly items: readonly PixCallbackItem[]; readonly ignored: number } | null;
  /** Our payment id for a reference of ours, or null when the reference is not one we derive. */
  paymentIdOf(reference: string): string | null;
}

/** A dispute signal of a received Pix (a MED infraction as the PSP reports it), in our words. */
export interface PixDisputeNotice {
  /** One per infraction and signal (for logs; the payment's dispute stage makes the effect idempotent). */
  readonly key: string;
  readonly signal: DisputeSignal;
  /** The received Pix disputed. */
  readonly endToEndId: string;
  /** Our payment the Pix paid, from the charge reference the PSP reports with it; null when not one of ours. */
  readonly paymentId: string | null;
  /** The provider's id of the case. */
  readonly providerReference: string;
  /** Our word for the reported situation: scam, account_takeover, coercion, fraudulent_access, other. */
  readonly reasonCode: string;
  /** When the analysis must end, when the provider gives it. */
  readonly deadline: string | null;
  /**
   * Lost: the amount the fraud returns took back (minor units). Otherwise the amount the infraction claims (it
   * moves no money yet), or null when the provider gives none (the payment's amount is shown then).
   */
  readonly amountMinor: number | null;
  readonly at: string;
}

/** A PSP's live PIX pay-ins (a charge it holds), its callbacks and its refunds: one entry of the ordered set. */
export interface PixRail {
  readonly charges: PixConnector & { readonly provider: NonNullable<PixConnector['provider']> };
  readonly refunds?: PixRefundConnector;
  readonly callbacks?: PixCallbacks;
}

/** The PSP's infractions (MED) against Pix we received, read for a time window (no callback: a scheduled read). */
export interface PixDisputeReader {
  readonly provider: string;
  list(window: { since: Date; until: Date }): Promise<readonly PixDisputeNotice[]>;
}
