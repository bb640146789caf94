/**
 * Maps any error to the route family's error shape. 4xx carry an actionable
 * code and message; anything unexpected is logged with its stack and answered
 * with a generic 500 naming only the request id.
 */
import type middy from '@middy/core';
import { logger } from '../../observability';
import { errorResult, toAppError } from '../responses';
import type { HttpEvent, HttpResult, PipelineContext } from '../types';

export function errorMapper(): middy.MiddlewareObj<HttpEvent, HttpResult, Error, PipelineContext> {
  return {
    onError: (request) => {
      const appError = toAppError(request.error);
      if (appError.code === 'BUSY_RETRY_SAME_KEY') {
        logger.warn('Request answered busy: a write did not get its turn on a contended item', { code: appError.code, status: 503 });
      } else if (appError.status >= 500) {
        logger.error('Request failed', { error: request.error as Error });
      } else {
        logger.info('Request rejected', { code: appError.code, status: appError.status });
      }
      request.response = errorResult(request.context.route.family, appError, request.context.requestId);
    },
  };
}
