/** First in the chain: the request id (echoed as X-Request-Id) and the logger's per-request keys. */
import type middy from '@middy/core';
import { logger } from '../../observability';
import type { RouteDefinition } from '../../manifest/routes';
import type { HttpEvent, HttpResult, PipelineContext } from '../types';

export function requestContext(route: RouteDefinition): middy.MiddlewareObj<HttpEvent, HttpResult, Error, PipelineContext> {
  const echo = (request: middy.Request<HttpEvent, HttpResult, Error, PipelineContext>) => {
    if (request.response) {
      request.response.headers = { ...(request.response.headers ?? {}), 'x-request-id': request.context.requestId };
    }
  };
  return {
    before: (request) => {
      const ctx = request.context;
      ctx.route = route;
      ctx.startedAt = performance.now();
      ctx.requestId = request.event.requestContext?.requestId || ctx.awsRequestId;
      ctx.input = { query: {}, path: {}, body: undefined };
      logger.appendKeys({ route: route.id, request_id: ctx.requestId });
    },
    after: echo,
    onError: echo,
  };
}
