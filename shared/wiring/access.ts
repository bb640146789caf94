/** Request access: the API-key authenticator (with its cache), the rate limiter and the idempotency store. */
import { randomSecrets, systemClock } from '../adapters/crypto';
import { idempotencyStore as singleTableIdempotencyStore } from '../adapters/dynamodb/idempotency.store';
import { makeAuthenticator, type Authenticator, makeRateLimiter, type RateLimiter } from '../application/access';
import { config } from '../config';
import { repositories } from './repositories';

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

export const idempotencyStore = singleTableIdempotencyStore;
