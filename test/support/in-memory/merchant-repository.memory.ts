/**
 * MerchantRepository in memory, as shared/adapters/dynamodb/merchant.repository.ts: create writes profile,
 * webhook secret and first API key all-or-nothing (each must be new); setStatus and the routing writes fail with
 * MERCHANT_NOT_FOUND; a rotation is conditional on the current secret still being the one read.
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

    async setRoutingRule(merchantId, kind, country, rule, at) {
      const m = table.merchants.get(merchantId);
      if (!m) throw new AppError('MERCHANT_NOT_FOUND');
      const routing = dynamoCopy(m.routing ?? {});
      routing[kind] = { ...routing[kind], [country]: dynamoCopy(rule) };
      const next = { ...m, routing, updated_at: at.toISOString() };
      table.merchants.set(merchantId, next);
      return strip<Merchant>(next);
    },

    async removeRoutingRule(merchantId, kind, country, at) {
      const m = table.merchants.get(merchantId);
      if (!m) throw new AppError('MERCHANT_NOT_FOUND');
      if (!m.routing?.[kind]?.[country]) return { merchant: strip<Merchant>(m), removed: false };
      // As the adapter: a kind left with no rule goes, then a routing map left with no kind.
      const routing = dynamoCopy(m.routing);
      delete routing[kind]![country];
      if (Object.keys(routing[kind]!).length === 0) delete routing[kind];
      const next: typeof m = { ...m, routing, updated_at: at.toISOString() };
      if (Object.keys(routing).length === 0) delete next.routing;
      table.merchants.set(merchantId, next);
      return { merchant: strip<Merchant>(next), removed: true };
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
