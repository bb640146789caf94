/**
 * Every entity's keys, declared in one place (ElectroDB style). No other module
 * assembles a PK, SK or GSI key string. Each item also carries `entity` and `version`.
 */
export const ENTITIES = {
  merchant: { entity: 'merchant', version: 1 },
  webhookSecret: { entity: 'webhook_secret', version: 1 },
  apiKey: { entity: 'api_key', version: 1 },
  rateLimitWindow: { entity: 'rate_limit_window', version: 1 },
  session: { entity: 'checkout_session', version: 1 },
  payment: { entity: 'payment', version: 1 },
  balance: { entity: 'balance', version: 1 },
  ledgerEntry: { entity: 'ledger_entry', version: 1 },
  event: { entity: 'event', version: 1 },
  payout: { entity: 'payout', version: 1 },
  payoutCounters: { entity: 'payout_counters', version: 1 },
} as const;

/** Work partitions of GSI2 (due expiries, undispatched events): spread over a few shards. */
export const WORK_SHARDS = 4;
export function shardOf(id: string): number {
  let h = 0;
  for (let i = 0; i < id.length; i++) h = (h * 31 + id.charCodeAt(i)) >>> 0;
  return h % WORK_SHARDS;
}

export type EntityName = keyof typeof ENTITIES;

export const keys = {
  merchant: (merchantId: string) => ({ PK: `MERCHANT#${merchantId}`, SK: 'PROFILE' }),
  webhookSecret: (merchantId: string) => ({ PK: `MERCHANT#${merchantId}`, SK: 'WEBHOOK_SECRET' }),
  /** Keys are found by the hash of the presented key: one GetItem per authentication. */
  apiKey: (hash: string) => ({ PK: `APIKEY#${hash}`, SK: 'APIKEY' }),
  /** One fixed rate-limit window of one subject (merchant or session) on one route. */
  rateLimitWindow: (subject: string, routeId: string, windowStart: number) => ({
    PK: `RATELIMIT#${subject}#${routeId}`,
    SK: `WINDOW#${windowStart}`,
  }),
  /** Powertools idempotency record; the hashed key already holds merchant, mode, route and X-Idempotency-Key. */
  idempotencyRecord: (hashedKey: string) => ({ PK: `IDEMPOTENCY#${hashedKey}`, SK: 'IDEMPOTENCY' }),
  session: (sessionId: string) => ({ PK: `SESSION#${sessionId}`, SK: 'SESSION' }),
  payment: (paymentId: string) => ({ PK: `PAYMENT#${paymentId}`, SK: 'PAYMENT' }),
  event: (eventId: string) => ({ PK: `EVENT#${eventId}`, SK: 'EVENT' }),
  payout: (payoutId: string) => ({ PK: `PAYOUT#${payoutId}`, SK: 'PAYOUT' }),
  /** Per merchant and mode: total payouts and one count per status, kept in each payout transaction. */
  payoutCounters: (merchantId: string, mode: string) => ({ PK: `MERCHANT#${merchantId}`, SK: `PAYOUTCOUNT#${mode}` }),
  balance: (merchantId: string, mode: string, currency: string) => ({ PK: `MERCHANT#${merchantId}`, SK: `BALANCE#${mode}#${currency}` }),
  ledgerEntry: (merchantId: string, mode: string, currency: string, at: string, entryId: string) => ({
    PK: `MERCHANT#${merchantId}`,
    SK: `LEDGER#${mode}#${currency}#${at}#${entryId}`,
  }),
  ledgerPrefix: (mode: string, currency: string) => `LEDGER#${mode}#${currency}#`,
  balancePrefix: (mode: string) => `BALANCE#${mode}#`,
  /** GSI1: a merchant's objects of one kind in one mode, newest last by created_at. */
  listing: (merchantId: string, mode: string, entity: string, createdAt?: string, id?: string) => ({
    GSI1PK: `MERCHANT#${merchantId}#${mode}#${entity}`,
    ...(createdAt && id ? { GSI1SK: `${createdAt}#${id}` } : {}),
  }),
  /** GSI2: sessions and payments waiting for their expiry, present only while they can expire. */
  expiry: (id: string, expiresAt: string) => ({ GSI2PK: `EXPIRY#${shardOf(id)}`, GSI2SK: `${expiresAt}#${id}` }),
  expiryPartition: (shard: number) => `EXPIRY#${shard}`,
  /** GSI2: events not yet handed to the webhook queue (the outbox). */
  outbox: (eventId: string, createdAt: string) => ({ GSI2PK: `OUTBOX#${shardOf(eventId)}`, GSI2SK: `${createdAt}#${eventId}` }),
  outboxPartition: (shard: number) => `OUTBOX#${shard}`,
  /** A key that is never written: the health check reads it to prove the table answers. */
  healthProbe: () => ({ PK: 'HEALTH', SK: 'PROBE' }),
  /** GSI1: a merchant's keys, by key id. */
  apiKeysOfMerchant: (merchantId: string, keyId?: string) => ({
    GSI1PK: `MERCHANT#${merchantId}#APIKEYS`,
    ...(keyId ? { GSI1SK: keyId } : {}),
  }),
} as const;

/** The envelope every item carries besides its keys. */
export const envelope = (name: EntityName) => ({ ...ENTITIES[name] });

const KEY_ATTRIBUTES = ['PK', 'SK', 'GSI1PK', 'GSI1SK', 'GSI2PK', 'GSI2SK', 'entity', 'version', 'ttl'];

/** Drops keys and envelope attributes from a stored item, leaving the domain object. */
export function stripKeys<T>(item: Record<string, unknown>): T {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(item)) if (!KEY_ATTRIBUTES.includes(k) && !k.startsWith('_')) out[k] = v;
  return out as T;
}
