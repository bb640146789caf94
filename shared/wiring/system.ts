/** What the health route checks: the table answers (one GetItem of a key that never exists). */
import { tableProbe } from '../adapters/dynamodb/health.probe';
import type { HealthProbe } from '../application/health';

export const healthProbes: readonly HealthProbe[] = [tableProbe];
