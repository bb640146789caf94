/**
 * The provider side of pay-ins: one interface per method kind, as a payment
 * switch's connectors. The sandbox simulator implements them; a live provider
 * plugs in behind the same interfaces. No connector means METHOD_NOT_AVAILABLE.
 */
import type { BillingAddress } from '../domain/payments/payment.schemas';
import type { DisputeSignal } from '../domain/payments/dispute';
import type { NotificationRecord } from './notification-log';
import type { CountryCode, CurrencyCode } from '../domain/geo';
import type { CardInput } from '../domain/payments/payment.schemas';

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

export interface PixChargeRequest {
  readonly paymentId: string;
  readonly amountMinor: number;
  readonly merchantName: string;
  /** When the charge was created (the intent's time) and when it stops accepting payment. */
  readonly createdAt: string;
  readonly expiresAt: string;
  /** The payer, when the customer's document is known (a live charge then names its debtor). */
  readonly debtor?: { readonly document: string; readonly name: string };
  readonly description?: string | null;
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
  readonly provider?: { readonly name: string; reference(paymentId: string): string };
  createCharge(req: PixChargeRequest): Promise<PixCharge>;
  /** Live providers: reads the charge back. */
  getCharge?(reference: string): Promise<PixChargeState>;
  /** Live providers: stops the charge from accepting payment; answers the state after (a paid charge stays paid). */
  removeCharge?(reference: string): Promise<PixChargeState>;
}

/** A refund as the provider holds it: our refund id, and pending / succeeded / failed. */
export type ProviderRefundState =
  | { readonly refundId: string; readonly kind: 'pending' }
  | { readonly refundId: string; readonly kind: 'succeeded'; readonly at: string }
  | { readonly refundId: string; readonly kind: 'failed'; readonly reason: string };

/** Live refunds of a received Pix (its end-to-end id), idempotent by our refund id. */
export interface PixRefundConnector {
  /** The connector's name and the provider-side id of a refund, derived from our refund id. */
  readonly provider: { readonly name: string; reference(refundId: string): string };
  send(req: { endToEndId: string; refundId: string; amountMinor: number; description?: string }): Promise<ProviderRefundState>;
  /** null: the provider has no such refund (it was never sent). */
  get(req: { endToEndId: string; refundId: string }): Promise<ProviderRefundState | null>;
}

/**
 * Live refunds of a held card payment (its provider reference), idempotent by our refund id. The provider only
 * acknowledges a request (pending): its notification settles it.
 */
export interface CardRefundConnector {
  readonly provider: { readonly name: string; reference(refundId: string): string };
  send(req: { pspReference: string; refundId: string; amountMinor: number; currency: CurrencyCode }): Promise<ProviderRefundState>;
}

/** A pay-in callback item, parsed and verified by the provider's connector: only what to read back. */
export interface PixCallbackItem {
  readonly reference: string;
  readonly endToEndId: string;
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

/** Methods whose artefact the customer pays elsewhere: boleto, cash voucher, CIP, SPEI/bank transfer. */
export type VoucherKind = 'boleto' | 'cash' | 'cip' | 'spei' | 'bank_transfer';

export interface VoucherConnector {
  issue(req: {
    kind: VoucherKind;
    paymentId: string;
    amountMinor: number;
    currency: CurrencyCode;
    country: CountryCode;
    dueAt: string;
  }): Promise<Record<string, string>>;
}

/** A voucher (cash slip) issued by a provider that holds the payment: intent before call, its notification settles it. */
export interface HeldVoucherConnector {
  readonly provider: { readonly name: string; reference(paymentId: string): string };
  /** The method kinds and countries it issues (e.g. cash in Mexico: OXXO). */
  serves(kind: PaymentMethodKind, country: CountryCode): boolean;
  issue(req: {
    paymentId: string;
    kind: VoucherKind;
    amountMinor: number;
    currency: CurrencyCode;
    country: CountryCode;
    /** The shopper; a boleto's payer also carries the document (digits) and the billing address. */
    shopper: { readonly name: string; readonly email: string; readonly document: string; readonly address?: BillingAddress };
    /** When the voucher stops being payable (a boleto's due date). */
    dueAt: string;
    returnUrl: string;
  }): Promise<{ readonly artefact: Readonly<Record<string, string>>; readonly details: Readonly<Record<string, string>> }>;
}

type PaymentMethodKind = VoucherKind | 'card' | 'pix' | 'wallet';

export interface WalletConnector {
  /** The URL where the customer approves the payment in their wallet. */
  start(req: { paymentId: string; amountMinor: number; currency: CurrencyCode; country: CountryCode }): Promise<{ redirectUrl: string }>;
}

/** A payout to a CLABE as the provider is asked to pay it (full account and document: never logged). */
export interface PayoutOrderRequest {
  readonly payoutId: string;
  readonly amountMinor: number;
  readonly clabe: string;
  readonly beneficiaryName: string;
  readonly beneficiaryDocument: string;
  readonly concept: string | null;
}

/** A payout order as the provider holds it (read back: never taken from a callback body). */
export type ProviderOrderState =
  | { readonly kind: 'not_found' }
  | { readonly kind: 'pending'; readonly orderId?: string }
  | { readonly kind: 'settled'; readonly orderId?: string; readonly at?: string }
  | { readonly kind: 'cancelled'; readonly orderId?: string; readonly reason: string }
  | { readonly kind: 'returned'; readonly orderId?: string; readonly at?: string; readonly reason: string };

/**
 * The provider's order as a payout keeps it so that every send is the same request: a summary with documents
 * and accounts masked (stored in clear), and the exact order sealed by the connector (opaque to the use cases).
 */
export interface ProviderOrder {
  /** Our reference of the order (derived from the payout id): the seal is bound to it. */
  readonly reference: string;
  readonly summary: Readonly<Record<string, string | number>>;
  readonly sealed: string;
}

/**
 * Live payouts to a CLABE: the order is prepared (and kept) before the payout is committed, registered after,
 * and read back by our reference. The provider refuses a second order with one reference.
 */
export interface PayoutConnector {
  readonly provider: { readonly name: string; reference(payoutId: string): string };
  /** The order for a payout, or why this beneficiary cannot be paid (a 4xx with nothing written). */
  prepare(req: PayoutOrderRequest): { readonly order: ProviderOrder } | { readonly invalid: string };
  /**
   * Registers the order: its id at the provider, or `duplicate` when the provider already holds an order with
   * this reference (an earlier send got through). ProviderUnavailable: outcome unknown; ProviderRejected: none made.
   */
  register(order: Pick<ProviderOrder, 'reference' | 'sealed'>): Promise<{ readonly orderId: string } | { readonly duplicate: true }>;
  get(reference: string): Promise<ProviderOrderState>;
  /** How long (seconds) a completed payout is still read back for a return the provider may not call back. */
  readonly returnWatchSeconds: number;
}

/**
 * An order-state callback, parsed: the provider's order id (the order is found by it first), our reference when
 * the callback carries one (an order the provider knows only by its id has none), and the state it claims.
 */
export interface PayoutStateItem {
  readonly reference?: string;
  readonly orderId: string;
  readonly claimed: 'settled' | 'cancelled' | 'returned';
}

/** The payout provider's callbacks: token check and parser (the use case reads each order back). */
export interface PayoutCallbacks {
  tokenMatches(token: string): boolean;
  parseState(body: unknown): PayoutStateItem | null;
  payoutIdOf(reference: string): string | null;
}

/** An incoming transfer to one of our pay-in accounts, as the provider's callback reports it. */
export interface IncomingDeposit {
  /** The provider's id of the deposit: the idempotency key of its record. */
  readonly depositId: string;
  readonly clabe: string;
  readonly amountMinor: number;
  readonly trackingKey: string;
  readonly paidAt: string;
  /** The provider's operation date of the deposit (YYYYMMDD), when the callback gives it: its query needs it. */
  readonly operationDate?: string;
}

/** What the provider's own record of a deposit says of a callback: the same deposit, none, or another one. */
export type DepositConfirmation = 'confirmed' | 'not_found' | 'differs';

/** Live SPEI pay-ins: a CLABE per payment under the platform's account, and the deposit callback's check and parser. */
export interface SpeiDepositConnector {
  readonly provider: { readonly name: string };
  /** The payment's CLABE; `attempt` > 0 gives another one when the first is already taken. */
  clabeFor(paymentId: string, attempt: number): string;
  tokenMatches(token: string): boolean;
  parseDeposit(body: unknown): IncomingDeposit | null;
  /**
   * The deposit read back from the provider (a callback body alone is never trusted): confirmed only when the
   * provider holds a settled deposit with this tracking key, account and amount. ProviderUnavailable: no answer.
   */
  confirm(d: IncomingDeposit): Promise<DepositConfirmation>;
}

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
  /** Live payouts to a CLABE (SPEI) and their state callbacks. */
  readonly speiPayouts?: PayoutConnector;
  readonly speiPayoutCallbacks?: PayoutCallbacks;
  readonly speiDeposits?: SpeiDepositConnector;
}

export interface ConnectorRegistry {
  /** The connectors of a mode, or null when none is configured. Live connectors may load their configuration. */
  forMode(livemode: boolean): Promise<Connectors | null>;
}

/**
 * The provider could not give an answer: timeout, connection refused, TLS failure, 5xx, or auth that did
 * not recover. The outcome of the call is unknown; the object stays open with its reference and the
 * reconciliation job resolves it.
 */
export class ProviderUnavailable extends Error {
  constructor(
    readonly provider: string,
    readonly operation: string,
    readonly reason: string,
  ) {
    super(`${provider} ${operation}: ${reason}`);
    this.name = 'ProviderUnavailable';
  }
}

/** The provider answered a definite no (its 4xx): nothing was created there. `code` is ours, never its text. */
export class ProviderRejected extends Error {
  constructor(
    readonly provider: string,
    readonly operation: string,
    readonly code: string,
    readonly status: number,
  ) {
    super(`${provider} ${operation} refused (${status}): ${code}`);
    this.name = 'ProviderRejected';
  }
}
