/**
 * The provider side of pay-ins: one interface per method kind, as a payment
 * switch's connectors. The sandbox simulator implements them; a live provider
 * plugs in behind the same interfaces. No connector means METHOD_NOT_AVAILABLE.
 */
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

/** The provider's order, as kept on the payout so that every send for one payout is the same request. */
export type ProviderOrder = Readonly<Record<string, string | number>>;

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
  register(order: ProviderOrder): Promise<{ readonly orderId: string } | { readonly duplicate: true }>;
  get(reference: string): Promise<ProviderOrderState>;
}

/** An order-state callback, parsed: which order (our reference), the provider's order id, and the state it claims. */
export interface PayoutStateItem {
  readonly reference: string;
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
}

/** Live SPEI pay-ins: a CLABE per payment under the platform's account, and the deposit callback's check and parser. */
export interface SpeiDepositConnector {
  readonly provider: { readonly name: string };
  /** The payment's CLABE; `attempt` > 0 gives another one when the first is already taken. */
  clabeFor(paymentId: string, attempt: number): string;
  tokenMatches(token: string): boolean;
  parseDeposit(body: unknown): IncomingDeposit | null;
}

/** A mode's connectors: the sandbox has every kind; live has the kinds whose provider is configured. */
export interface Connectors {
  readonly card?: CardConnector;
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
