import { GetCommand } from '@aws-sdk/lib-dynamodb';
import type { HealthProbe } from '../../application/health';
import { config } from '../../config';
import { documentClient } from '../aws-clients';
import { indexKeys } from './keys';

/** One GetItem of a key that never exists: proves the table answers, reads nothing. */
export const tableProbe: HealthProbe = {
  name: 'dynamodb',
  check: async () => {
    await documentClient().send(new GetCommand({ TableName: config.tableName, Key: indexKeys.healthProbe() }));
  },
};
