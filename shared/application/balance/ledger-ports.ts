/** Reading the ledger: each currency's entries newest first, by position, sums past a time, and the objects entries point at. */
import type { Mode } from '../../domain/access';
import type { LedgerEntry } from '../../domain/ledger';
import type { Payment } from '../../domain/payments/payment';
import type { Payout } from '../../domain/payouts/payout';
import type { Refund } from '../../domain/refunds/refund';

export interface LedgerPageQuery {
  /** Only entries strictly older than this position (created_at#entry_id). */
  readonly before?: string;
  /** created_at bounds, inclusive (ISO). */
  readonly from?: string;
  readonly to?: string;
  readonly limit: number;
}

export interface LedgerReader {
  /** One currency's entries, newest first; `more` when the range holds older ones. */
  entries(merchantId: string, mode: Mode, currency: string, q: LedgerPageQuery): Promise<{ items: LedgerEntry[]; more: boolean }>;
  /** The sum (minor units) of one currency's entries created after `after` (ISO). */
  sumAfter(merchantId: string, mode: Mode, currency: string, after: string): Promise<number>;
}

/** The objects ledger entries point at (source_id), read by id for the ops reconciliation listing. */
export interface SourceReader {
  payment(paymentId: string): Promise<Pick<Payment, 'merchant_id' | 'reference_id'> | null>;
  payout(payoutId: string): Promise<Pick<Payout, 'merchant_id' | 'metadata' | 'description'> | null>;
  refund(refundId: string): Promise<Pick<Refund, 'merchant_id' | 'payment_id' | 'reference_id'> | null>;
}

/** A credit committed with its ledger entry and not yet added to its balance (what the fold takes). */
export interface PendingCredit {
  readonly merchant_id: string;
  readonly mode: Mode;
  readonly currency: string;
  readonly amount_minor: number;
  readonly entry_id: string;
  readonly created_at: string;
}

/**
 * Moves pending credits into their balances, each exactly once (a credit already folded is skipped, whoever
 * folded it). Credits reach the balance this way instead of inside the payment's transaction, so no payment
 * writes the merchant's one balance item.
 */
export interface LedgerFolder {
  /** Folds these credits (from the table's stream); returns how many it added. */
  fold(credits: readonly PendingCredit[]): Promise<number>;
  /** Folds one merchant's pending credits (one currency, or all) now: before a balance read, or a debit the balance refused. */
  foldMerchant(merchantId: string, mode: Mode, currency?: string): Promise<number>;
  /** Folds pending credits created before `before` (ISO), at most `limit`: the backstop for a stream record never handled. */
  sweep(before: string, limit: number): Promise<{ folded: number; more: boolean }>;
}
