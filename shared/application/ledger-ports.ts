/** Reading the ledger: each currency's entries newest first, by position, and sums past a time. */
import type { Mode } from '../domain/access';
import type { LedgerEntry } from '../domain/ledger';

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
