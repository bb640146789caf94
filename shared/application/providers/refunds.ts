/** Live refund connectors: a received Pix's devolução, a held card's refund. */
import type { CurrencyCode } from '../../domain/geo';

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
