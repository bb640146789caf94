/**
 * The instrumentation every queue worker and scheduled job gets, in the same order as httpHandler's:
 * logger with the Lambda context, metrics flushed once per invocation (Powertools EMF).
 * Tracing is Lambda's active tracing (shared/observability).
 */
import middy from '@middy/core';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import type { Context } from 'aws-lambda';
import { logger, metrics } from '../observability';

export function instrumented<E, R>(fn: (event: E, context: Context) => Promise<R>) {
  return middy(fn)
    .use(injectLambdaContext(logger, { resetKeys: true }))
    .use(logMetrics(metrics));
}
