/** Rate limit per merchant, per route, per minute, from the route's manifest entry. */
import type middy from '@middy/core';
import { makeRateLimiter, type RateLimiter } from '../../application/rate-limit';
import { systemClock } from '../../adapters/crypto';
import { repositories } from '../../adapters/dynamodb';
import type { HttpEvent, HttpResult, PipelineContext } from '../types';

let limiter: RateLimiter | undefined;

export function rateLimit(): middy.MiddlewareObj<HttpEvent, HttpResult, Error, PipelineContext> {
  return {
    before: async (request) => {
      const { route, principal } = request.context;
      if (route.rateLimitPerMinute === null || !principal) return;
      limiter ??= makeRateLimiter({ counter: repositories.rateLimits, clock: systemClock });
      const headers = await limiter.check(principal.merchant.merchant_id, route.id, route.rateLimitPerMinute);
      Object.assign(request.context.responseHeaders, headers);
    },
  };
}
