/**
 * First in the chain: the request id (echoed as X-Request-Id), the logger's
 * per-request keys, and the headers later middlewares want on every response.
 */
import type middy from '@middy/core';
import { logger } from '../../observability';
import type { RouteDefinition } from '../../manifest/routes';
import type { HttpEvent, HttpResult, PipelineContext } from '../types';

export function requestContext(route: RouteDefinition): middy.MiddlewareObj<HttpEvent, HttpResult, Error, PipelineContext> {
  const echo = (request: middy.Request<HttpEvent, HttpResult, Error, PipelineContext>) => {
    if (request.response) {
      request.response.headers = {
        ...(request.response.headers ?? {}),
        ...request.context.responseHeaders,
        'x-request-id': request.context.requestId,
      };
    }
  };
  return {
    before: (request) => {
      const ctx = request.context;
      ctx.route = route;
      ctx.startedAt = performance.now();
      ctx.requestId = request.event.requestContext?.requestId || ctx.awsRequestId;
      ctx.input = { query: {}, path: {}, body: undefined };
      ctx.responseHeaders = {};
      logger.appendKeys({ route: route.id, request_id: ctx.requestId });
      // API Gateway's request id is the correlation id (what correlationPaths.API_GATEWAY_HTTP reads), set
      // directly so the logger does not bundle a JMESPath engine to find it.
      logger.setCorrelationId(ctx.requestId);
    },
    after: echo,
    onError: echo,
  };
}
