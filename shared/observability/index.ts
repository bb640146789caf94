/**
 * Logger and metrics: created once per container and imported everywhere (the
 * Powertools examples/app pattern). Tracing is Lambda's active tracing (the
 * function's segment, and the trace header the AWS SDK passes on to SQS), without
 * the X-Ray SDK in the bundle: it was ~110 KB of every bundle, evaluated on every
 * cold start (BENCHMARKS.md, "Bundles and cold import").
 */
import { Logger } from '@aws-lambda-powertools/logger';
import { redactReplacer } from './redact';
import { Metrics } from '@aws-lambda-powertools/metrics';

export const SERVICE_NAME = 'latam-payments';

export const logger = new Logger({
  serviceName: process.env.POWERTOOLS_SERVICE_NAME ?? SERVICE_NAME,
  // Card numbers, CVV, documents, API keys and webhook secrets never reach a log line.
  jsonReplacerFn: redactReplacer,
});
export const metrics = new Metrics({
  namespace: process.env.POWERTOOLS_METRICS_NAMESPACE ?? 'LatamPayments',
  serviceName: process.env.POWERTOOLS_SERVICE_NAME ?? SERVICE_NAME,
});
