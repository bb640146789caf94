/** What the dispute use cases need from storage (DESIGN.md 9.4). */
import type { DisputeCase, DisputeCaseStatus } from '../../domain/disputes/dispute-case';
import type { DomainEvent } from '../../domain/events';
import type { IdempotencyDone } from './idempotency-ports';
import type { Committed } from './payment-ports';

export interface DisputeListQuery {
  readonly status?: DisputeCaseStatus;
  readonly paymentId?: string;
  readonly from?: string;
  readonly to?: string;
  readonly limit: number;
  readonly offset: number;
  /** Cursor pagination: the page starts right after this dispute (offset is then 0). */
  readonly startingAfter?: DisputeCase;
}

export interface DisputeStore {
  get(disputeId: string): Promise<DisputeCase | null>;
  list(merchantId: string, mode: string, q: DisputeListQuery): Promise<{ items: DisputeCase[]; total: number; more: boolean }>;
  /**
   * The case as changed by its merchant or a job, with its events (and a keyed request's answer), conditional on the
   * revision read: WriteConflict('dispute') when it moved meanwhile.
   */
  save(op: { next: DisputeCase; readRevision: number; events: DomainEvent[]; now: string; done?: IdempotencyDone }): Promise<Committed>;
  /** Stores a staging's documents (base64, in order) before the case names it. */
  putDocuments(disputeId: string, stagingId: string, contents: readonly string[], now: string): Promise<void>;
  /** A staged document's base64 (its place in the staging), or null when gone. */
  readDocument(disputeId: string, stagingId: string, n: number): Promise<string | null>;
  /** Deletes a staging's documents (one replaced, or never named by a commit that failed). */
  deleteDocuments(disputeId: string, stagingId: string): Promise<void>;
  /** Cases whose 48-hour warning is due at `now`, from the work index (no Scan). */
  dueForWarning(now: string, limit: number): Promise<string[]>;
}
