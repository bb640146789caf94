/**
 * Per-subject, per-route, per-minute rate limiting (DESIGN.md section 4.3), counted in DynamoDB by slices.
 *
 * A container does not write the window's counter on every request (issue 22: that write was a hot item for a
 * busy merchant and a write unit per request): it reserves a slice of the window (one conditional ADD of n)
 * and admits the next n requests from it locally. A slice is 1/16 of what the window had left at the
 * container's last reservation (at least 1, at most 100), so slices shrink as the window fills; when a slice no
 * longer fits, the container asks for exactly 1, as before.
 *
 * Tolerance: a merchant is never admitted over its limit (every admitted request is inside a reservation the
 * counter granted within the limit). It can be refused early by at most the units other warm containers hold
 * unused, each at most 1/16 of what was left when it reserved: with a 100/minute limit (slices of 1 to 6), at
 * most 5 requests per other container serving the same merchant and route in that minute; with limits of 16 or
 * less, slices are 1 and counting is exact.
 */
import { AppError } from '../../domain/errors';
import { rateLimitHeaders, retryAfterSeconds, windowOf, WINDOW_SECONDS } from '../../domain/rate-limit';
import type { Clock, RateLimitCounter } from '../ports';

/** Window items outlive their window a little, then DynamoDB's TTL removes them. */
const TTL_GRACE_SECONDS = WINDOW_SECONDS;
const SLICE_SHARE = 16;
const MAX_SLICE = 100;
const MAX_HELD = 10_000;

/** What this container holds of one window: units reserved and not yet used, and the counter's count at the last reservation. */
interface Held {
  readonly windowStart: number;
  left: number;
  count: number;
}

export const sliceOf = (limit: number, countSeen: number) =>
  Math.max(1, Math.min(MAX_SLICE, Math.floor((limit - countSeen) / SLICE_SHARE)));

export function makeRateLimiter(deps: { counter: RateLimitCounter; clock: Clock }) {
  const held = new Map<string, Held>();
  /** One check at a time per subject and route in a process: concurrent requests share a slice, not each reserve one. */
  const queues = new Map<string, Promise<unknown>>();

  function serialized<T>(key: string, run: () => Promise<T>): Promise<T> {
    const next = (queues.get(key) ?? Promise.resolve()).then(run, run);
    const tail = next.catch(() => undefined);
    queues.set(key, tail);
    void tail.then(() => queues.get(key) === tail && queues.delete(key));
    return next;
  }

  return {
    /** Counts the request; returns the X-RateLimit-* headers, or throws 429 RATE_LIMIT_EXCEEDED with Retry-After. */
    check: (subject: string, routeId: string, limit: number): Promise<Record<string, string>> =>
      serialized(`${subject}|${routeId}`, () => checkNow(subject, routeId, limit)),
  };

  async function checkNow(subject: string, routeId: string, limit: number): Promise<Record<string, string>> {
    const now = deps.clock.now().getTime();
    const { start, end } = windowOf(now);
    const key = `${subject}|${routeId}`;
    let h = held.get(key);
    if (h && h.windowStart !== start) h = undefined; // a new window: what was held of the last one is void
    if (!h || h.left === 0) {
      const expiresAt = end + TTL_GRACE_SECONDS;
      const slice = sliceOf(limit, h?.count ?? 0);
      let granted = slice;
      let count = await deps.counter.reserve(subject, routeId, start, slice, limit, expiresAt);
      if (count === null && slice > 1) {
        granted = 1;
        count = await deps.counter.reserve(subject, routeId, start, 1, limit, expiresAt);
      }
      if (count === null) {
        held.delete(key);
        const headers = {
          ...rateLimitHeaders({ limit, remaining: 0, resetAt: end }),
          'retry-after': String(retryAfterSeconds(end, now)),
        };
        throw new AppError(
          'RATE_LIMIT_EXCEEDED',
          `Rate limit of ${limit} requests per minute exceeded; retry after ${headers['retry-after']} s.`,
          {
            headers,
          },
        );
      }
      h = { windowStart: start, left: granted, count };
      if (held.size >= MAX_HELD) held.clear(); // one entry per subject and route: bounded, never a leak
      held.set(key, h);
    }
    h.left--;
    // What this caller can still send: the window's remainder as last counted, plus what this container holds.
    return rateLimitHeaders({ limit, remaining: limit - h.count + h.left, resetAt: end });
  }
}

export type RateLimiter = ReturnType<typeof makeRateLimiter>;
