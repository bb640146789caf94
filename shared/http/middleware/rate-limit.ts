/**
 * Rate limit per subject, per route, per minute, from the route's manifest entry or the merchant's override.
 * The subject is the merchant for API-key routes, the checkout session for
 * session-authorised routes, and the object in the path for public pages.
 */
import type middy from '@middy/core';
import { rateLimitFor } from '../../domain/merchant';
import { rateLimiter } from '../../wiring';
import type { HttpEvent, HttpResult, PipelineContext } from '../types';

function sessionIdInBody(event: HttpEvent): string | undefined {
  try {
    const raw = event.isBase64Encoded ? Buffer.from(event.body ?? '', 'base64').toString('utf8') : (event.body ?? '');
    const id = (JSON.parse(raw) as { session_id?: unknown }).session_id;
    return typeof id === 'string' && /^cs_[A-Za-z0-9_-]{22,64}$/.test(id) ? id : undefined;
  } catch {
    return undefined;
  }
}

export function rateLimitSubject(context: PipelineContext, event: HttpEvent): string | undefined {
  if (context.principal) return context.principal.merchant.merchant_id;
  if (context.route.auth === 'session') return sessionIdInBody(event);
  // The object the page is about (/sandbox/{kind}/{payment_id}: the payment, not the page kind).
  const params = Object.entries(event.pathParameters ?? {});
  const object = (params.find(([name]) => name.endsWith('_id')) ?? params[0])?.[1];
  return object && object.length <= 80 ? object : undefined;
}

export function rateLimit(): middy.MiddlewareObj<HttpEvent, HttpResult, Error, PipelineContext> {
  return {
    before: async (request) => {
      const { route, principal } = request.context;
      const limit = rateLimitFor(principal?.merchant, route.id, route.rateLimitPerMinute);
      if (limit === null) return;
      const subject = rateLimitSubject(request.context, request.event);
      if (!subject) return;
      const headers = await rateLimiter().check(subject, route.id, limit);
      Object.assign(request.context.responseHeaders, headers);
    },
  };
}
