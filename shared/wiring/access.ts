/** Request access: the API-key authenticator (with its cache), the rate limiter and the idempotency store. */
import { randomSecrets, systemClock } from '../adapters/crypto';
import { documentClient } from '../adapters/aws-clients';
import { idempotencyRecords } from '../adapters/dynamodb/idempotency.store';
import type { IdempotencyRecords } from '../application/ports';
import { makeAuthenticator, type Authenticator, makeRateLimiter, type RateLimiter } from '../application/access';
import { config } from '../config';
import { repositories, tableName } from './repositories';

let auth: Authenticator | undefined;
let limiter: RateLimiter | undefined;

export function authenticator(): Authenticator {
  auth ??= makeAuthenticator({
    apiKeys: repositories.apiKeys,
    merchants: repositories.merchants,
    secrets: randomSecrets,
    clock: systemClock,
    cacheTtlMs: () => config.authCacheTtlMs,
    allowedModes: () => config.allowedKeyModes,
  });
  return auth;
}

export function rateLimiter(): RateLimiter {
  limiter ??= makeRateLimiter({ counter: repositories.rateLimits, clock: systemClock });
  return limiter;
}

let records: IdempotencyRecords | undefined;

/** The idempotency records of keyed requests (the HTTP runner's claim, answer and release). */
export function idempotencyStore(): IdempotencyRecords {
  records ??= idempotencyRecords(documentClient(), tableName);
  return records;
}
