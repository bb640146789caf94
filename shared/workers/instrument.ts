/**
 * The instrumentation every queue worker and scheduled job gets, in the same order as httpHandler's:
 * tracer (handler segment, response not captured), logger with the Lambda context, metrics flushed once per
 * invocation (Powertools EMF).
 */
import middy from '@middy/core';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import { captureLambdaHandler } from '@aws-lambda-powertools/tracer/middleware';
import type { Context } from 'aws-lambda';
import { logger, metrics, tracer } from '../observability';

export function instrumented<E, R>(fn: (event: E, context: Context) => Promise<R>) {
  return middy(fn)
    .use(captureLambdaHandler(tracer, { captureResponse: false }))
    .use(injectLambdaContext(logger, { resetKeys: true }))
    .use(logMetrics(metrics));
}
