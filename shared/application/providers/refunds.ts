/** Live refund connectors: a received Pix's devolução, a held card's refund, a local payment an aggregator holds. */
import type { CurrencyCode } from '../../domain/geo';

/** A refund as the provider holds it: our refund id, and pending / succeeded / failed. */
export type ProviderRefundState =
  | { readonly refundId: string; readonly kind: 'pending' }
  | { readonly refundId: string; readonly kind: 'succeeded'; readonly at: string }
  | { readonly refundId: string; readonly kind: 'failed'; readonly reason: string };

/** Live refunds of a received Pix (its end-to-end id), by our refund id. */
export interface PixRefundConnector {
  /** The connector's name and the provider-side id of a refund, derived from our refund id. */
  readonly provider: { readonly name: string; reference(refundId: string): string };
  /**
   * false: the provider takes no idempotency key on a send (an aggregator's refunds), so a send whose answer was lost
   * must be found by reading it back, never sent again: one sender at a time, reading back under its claim, and a
   * notification's settlement only reads. Absent or true: a send repeated with our refund id is the same refund.
   */
  readonly repeatable?: boolean;
  send(req: {
    endToEndId: string;
    refundId: string;
    amountMinor: number;
    description?: string;
    /** The provider's id of the payment the Pix paid, when the charge's opening kept it (a provider that refunds by it). */
    providerPaymentId?: string;
    /** Our public API's root, for a provider that reports the refund's final state to a URL given with it. */
    callbackBaseUrl?: string;
  }): Promise<ProviderRefundState>;
  /** null: the provider has no such refund (it was never sent). */
  get(req: { endToEndId: string; refundId: string; providerPaymentId?: string }): Promise<ProviderRefundState | null>;
}

/**
 * Live refunds of a held card payment (its provider reference), idempotent by our refund id. The provider only
 * acknowledges a request (pending): its notification settles it.
 */
export interface CardRefundConnector {
  readonly provider: { readonly name: string; reference(refundId: string): string };
  send(req: { pspReference: string; refundId: string; amountMinor: number; currency: CurrencyCode }): Promise<ProviderRefundState>;
}

/**
 * Live refunds of a local payment an aggregator holds (its id there), idempotent by our refund id: `get` reads our
 * refund back first, `send` only when the provider has never seen it. The provider answers pending, or final.
 */
export interface LocalRefundConnector {
  readonly provider: { readonly name: string; reference(refundId: string): string };
  send(req: {
    providerPaymentId: string;
    refundId: string;
    amountMinor: number;
    currency: CurrencyCode;
    /** The payment's own amount (a provider that priced it in another currency refunds in proportion). */
    paymentAmountMinor?: number;
    /** Our notification route, where the provider reports the refund's final state. */
    notificationUrl: string;
  }): Promise<ProviderRefundState>;
  /**
   * Our refund as the provider holds it; null only when the provider says it has none (never sent). When the
   * provider cannot say (no answer, or refunds it cannot tell apart), ProviderUnavailable: never a second refund.
   */
  get(req: { providerPaymentId: string; refundId: string }): Promise<ProviderRefundState | null>;
}
