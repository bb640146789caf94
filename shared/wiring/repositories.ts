/** The merchant, key and rate-limit repositories on the shared document client and the configured table; the id generator. */
import { documentClient } from '../adapters/aws-clients';
import { apiKeyRepository } from '../adapters/dynamodb/api-key.repository';
import { merchantRepository } from '../adapters/dynamodb/merchant.repository';
import { randomIds } from '../adapters/crypto';
import { rateLimitCounter } from '../adapters/dynamodb/rate-limit.repository';
import type { IdGenerator } from '../application/ports';
import { config } from '../config';

export const tableName = () => config.tableName;

/** Object ids: prefix + 128 random bits. */
export const ids: IdGenerator = randomIds;

export const repositories = {
  get merchants() {
    return merchantRepository(documentClient(), tableName);
  },
  get apiKeys() {
    return apiKeyRepository(documentClient(), tableName);
  },
  get rateLimits() {
    return rateLimitCounter(documentClient(), tableName);
  },
};
