/**
 * A small transaction builder: each item carries the tag of the entity it writes, so a cancelled
 * transaction answers "which condition failed" with that entity (WriteConflict.entity) instead of an index
 * into a parallel array.
 */
import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { TransactWriteCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { WriteConflict, type EntityTag } from '../../application/ports';
import { busyError, conflictBackoff, CONFLICT_BUDGET_MS, isContention, RETRYABLE_REASONS, writeDeadline } from './contention';

export type TxItem = NonNullable<ConstructorParameters<typeof TransactWriteCommand>[0]['TransactItems']>[number];

/** One write of a transaction and the entity it belongs to. */
export interface TaggedWrite {
  readonly entity: EntityTag;
  readonly write: TxItem;
  /** Told once the transaction carrying this write committed (an idempotency record's answer: see its entity). */
  readonly committed?: () => void;
}

export class Transaction {
  private readonly writes: TaggedWrite[] = [];

  add(...writes: readonly (TaggedWrite | undefined | false)[]): this {
    for (const w of writes) if (w) this.writes.push(w);
    return this;
  }

  get size(): number {
    return this.writes.length;
  }

  /**
   * Runs the writes as one TransactWriteItems; a failed condition throws WriteConflict naming its entity.
   * DynamoDB cancels a transaction that touches an item another transaction or write is touching
   * (TransactionConflict), writing nothing, and the SDK does not retry that: it is sent again here, the same
   * request, after a short jittered backoff, until the write's deadline (contention.ts: the request's, or
   * `budgetMs` from now in a worker); past it, BUSY_RETRY_SAME_KEY (503, Retry-After). Sending the same
   * conditions again is the re-decision: if what they were decided on changed meanwhile, a condition fails and
   * the caller's WriteConflict path re-reads.
   */
  async commit(db: DynamoDBDocumentClient, budgetMs = CONFLICT_BUDGET_MS): Promise<void> {
    const started = Date.now();
    const deadline = writeDeadline(budgetMs);
    for (let attempt = 1; ; attempt++) {
      try {
        await db.send(new TransactWriteCommand({ TransactItems: this.writes.map((w) => w.write) }));
        for (const w of this.writes) w.committed?.();
        return;
      } catch (e) {
        if (!(e instanceof TransactionCanceledException)) {
          // A throttle the SDK's own retries did not outlast: the same turn-taking.
          if (isContention(e) && Date.now() < deadline) {
            await conflictBackoff(attempt, Date.now() - started);
            continue;
          }
          throw isContention(e) ? busyError() : e;
        }
        const reasons = e.CancellationReasons ?? [];
        const failed = reasons.findIndex((r) => r.Code === 'ConditionalCheckFailed');
        if (failed >= 0) throw new WriteConflict(this.writes[failed]?.entity ?? 'unknown');
        // Another transaction on an item, or a partition over its write limit: the same request, sent again, can pass.
        if (!reasons.some((r) => RETRYABLE_REASONS.has(r.Code ?? ''))) throw new WriteConflict('unknown');
        // Still contended at the deadline: nothing was written; the caller answers 503 and is retried with its key.
        if (Date.now() >= deadline) throw busyError();
        await conflictBackoff(attempt, Date.now() - started);
      }
    }
  }
}

export const transaction = () => new Transaction();

export { CONFLICT_BUDGET_MS, conflictBackoff } from './contention';
