/** Live payout connectors (SPEI to a CLABE): the order, its read-back and the provider's state callbacks. */

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
