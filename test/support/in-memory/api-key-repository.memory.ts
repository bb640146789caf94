/**
 * ApiKeyRepository in memory, as shared/adapters/dynamodb/api-key.repository.ts: keys stored under their hash
 * (a taken hash fails), listed per merchant by key id, revoked only while active and the merchant's own.
 */
import type { ApiKeyRepository } from '../../../shared/application/ports';
import type { ApiKey } from '../../../shared/domain/merchant';
import { ConditionalCheckFailed, dynamoCopy, MemoryTable, strip } from './memory-table';

export interface MemoryApiKeyRepository extends ApiKeyRepository {
  readonly table: MemoryTable;
}

export function memoryApiKeyRepository(table: MemoryTable = new MemoryTable()): MemoryApiKeyRepository {
  return {
    table,

    async create(key, hash) {
      if (table.apiKeys.has(hash)) throw new ConditionalCheckFailed(`api key ${key.key_id}`);
      table.apiKeys.set(hash, dynamoCopy(key));
    },

    async findByHash(hash) {
      const k = table.apiKeys.get(hash);
      return k ? strip<ApiKey>(k) : null;
    },

    async listByMerchant(merchantId) {
      return [...table.apiKeys.values()]
        .filter((k) => k.merchant_id === merchantId)
        .sort((a, b) => a.key_id.localeCompare(b.key_id))
        .map((k) => strip<ApiKey>(k));
    },

    async revoke(merchantId, keyId, at) {
      const entry = [...table.apiKeys.entries()].find(([, k]) => k.merchant_id === merchantId && k.key_id === keyId);
      if (!entry) return null;
      const [hash, k] = entry;
      if (k.status !== 'active' || k.merchant_id !== merchantId) return null;
      const revoked: ApiKey = { ...k, status: 'revoked', revoked_at: at.toISOString() };
      table.apiKeys.set(hash, revoked);
      return strip<ApiKey>(revoked);
    },
  };
}
