/** One fixed rate-limit window of one subject (merchant, session or path object) on one route; expires by TTL. */
import type { EntityModel } from '../keys';

export const rateLimitWindowEntity = {
  entity: 'rate_limit_window',
  version: 1,
  key: (subject: string, routeId: string, windowStart: number) => ({
    PK: `RATELIMIT#${subject}#${routeId}`,
    SK: `WINDOW#${windowStart}`,
  }),
} as const satisfies EntityModel;
