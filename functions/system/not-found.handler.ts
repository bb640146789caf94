/**
 * API Gateway's $default route: every request no manifest route matches.
 * 405 with Allow when the path exists under another method, else 404, both in
 * the JSON error shape (the direct-payment shape under /cashier).
 */
import { resolveRoute, type RouteDefinition } from '../../shared/manifest/routes';
import { AppError } from '../../shared/domain/errors';
import { httpHandler } from '../../shared/http/handler';
import type { Context } from 'aws-lambda';
import type { HttpEvent, PipelineContext } from '../../shared/http/types';

const fallback = (family: RouteDefinition['family']): RouteDefinition => ({
  id: 'fallback',
  method: 'GET',
  path: '/{proxy+}',
  handler: 'functions/system/not-found.handler.ts',
  auth: 'none',
  rateLimitPerMinute: null,
  family,
  idempotent: false,
  access: { table: 'none' },
  summary: 'Unmatched requests.',
});

const checkoutFamily = httpHandler({ route: fallback('checkout'), handler: answer });
const directFamily = httpHandler({ route: fallback('direct'), handler: answer });

async function answer({ event }: { event: HttpEvent }): Promise<never> {
  const method = event.requestContext.http.method;
  const { allowed } = resolveRoute(method, event.rawPath);
  if (allowed.length > 0) {
    throw new AppError('METHOD_NOT_ALLOWED', `${method} is not supported on ${event.rawPath}; use ${allowed.join(', ')}.`, {
      headers: { allow: allowed.join(', ') },
    });
  }
  throw new AppError('NOT_FOUND', `No endpoint ${method} ${event.rawPath}.`);
}

export const handler = (event: HttpEvent, context: Context) =>
  (event.rawPath.startsWith('/cashier/') ? directFamily : checkoutFamily)(event, context as PipelineContext);
