/**
 * MerchantRepository in memory, as shared/adapters/dynamodb/merchant.repository.ts: create writes profile,
 * webhook secret and first API key all-or-nothing (each must be new); setStatus fails with MERCHANT_NOT_FOUND;
 * a rotation is conditional on the current secret still being the one read.
 */
import type { MerchantRepository, WebhookSecrets } from '../../../shared/application/ports';
import { AppError } from '../../../shared/domain/errors';
import type { Merchant } from '../../../shared/domain/merchant';
import { ConditionalCheckFailed, dynamoCopy, MemoryTable, strip } from './memory-table';

export interface MemoryMerchantRepository extends MerchantRepository {
  readonly table: MemoryTable;
}

export function memoryMerchantRepository(table: MemoryTable = new MemoryTable()): MemoryMerchantRepository {
  return {
    table,

    async create(merchant, secret, firstKey, firstKeyHash) {
      // One TransactWriteItems of three attribute_not_exists puts; the adapter lets the raw cancellation escape.
      if (table.merchants.has(merchant.merchant_id) || table.webhookSecrets.has(merchant.merchant_id) || table.apiKeys.has(firstKeyHash)) {
        throw new ConditionalCheckFailed(`merchant create ${merchant.merchant_id}`);
      }
      const secrets: WebhookSecrets = { current: secret, previous: null, previous_expires_at: null, rotated_at: null };
      table.merchants.set(merchant.merchant_id, dynamoCopy(merchant));
      table.webhookSecrets.set(merchant.merchant_id, secrets);
      table.apiKeys.set(firstKeyHash, dynamoCopy(firstKey));
    },

    async get(merchantId) {
      const m = table.merchants.get(merchantId);
      return m ? strip<Merchant>(m) : null;
    },

    async setStatus(merchantId, status, at) {
      const m = table.merchants.get(merchantId);
      if (!m) throw new AppError('MERCHANT_NOT_FOUND');
      const next = { ...m, status, updated_at: at.toISOString() };
      table.merchants.set(merchantId, next);
      return strip<Merchant>(next);
    },

    async setRateLimits(merchantId, limits, at) {
      const m = table.merchants.get(merchantId);
      if (!m) throw new AppError('MERCHANT_NOT_FOUND');
      const next = { ...m, rate_limits: dynamoCopy(limits), updated_at: at.toISOString() };
      table.merchants.set(merchantId, next);
      return strip<Merchant>(next);
    },

    async getWebhookSecrets(merchantId) {
      const s = table.webhookSecrets.get(merchantId);
      return s ? strip<WebhookSecrets>(s) : null;
    },

    async rotateWebhookSecret(merchantId, expectedCurrent, next) {
      const s = table.webhookSecrets.get(merchantId);
      if (!s || s.current !== expectedCurrent) throw new ConditionalCheckFailed(`rotateWebhookSecret ${merchantId}`);
      table.webhookSecrets.set(merchantId, dynamoCopy({ ...next }));
    },
  };
}
