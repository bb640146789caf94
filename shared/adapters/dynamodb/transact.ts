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

  /** Runs the writes as one TransactWriteItems; a failed condition throws WriteConflict naming its entity. */
  async commit(db: DynamoDBDocumentClient): Promise<void> {
    try {
      await db.send(new TransactWriteCommand({ TransactItems: this.writes.map((w) => w.write) }));
    } catch (e) {
      if (e instanceof TransactionCanceledException) {
        const i = (e.CancellationReasons ?? []).findIndex((r) => r.Code === 'ConditionalCheckFailed');
        throw new WriteConflict(i >= 0 ? (this.writes[i]?.entity ?? 'unknown') : 'unknown');
      }
      throw e;
    }
  }
}

export const transaction = () => new Transaction();
