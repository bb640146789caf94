/** Random ids and secrets from the platform CSPRNG; SHA-256 for API key hashes. */
import { createHash, randomBytes } from 'node:crypto';
import type { Clock, IdGenerator, SecretGenerator } from '../application/ports';
import { KEY_PREFIX } from '../domain/merchant';
import type { Mode } from '../domain/access';

export const randomIds: IdGenerator = {
  // 16 bytes = 128 bits, base64url: 22 characters.
  newId: (prefix) => `${prefix}${randomBytes(16).toString('base64url')}`,
};

export const sha256Hex = (value: string) => createHash('sha256').update(value, 'utf8').digest('hex');

export const randomSecrets: SecretGenerator = {
  apiKey: (mode: Mode) => `${KEY_PREFIX[mode]}${randomBytes(32).toString('base64url')}`,
  webhookSecret: () => `whsec_${randomBytes(32).toString('base64')}`,
  hashKey: sha256Hex,
};

export const systemClock: Clock = { now: () => new Date() };
