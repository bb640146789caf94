/** The repositories wired to the shared document client and configured table. */
import { documentClient } from '../aws-clients';
import { config } from '../../config';
import { apiKeyRepository } from './api-key.repository';
import { merchantRepository } from './merchant.repository';
import { rateLimitCounter } from './rate-limit.repository';

const tableName = () => config.tableName;

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
