/**
 * The table's stream, as the fold worker reads it: the pending credits its records insert. Other records
 * (every other entity, modifications, removals) are not the fold's; on AWS the event source mapping's filter
 * (shared/manifest/streams.ts) already drops them, and this check repeats it so the worker is right without it.
 */
import { unmarshallDynamoDB } from '@aws-lambda-powertools/commons/utils/unmarshallDynamoDB';
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import type { DynamoDBStreamEvent } from 'aws-lambda';
import type { PendingCredit } from '../../application/balance';
import * as z from '../../domain/zod';
import { pendingCreditEntity } from './entities/balance.entity';

const pendingCreditImage = z.object({
  entity: z.literal(pendingCreditEntity.entity),
  merchant_id: z.string(),
  mode: z.enum(['test', 'live']),
  currency: z.string(),
  amount_minor: z.number(),
  entry_id: z.string(),
  created_at: z.string(),
});

export function pendingCreditsOf(event: DynamoDBStreamEvent): { credits: PendingCredit[]; malformed: number } {
  const credits: PendingCredit[] = [];
  let malformed = 0;
  for (const record of event.Records) {
    const image = record.dynamodb?.NewImage;
    if (record.eventName !== 'INSERT' || !image || image.entity?.S !== pendingCreditEntity.entity) continue;
    const parsed = z.safeParse(pendingCreditImage, unmarshallDynamoDB(image as Record<string, AttributeValue>));
    if (parsed.success) {
      const { entity: _entity, ...credit } = parsed.data;
      credits.push(credit);
    } else malformed++;
  }
  return { credits, malformed };
}
