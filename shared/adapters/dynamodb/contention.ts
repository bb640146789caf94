/**
 * Contention on one item (issue 34): DynamoDB cancels a transaction that touches an item another transaction or
 * write is touching (TransactionConflict), and a single write to an item of an in-flight transaction fails
 * (TransactionConflictException). The merchant's balance item is the one every payout and refund debits, so their
 * debits take turns on it. A write keeps asking for its turn until its deadline: a request's is set by the HTTP
 * handler from its own budget (withWriteDeadline), well inside the function's timeout; a worker's is a fixed budget
 * per transaction (the fold's, one for its whole run: ledger-fold.ts). Past it, the request answers 503
 * BUSY_RETRY_SAME_KEY with Retry-After: nothing was written, and the idempotency record of the attempt is deleted
 * with the thrown error, so the same key is free for the retry.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { AppError } from '../../domain/errors';

/** How long a worker's transaction keeps asking for its turn (no request deadline): well inside its 30 s timeout. */
export const CONFLICT_BUDGET_MS = 8000;

/**
 * How long a request keeps asking for its turn on a contended item, from the start of its handler: long enough for
 * a queue of debits on one balance to drain at 64 concurrent requests, short enough that a request that still has
 * not had its turn answers 503 (to be retried) well before a p99 of 5 s and the functions' 10 s timeout.
 */
export const REQUEST_WRITE_BUDGET_MS = 3500;

/** What a 503 BUSY_RETRY_SAME_KEY tells the client to wait, in seconds. */
export const BUSY_RETRY_AFTER_SECONDS = 1;

const deadlines = new AsyncLocalStorage<number>();

/** Runs `work` with a deadline (epoch ms) for every write it makes that meets contention. */
export function withWriteDeadline<T>(deadline: number, work: () => Promise<T>): Promise<T> {
  return deadlines.run(deadline, work);
}

/** Whether a deadline is already set for the writes made here (a request's, or a worker's run). */
export const hasWriteDeadline = (): boolean => deadlines.getStore() !== undefined;

/** The deadline of the write starting now: the request's, or now + the worker budget. */
export function writeDeadline(budgetMs = CONFLICT_BUDGET_MS): number {
  return deadlines.getStore() ?? Date.now() + budgetMs;
}

/**
 * A write that did not get its turn by its deadline. Not an AppError, as the raw SDK error it replaces was not:
 * use cases that treat any AppError as a business refusal (and swallow it) let this one through to the caller;
 * the HTTP layer answers it with busyAppError (responses.ts), a worker's message is retried by its queue.
 */
export class ContentionError extends Error {
  override readonly name = 'ContentionError';
}

export const busyError = () => new ContentionError('A write did not get its turn on a contended item before its deadline.');

/** The answer to a write that did not get its turn: 503, retry with the same key after Retry-After. */
export function busyAppError(): AppError {
  return new AppError('BUSY_RETRY_SAME_KEY', undefined, { headers: { 'retry-after': String(BUSY_RETRY_AFTER_SECONDS) } });
}

/** Cancellation reasons that sending the same transaction again can pass: another writer on an item, or a throttle. */
export const RETRYABLE_REASONS: ReadonlySet<string> = new Set(['TransactionConflict', 'ThrottlingError']);

/** Errors of a single write (or a whole request) that another try can pass: a conflict, or a throttle. */
const SINGLE_WRITE_CONTENTION: ReadonlySet<string> = new Set([
  'TransactionConflictException',
  'ProvisionedThroughputExceededException',
  'ThrottlingException',
]);

/**
 * Whether an error is contention the caller may retry (SDK errors by name, so this module needs no SDK import): a
 * write past its deadline, a single write that met a transaction, a transaction cancelled only for conflicts or
 * throttling, or a throttle the SDK's own retries did not outlast.
 */
export function isContention(e: unknown): boolean {
  const name = (e as { name?: unknown } | null)?.name;
  if (e instanceof ContentionError) return true;
  // Wrapped by a library (Powertools idempotency's persistence errors carry the SDK's error as their cause).
  const cause = (e as { cause?: unknown } | null)?.cause;
  if (cause !== undefined && cause !== e && isContention(cause)) return true;
  if (typeof name === 'string' && SINGLE_WRITE_CONTENTION.has(name)) return true;
  if (name !== 'TransactionCanceledException') return false;
  const codes = ((e as { CancellationReasons?: Array<{ Code?: string }> }).CancellationReasons ?? []).map((r) => r.Code ?? 'None');
  return codes.some((c) => RETRYABLE_REASONS.has(c)) && codes.every((c) => c === 'None' || RETRYABLE_REASONS.has(c));
}

/**
 * Full jitter over an exponential ceiling (10 ms, 20 ms, ... capped at 250 ms). A write that has waited more than
 * a second keeps a short ceiling (25 ms): the oldest waiters ask more often than newcomers, so they take the item
 * first instead of starving behind them (the tail of the latency is the writes that waited longest).
 */
export function conflictBackoff(attempt: number, waitedMs = 0): Promise<void> {
  const ceiling = waitedMs > 1000 ? 25 : Math.min(250, 10 * 2 ** (attempt - 1));
  return new Promise((r) => setTimeout(r, Math.random() * ceiling));
}
