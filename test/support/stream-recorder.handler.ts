/** A stream consumer for test/integration/stream-poller.test.ts: records the PK of each record it is given. */
import type { DynamoDBStreamEvent } from 'aws-lambda';

export const recorded: string[] = [];

export async function handler(event: DynamoDBStreamEvent): Promise<void> {
  for (const r of event.Records) recorded.push(r.dynamodb?.NewImage?.PK?.S ?? '');
}
