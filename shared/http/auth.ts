/** The container's authenticator, wired to DynamoDB (created once, cache included). */
import { makeAuthenticator, type Authenticator } from '../application/authenticate';
import { config } from '../config';
import { randomSecrets, systemClock } from '../adapters/crypto';
import { repositories } from '../adapters/dynamodb';

let instance: Authenticator | undefined;

export function authenticator(): Authenticator {
  instance ??= makeAuthenticator({
    apiKeys: repositories.apiKeys,
    merchants: repositories.merchants,
    secrets: randomSecrets,
    clock: systemClock,
    cacheTtlMs: () => config.authCacheTtlMs,
    allowedModes: () => config.allowedKeyModes,
  });
  return instance;
}
