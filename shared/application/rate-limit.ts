/** Per-subject, per-route, per-minute rate limiting (DESIGN.md section 4.3). */
import { AppError } from '../domain/errors';
import { rateLimitHeaders, retryAfterSeconds, windowOf, WINDOW_SECONDS } from '../domain/rate-limit';
import type { Clock, RateLimitCounter } from './ports';

/** Window items outlive their window a little, then DynamoDB's TTL removes them. */
const TTL_GRACE_SECONDS = WINDOW_SECONDS;

export function makeRateLimiter(deps: { counter: RateLimitCounter; clock: Clock }) {
  return {
    /** Counts the request; returns the X-RateLimit-* headers, or throws 429 RATE_LIMIT_EXCEEDED with Retry-After. */
    async check(subject: string, routeId: string, limit: number): Promise<Record<string, string>> {
      const now = deps.clock.now().getTime();
      const { start, end } = windowOf(now);
      const count = await deps.counter.hit(subject, routeId, start, limit, end + TTL_GRACE_SECONDS);
      if (count === null) {
        const headers = { ...rateLimitHeaders({ limit, remaining: 0, resetAt: end }), 'retry-after': String(retryAfterSeconds(end, now)) };
        throw new AppError(
          'RATE_LIMIT_EXCEEDED',
          `Rate limit of ${limit} requests per minute exceeded; retry after ${headers['retry-after']} s.`,
          {
            headers,
          },
        );
      }
      return rateLimitHeaders({ limit, remaining: limit - count, resetAt: end });
    },
  };
}

export type RateLimiter = ReturnType<typeof makeRateLimiter>;
