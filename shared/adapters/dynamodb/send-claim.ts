/**
 * A send claim on an item (a live refund or payout whose provider request may be sent): `send_claimed_at` set
 * only while the item is in `status` and nobody claimed it within the lease. One sender at a time, so a request
 * still in flight (or hung) is never raced by a second send of the same order.
 */
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

type Key = Record<string, string>;

/** True when the claim is now the caller's (stamped `now`), false when the item moved on or another holds it. */
export async function claimSend(
  db: DynamoDBDocumentClient,
  op: { TableName: string; Key: Key; status: string; now: string; leaseSeconds: number },
): Promise<boolean> {
  const cutoff = new Date(Date.parse(op.now) - op.leaseSeconds * 1000).toISOString();
  try {
    await db.send(
      new UpdateCommand({
        TableName: op.TableName,
        Key: op.Key,
        UpdateExpression: 'SET send_claimed_at = :now',
        ConditionExpression: '#status = :status AND (attribute_not_exists(send_claimed_at) OR send_claimed_at <= :cutoff)',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':now': op.now, ':status': op.status, ':cutoff': cutoff },
      }),
    );
    return true;
  } catch (e) {
    if (e instanceof ConditionalCheckFailedException) return false;
    throw e;
  }
}

/** Ends the caller's claim (stamped `claimedAt`) early; a claim already taken by another is left alone. */
export async function releaseSend(db: DynamoDBDocumentClient, op: { TableName: string; Key: Key; claimedAt: string }): Promise<void> {
  try {
    await db.send(
      new UpdateCommand({
        TableName: op.TableName,
        Key: op.Key,
        UpdateExpression: 'REMOVE send_claimed_at',
        ConditionExpression: 'send_claimed_at = :at',
        ExpressionAttributeValues: { ':at': op.claimedAt },
      }),
    );
  } catch (e) {
    if (!(e instanceof ConditionalCheckFailedException)) throw e;
  }
}
