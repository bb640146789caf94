/**
 * Routing's observer for the functions: logs and counts (provider-metrics.ts) and, when a breaker changes state, that
 * state kept in the table for `providers stats` (a rare write, not awaited by the payment it happened in).
 */
import type { AttemptObserver } from '../application/ports';
import { documentClient } from '../adapters/aws-clients';
import { providerStatsRepository } from '../adapters/dynamodb/provider-stats.repository';
import { logger } from '../observability';
import { attemptObserver } from '../observability/provider-metrics';
import { tableName } from './repositories';

export const routingObserver: AttemptObserver = {
  ...attemptObserver,
  breakerChanged(provider, kind, to) {
    attemptObserver.breakerChanged(provider, kind, to);
    providerStatsRepository(documentClient(), tableName)
      .recordBreaker(provider, kind, to, new Date().toISOString())
      .catch((e: unknown) => logger.warn('Breaker state not recorded', { provider, kind, to, error: (e as Error).name }));
  },
};
