/**
 * The table's stream, as the event dispatcher reads it: the event items its records insert. Other records
 * (every other entity, modifications, removals) are not the dispatcher's; on AWS the event source mapping's
 * filter (shared/manifest/streams.ts) already drops them, and this check repeats it so the worker is right
 * without it.
 */
import type { DynamoDBRecord } from 'aws-lambda';
import { eventEntity } from './entities/event.entity';

/** The id of the event a stream record inserted, or null when the record is not an event insert. */
export function insertedEventId(record: DynamoDBRecord): string | null {
  const image = record.dynamodb?.NewImage;
  if (record.eventName !== 'INSERT' || !image || image.entity?.S !== eventEntity.entity) return null;
  const id = image.event_id?.S;
  return id && id.length > 0 ? id : null;
}
