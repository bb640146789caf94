/**
 * A provider's notification as received (after its signature verified), keyed by the provider's own idempotency
 * key (Adyen: pspReference + eventCode): written before its effect, marked with the outcome after, kept for
 * `NOTIFICATION_RETENTION_DAYS` (the table's TTL attribute, `ttl`) as the audit trail of what each provider told us.
 */
import { envelope, type EntityModel } from '../keys';

export const NOTIFICATION_RETENTION_DAYS = 400;

export const providerNotificationEntity = {
  entity: 'provider_notification',
  version: 1,
  key: (provider: string, key: string) => ({ PK: `NOTIFICATION#${provider}#${key}`, SK: 'NOTIFICATION' }),
  item: (provider: string, key: string, record: Readonly<Record<string, unknown>>, now: string) => ({
    ...providerNotificationEntity.key(provider, key),
    ...envelope(providerNotificationEntity),
    provider,
    notification_key: key,
    record,
    outcome: null,
    received_at: now,
    deliveries: 1,
    ttl: Math.floor(Date.parse(now) / 1000) + NOTIFICATION_RETENTION_DAYS * 86_400,
  }),
} as const satisfies EntityModel;
