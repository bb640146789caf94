/** TransactWriteItems with a typed answer to "which condition failed". */
import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { TransactWriteCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { WriteConflict } from '../../application/payment-ports';

export type TxItem = NonNullable<ConstructorParameters<typeof TransactWriteCommand>[0]['TransactItems']>[number];
export type TxPart = WriteConflict['part'];

/** Runs the items as one transaction; a failed condition becomes WriteConflict naming parts[i] of the item that failed. */
export async function transact(db: DynamoDBDocumentClient, items: TxItem[], parts: TxPart[]): Promise<void> {
  try {
    await db.send(new TransactWriteCommand({ TransactItems: items }));
  } catch (e) {
    if (e instanceof TransactionCanceledException) {
      const i = (e.CancellationReasons ?? []).findIndex((r) => r.Code === 'ConditionalCheckFailed');
      throw new WriteConflict(i >= 0 ? (parts[i] ?? 'other') : 'other');
    }
    throw e;
  }
}
