/**
 * Live payout connectors (SPEI to a CLABE, PIX by key or bank account, bank transfers): one port every payout
 * provider implements. The order is prepared (and kept, sealed) before the payout is committed, sent after with
 * our reference derived from the payout id as its idempotent id, read back by that reference, and its state
 * callbacks parsed (the use case reads the order back before anything moves).
 */

/** The bank account a payout pays when its method is a bank transfer (full account: never logged). */
export interface PayoutBankAccount {
  readonly bankCode: string;
  readonly accountNumber: string;
  readonly accountType: 'checking' | 'savings';
}

/** A payout as the provider is asked to pay it (full account, key and document: never logged). */
export interface PayoutOrderRequest {
  readonly payoutId: string;
  /** Our reference for this attempt (provider.reference(payoutId, attempt), a failover's); absent: the first attempt's. */
  readonly reference?: string;
  /** Our payout method code (svc-mt-*): which rail and country. */
  readonly methodCode: string;
  readonly amountMinor: number;
  readonly currency: string;
  readonly beneficiaryName: string;
  readonly beneficiaryDocument: string;
  readonly documentType: string;
  /** The instant-transfer key (a CLABE, a PIX key, a CVU or CBU), trimmed; null when the method pays a bank account. */
  readonly instantTransferKey: string | null;
  readonly instantTransferType: string | null;
  readonly bankAccount: PayoutBankAccount | null;
  readonly concept: string | null;
  /** The root of our public API (a provider told its notification URL per order appends its route). */
  readonly callbackBaseUrl: string;
}

/** A payout order as the provider holds it (read back: never taken from a callback body). */
export type ProviderOrderState =
  | { readonly kind: 'not_found' }
  /** `held`: the provider holds it for review (compliance, on hold): still in flight. */
  | { readonly kind: 'pending'; readonly orderId?: string; readonly held?: boolean }
  | { readonly kind: 'settled'; readonly orderId?: string; readonly at?: string }
  /** `failureCode`: our failure code for it when the provider names why (else cancelled_by_bank). */
  | { readonly kind: 'cancelled'; readonly orderId?: string; readonly reason: string; readonly failureCode?: string }
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
 * A live payout rail: the order is prepared (and kept) before the payout is committed, registered after, and
 * read back by our reference. The provider refuses a second order with one reference (or answers it with the
 * order it holds), so a resend never pays twice.
 */
export interface PayoutConnector {
  readonly provider: { readonly name: string; reference(payoutId: string, attempt?: number): string };
  /** The order for a payout, or why this beneficiary cannot be paid (a 4xx with nothing written). */
  prepare(req: PayoutOrderRequest): { readonly order: ProviderOrder } | { readonly invalid: string };
  /**
   * Registers the order: its id at the provider, or `duplicate` when the provider already holds an order with
   * this reference (an earlier send got through). `state`: where the order stands when the provider's answer says
   * it (a payout refused or paid at once). ProviderUnavailable: outcome unknown; ProviderRejected: none made.
   */
  register(
    order: Pick<ProviderOrder, 'reference' | 'sealed'>,
  ): Promise<{ readonly orderId: string; readonly state?: ProviderOrderState } | { readonly duplicate: true }>;
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
  /** `pending`: a change that ends nothing (on hold, sent to the bank): the order is read back all the same. */
  readonly claimed: 'pending' | 'settled' | 'cancelled' | 'returned';
  /** Our failure code of a cancellation the callback explains (the read-back may not): used once it confirms it. */
  readonly reasonHint?: string | null;
}

/** The payout provider's callbacks: token check and parser (the use case reads each order back). */
export interface PayoutCallbacks {
  tokenMatches(token: string): boolean;
  parseState(body: unknown): PayoutStateItem | null;
  /** Every order one callback names (a provider may batch them); absent: the one parseState gives. */
  parseAll?(body: unknown): readonly PayoutStateItem[] | null;
  payoutIdOf(reference: string): string | null;
}

export type NotificationHeaders = Readonly<Record<string, string | string[] | undefined>>;

/**
 * A payout provider's signed notifications: the signature is checked over the raw body before anything of it is
 * read (`forged`: nothing parsed); null: not the provider's shape; else the order it names (read back before use).
 */
export interface SignedPayoutNotifications {
  parse(headers: NotificationHeaders, rawBody: string): { readonly item: PayoutStateItem } | { readonly forged: true } | null;
  payoutIdOf(reference: string): string | null;
}
