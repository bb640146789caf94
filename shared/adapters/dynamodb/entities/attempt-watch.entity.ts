/**
 * An abandoned attempt watched for a late success (DESIGN.md 9.2; shared/domain/payments/attempt-watch.ts): its own
 * item keyed by the provider and our reference there, on the work index by when it is read back next.
 */
import type { AttemptWatch } from '../../../domain/payments/attempt-watch';
import { envelope, indexKeys, type EntityModel } from '../keys';
import { putNew } from './writes';
import type { TaggedWrite } from '../transact';

const model = { entity: 'attempt_watch', version: 1 } as const;
const key = (provider: string, reference: string) => ({ PK: `ATTEMPT#${provider}#${reference}`, SK: 'ATTEMPT' });

export const attemptWatchEntity = {
  ...model,
  key,
  item: (w: AttemptWatch) => ({
    ...key(w.provider, w.reference),
    ...indexKeys.attemptWatch(w.reference, w.next_check_at),
    ...envelope(model),
    ...w,
  }),
  /** The watch starts with the failover that abandons its attempt (one reference is abandoned once). */
  create: (tableName: string, w: AttemptWatch): TaggedWrite => putNew('attempt_watch', tableName, attemptWatchEntity.item(w)),
} as const satisfies EntityModel;
