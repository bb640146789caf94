/**
 * A small transaction builder: each item carries the tag of the entity it writes, so a cancelled
 * transaction answers "which condition failed" with that entity (WriteConflict.entity) instead of an index
 * into a parallel array.
 */
import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { TransactWriteCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { WriteConflict, type EntityTag } from '../../application/ports';

export type TxItem = NonNullable<ConstructorParameters<typeof TransactWriteCommand>[0]['TransactItems']>[number];

/** One write of a transaction and the entity it belongs to. */
export interface TaggedWrite {
  readonly entity: EntityTag;
  readonly write: TxItem;
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
   * request, after a short jittered backoff. Sending the same conditions again is the re-decision: if what
   * they were decided on changed meanwhile, a condition fails and the caller's WriteConflict path re-reads.
   */
  async commit(db: DynamoDBDocumentClient, budgetMs = CONFLICT_BUDGET_MS): Promise<void> {
    const started = Date.now();
    for (let attempt = 1; ; attempt++) {
      try {
        await db.send(new TransactWriteCommand({ TransactItems: this.writes.map((w) => w.write) }));
        return;
      } catch (e) {
        if (!(e instanceof TransactionCanceledException)) throw e;
        const reasons = e.CancellationReasons ?? [];
        const failed = reasons.findIndex((r) => r.Code === 'ConditionalCheckFailed');
        if (failed >= 0) throw new WriteConflict(this.writes[failed]?.entity ?? 'unknown');
        // Another transaction on an item, or a partition over its write limit: the same request, sent again, can pass.
        const retryable = reasons.some((r) => r.Code === 'TransactionConflict' || r.Code === 'ThrottlingError');
        if (!retryable) throw new WriteConflict('unknown');
        // Still contended after the budget: a 5xx the caller may retry with its key.
        if (Date.now() - started >= budgetMs) throw e;
        await conflictBackoff(attempt);
      }
    }
  }
}

export const transaction = () => new Transaction();

/**
 * How long one transaction keeps trying while it meets TransactionConflict: a time, not a count, so a slow
 * engine or a long queue on one item (debits of one balance serialize) does not run out of tries before its
 * turn; well inside the functions' 10 s timeout.
 */
export const CONFLICT_BUDGET_MS = 8000;

/** Full jitter over an exponential ceiling (10 ms, 20 ms, ... capped at 250 ms). */
export function conflictBackoff(attempt: number): Promise<void> {
  const ceiling = Math.min(250, 10 * 2 ** (attempt - 1));
  return new Promise((r) => setTimeout(r, Math.random() * ceiling));
}
