/** Per-minute rate limiting with a fake counter and a fake clock; the middleware's skip rules. No AWS. */
import type middy from '@middy/core';
import { makeRateLimiter, type Principal } from '../../shared/application/access';
import type { RateLimitCounter } from '../../shared/application/ports';
import { AppError } from '../../shared/domain/errors';
import { rateLimitHeaders, retryAfterSeconds, windowOf, WINDOW_SECONDS } from '../../shared/domain/rate-limit';
import { rateLimit } from '../../shared/http/middleware/rate-limit';
import { routeById, type RouteDefinition } from '../../shared/manifest/routes';
import type { HttpEvent, HttpResult, PipelineContext } from '../../shared/http/types';

interface Hit {
  subject: string;
  routeId: string;
  windowStart: number;
  units: number;
  limit: number;
  expiresAt: number;
}

/** Counts per (subject, route, window) like the DynamoDB counter: a reservation only while it fits the limit. */
function fakeCounter() {
  const counts = new Map<string, number>();
  const hits: Hit[] = [];
  const counter: RateLimitCounter = {
    reserve: async (subject, routeId, windowStart, units, limit, expiresAt) => {
      hits.push({ subject, routeId, windowStart, units, limit, expiresAt });
      const k = `${subject}|${routeId}|${windowStart}`;
      const n = counts.get(k) ?? 0;
      if (n + units > limit) return null;
      counts.set(k, n + units);
      return n + units;
    },
  };
  return { counter, hits, counts };
}

function setup(startMs = 1_767_225_600_000 /* 2026-01-01T00:00:00Z, a window start */) {
  let now = startMs;
  const { counter, hits } = fakeCounter();
  const limiter = makeRateLimiter({ counter, clock: { now: () => new Date(now) } });
  return { limiter, hits, setNow: (ms: number) => (now = ms), advance: (ms: number) => (now += ms) };
}

async function rejection(p: Promise<unknown>): Promise<AppError> {
  return p.then(
    () => {
      throw new Error('expected a 429');
    },
    (e: unknown) => {
      expect(e).toBeInstanceOf(AppError);
      return e as AppError;
    },
  );
}

const T0 = 1_767_225_600_000;
const T0_S = T0 / 1000;

describe('windowOf', () => {
  it('puts 59.999 s in the first window and 60.000 s in the next', () => {
    expect(windowOf(59_999)).toEqual({ start: 0, end: 60 });
    expect(windowOf(60_000)).toEqual({ start: 60, end: 120 });
    expect(windowOf(T0 + 59_999)).toEqual({ start: T0_S, end: T0_S + WINDOW_SECONDS });
    expect(windowOf(T0 + 60_000)).toEqual({ start: T0_S + 60, end: T0_S + 120 });
  });

  it('retryAfterSeconds is between 1 and 60', () => {
    expect(retryAfterSeconds(60, 0)).toBe(60);
    expect(retryAfterSeconds(60, 59_999)).toBe(1);
    expect(retryAfterSeconds(60, 60_000)).toBe(1);
    expect(retryAfterSeconds(60, 30_500)).toBe(30);
  });

  it('rateLimitHeaders never reports a negative remaining', () => {
    expect(rateLimitHeaders({ limit: 5, remaining: -2, resetAt: 60 })).toEqual({
      'x-ratelimit-limit': '5',
      'x-ratelimit-remaining': '0',
      'x-ratelimit-reset': '60',
    });
  });
});

describe('slices of the window (issue 22: no counter write per request)', () => {
  it('a 100/minute limit reserves 6, then slices shrink as the window fills; 100 requests, 100 admitted, 52 writes', async () => {
    const { limiter, hits } = setup();
    const remaining: string[] = [];
    for (let i = 0; i < 100; i++) remaining.push((await limiter.check('mch_1', 'createCheckoutSession', 100))['x-ratelimit-remaining']!);
    expect(hits[0]!.units).toBe(6);
    expect(remaining.slice(0, 3)).toEqual(['99', '98', '97']);
    expect(remaining.at(-1)).toBe('0');
    expect(hits.length).toBe(52); // the last 16 one at a time: exact where the window is nearly full
    expect(hits.reduce((s, h) => s + h.units, 0)).toBe(100);
    await rejection(limiter.check('mch_1', 'createCheckoutSession', 100));
  });

  it('a merchant with a raised limit (60,000/minute) writes the counter once per 100 requests', async () => {
    const { limiter, hits } = setup();
    for (let i = 0; i < 1000; i++) await limiter.check('m', 'r', 60_000);
    expect(hits).toHaveLength(10);
  });

  it('limits of 16 or less are counted exactly, one unit per request', async () => {
    const { limiter, hits } = setup();
    for (let i = 0; i < 16; i++) await limiter.check('m', 'r', 16);
    expect(hits.map((h) => h.units)).toEqual(Array.from({ length: 16 }, () => 1));
  });

  it('four containers sharing one counter: never over the limit, refused early by at most what the others hold', async () => {
    const { counter, counts } = fakeCounter();
    const clock = { now: () => new Date(T0 + 1000) };
    const containers = Array.from({ length: 4 }, () => makeRateLimiter({ counter, clock }));
    let admitted = 0;
    let firstRefusalAt: number | null = null;
    for (let i = 0; i < 400; i++) {
      const c = containers[i % 4]!;
      try {
        await c.check('mch_1', 'createCheckoutSession', 100);
        admitted++;
      } catch (e) {
        expect((e as AppError).code).toBe('RATE_LIMIT_EXCEEDED');
        firstRefusalAt ??= admitted;
      }
    }
    expect(admitted).toBeLessThanOrEqual(100);
    expect([...counts.values()]).toEqual([100]);
    // The stated tolerance: each of the 3 other containers holds at most 1/16 of what was left (6 at most, unused 5).
    expect(firstRefusalAt).toBeGreaterThanOrEqual(100 - 3 * 5);
  });

  it('a new window voids what was held of the last one', async () => {
    const { limiter, hits, advance } = setup();
    await limiter.check('m', 'r', 100);
    advance(60_000);
    await limiter.check('m', 'r', 100);
    expect(hits.map((h) => h.windowStart)).toEqual([T0_S, T0_S + 60]);
  });
});

describe('makeRateLimiter', () => {
  it('returns limit, remaining and reset (window end in unix seconds)', async () => {
    const { limiter, advance } = setup();
    advance(12_345);
    expect(await limiter.check('mch_1', 'listMethods', 3)).toEqual({
      'x-ratelimit-limit': '3',
      'x-ratelimit-remaining': '2',
      'x-ratelimit-reset': String(T0_S + 60),
    });
    expect((await limiter.check('mch_1', 'listMethods', 3))['x-ratelimit-remaining']).toBe('1');
    expect((await limiter.check('mch_1', 'listMethods', 3))['x-ratelimit-remaining']).toBe('0');
  });

  it('passes subject, route, window start, limit and an expiresAt after the window end to the counter', async () => {
    const { limiter, hits, advance } = setup();
    advance(30_000);
    await limiter.check('mch_A', 'getMethod', 300);
    expect(hits).toHaveLength(1);
    const [hit] = hits;
    expect(hit).toMatchObject({ subject: 'mch_A', routeId: 'getMethod', windowStart: T0_S, limit: 300 });
    expect(hit!.expiresAt).toBeGreaterThan(T0_S + WINDOW_SECONDS);
    expect(Number.isInteger(hit!.expiresAt)).toBe(true);
  });

  it('throws 429 RATE_LIMIT_EXCEEDED with retry-after and remaining 0 when the counter returns null', async () => {
    const { limiter, advance } = setup();
    await limiter.check('mch_1', 'r', 1);
    advance(20_250);
    const err = await rejection(limiter.check('mch_1', 'r', 1));
    expect(err.code).toBe('RATE_LIMIT_EXCEEDED');
    expect(err.status).toBe(429);
    expect(err.headers).toEqual({
      'x-ratelimit-limit': '1',
      'x-ratelimit-remaining': '0',
      'x-ratelimit-reset': String(T0_S + 60),
      'retry-after': '40',
    });
    expect(err.message).toMatch(/retry after 40 s/);
  });

  it.each([
    ['at the window start', 0, 60],
    ['mid-window', 45_001, 15],
    ['1 ms before the window end', 59_999, 1],
  ])('keeps retry-after within 1..60 %s', async (_w, offset, expected) => {
    const { limiter, setNow } = setup();
    setNow(T0 + offset);
    await limiter.check('s', 'r', 1);
    const err = await rejection(limiter.check('s', 'r', 1));
    const retry = Number(err.headers?.['retry-after']);
    expect(retry).toBe(expected);
    expect(retry).toBeGreaterThanOrEqual(1);
    expect(retry).toBeLessThanOrEqual(60);
  });

  it('starts a new window at exactly 60.000 s, not at 59.999 s', async () => {
    const { limiter, hits, setNow } = setup();
    setNow(T0 + 59_999);
    await limiter.check('s', 'r', 1);
    await expect(limiter.check('s', 'r', 1)).rejects.toMatchObject({ code: 'RATE_LIMIT_EXCEEDED' });
    setNow(T0 + 60_000);
    const headers = await limiter.check('s', 'r', 1);
    expect(headers['x-ratelimit-reset']).toBe(String(T0_S + 120));
    expect(hits.map((h) => h.windowStart)).toEqual([T0_S, T0_S, T0_S + 60]);
  });

  it('counts subjects and routes separately', async () => {
    const { limiter } = setup();
    await limiter.check('a', 'r1', 1);
    await expect(limiter.check('b', 'r1', 1)).resolves.toBeDefined();
    await expect(limiter.check('a', 'r2', 1)).resolves.toBeDefined();
    await expect(limiter.check('a', 'r1', 1)).rejects.toBeInstanceOf(AppError);
  });
});

describe('rateLimit middleware skip rules (no DynamoDB)', () => {
  const principal = { merchant: { merchant_id: 'mch_1' }, mode: 'test', livemode: false } as unknown as Principal;

  function request(route: RouteDefinition, p: Principal | undefined): middy.Request<HttpEvent, HttpResult, Error, PipelineContext> {
    const context = { route, principal: p, requestId: 'r', responseHeaders: {} } as unknown as PipelineContext;
    return { event: {} as HttpEvent, context, response: undefined, error: undefined, internal: {} };
  }

  it('skips a route with rateLimitPerMinute null even with a principal', async () => {
    const health = routeById('health');
    expect(health.rateLimitPerMinute).toBeNull();
    const req = request(health, principal);
    await expect(rateLimit().before!(req)).resolves.toBeUndefined();
    expect(req.context.responseHeaders).toEqual({});
  });

  it('skips a rate-limited route when the request has no principal', async () => {
    const route = routeById('listMethods');
    expect(route.rateLimitPerMinute).toBe(300);
    const req = request(route, undefined);
    await expect(rateLimit().before!(req)).resolves.toBeUndefined();
    expect(req.context.responseHeaders).toEqual({});
  });
});
