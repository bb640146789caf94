/** Authentication by API key for routes whose manifest entry says auth: api_key. */
import type middy from '@middy/core';
import { extractApiKey } from '../../application/access';
import { logger } from '../../observability';
import { authenticator } from '../../wiring';
import type { HttpEvent, HttpResult, PipelineContext } from '../types';

export function authentication(): middy.MiddlewareObj<HttpEvent, HttpResult, Error, PipelineContext> {
  return {
    before: async (request) => {
      const route = request.context.route;
      if (route.auth !== 'api_key') return;
      const principal = await authenticator().authenticate(extractApiKey(request.event.headers ?? {}), route.scope);
      request.context.principal = principal;
      logger.appendKeys({ merchant_id: principal.merchant.merchant_id, livemode: principal.livemode });
    },
  };
}
