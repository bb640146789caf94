/**
 * API key authentication (DESIGN.md sections 4.2 and 5). The key is hashed and
 * looked up by hash; results are cached per container for a short time.
 */
import type { Mode, Scope } from '../../domain/access';
import { AppError } from '../../domain/errors';
import { keyAllows, keyModeOf, type ApiKey, type Merchant } from '../../domain/merchant';
import type { ApiKeyRepository, Clock, MerchantRepository, SecretGenerator } from '../ports';

export interface Principal {
  readonly merchant: Merchant;
  readonly key: ApiKey;
  readonly mode: Mode;
  readonly livemode: boolean;
}

export interface AuthenticatorDeps {
  readonly apiKeys: Pick<ApiKeyRepository, 'findByHash'>;
  readonly merchants: Pick<MerchantRepository, 'get'>;
  readonly secrets: Pick<SecretGenerator, 'hashKey'>;
  readonly clock: Clock;
  readonly cacheTtlMs: () => number;
  readonly allowedModes: () => readonly Mode[];
}

/** Pulls the raw key from X-API-Key or Authorization: Bearer. Header names are lower-case. */
export function extractApiKey(headers: Readonly<Record<string, string | undefined>>): string | null {
  const direct = headers['x-api-key']?.trim();
  if (direct) return direct;
  const auth = headers['authorization']?.trim();
  if (!auth) return null;
  const m = /^Bearer\s+(\S+)$/i.exec(auth);
  if (!m?.[1]) throw new AppError('UNAUTHORIZED', 'Malformed Authorization header; expected "Bearer <API key>".');
  return m[1];
}

interface CacheEntry {
  readonly key: ApiKey | null;
  readonly merchant: Merchant | null;
  readonly until: number;
}

export function makeAuthenticator(deps: AuthenticatorDeps) {
  const cache = new Map<string, CacheEntry>();
  const MAX_ENTRIES = 1000;

  async function lookup(hash: string): Promise<CacheEntry> {
    const now = deps.clock.now().getTime();
    const hit = cache.get(hash);
    if (hit && hit.until > now) return hit;
    const key = await deps.apiKeys.findByHash(hash);
    const merchant = key ? await deps.merchants.get(key.merchant_id) : null;
    const entry: CacheEntry = { key, merchant, until: now + deps.cacheTtlMs() };
    if (deps.cacheTtlMs() > 0) {
      if (cache.size >= MAX_ENTRIES) cache.delete(cache.keys().next().value as string);
      cache.set(hash, entry);
    }
    return entry;
  }

  return {
    /** Resolves a raw key to its merchant, or throws UNAUTHORIZED / MERCHANT_INACTIVE / FORBIDDEN. */
    async authenticate(rawKey: string | null, scope: Scope | undefined): Promise<Principal> {
      if (!rawKey) throw new AppError('UNAUTHORIZED', 'Missing API key: send it in X-API-Key or Authorization: Bearer.');
      const claimedMode = keyModeOf(rawKey);
      if (!claimedMode || rawKey.length > 200) throw new AppError('UNAUTHORIZED');
      const { key, merchant } = await lookup(deps.secrets.hashKey(rawKey));
      if (!key || key.status !== 'active' || key.mode !== claimedMode) throw new AppError('UNAUTHORIZED');
      if (!merchant) throw new AppError('UNAUTHORIZED');
      if (merchant.status !== 'active') throw new AppError('MERCHANT_INACTIVE');
      if (!deps.allowedModes().includes(key.mode)) {
        throw new AppError('FORBIDDEN', `${key.mode} keys cannot be used on this environment.`);
      }
      if (!keyAllows(key, scope)) throw new AppError('FORBIDDEN', `This API key lacks the "${scope}" permission.`);
      return { merchant, key, mode: key.mode, livemode: key.mode === 'live' };
    },
    clearCache: () => cache.clear(),
  };
}

export type Authenticator = ReturnType<typeof makeAuthenticator>;
