/**
 * Every entity's keys, declared in one place (ElectroDB style). No other module
 * assembles a PK, SK or GSI key string. Each item also carries `entity` and `version`.
 */
export const ENTITIES = {
  merchant: { entity: 'merchant', version: 1 },
  webhookSecret: { entity: 'webhook_secret', version: 1 },
  apiKey: { entity: 'api_key', version: 1 },
  rateLimitWindow: { entity: 'rate_limit_window', version: 1 },
} as const;

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
