/**
 * Logger, metrics and tracer: created once per container and imported everywhere
 * (the Powertools examples/app pattern).
 */
import { Logger } from '@aws-lambda-powertools/logger';
import { search } from '@aws-lambda-powertools/logger/correlationId';
import { redactReplacer } from './redact';
import { Metrics } from '@aws-lambda-powertools/metrics';
import { Tracer } from '@aws-lambda-powertools/tracer';

export const SERVICE_NAME = 'latam-payments';

export const logger = new Logger({
  serviceName: process.env.POWERTOOLS_SERVICE_NAME ?? SERVICE_NAME,
  correlationIdSearchFn: search,
  // Card numbers, CVV, documents, API keys and webhook secrets never reach a log line.
  jsonReplacerFn: redactReplacer,
});
export const metrics = new Metrics({
  namespace: process.env.POWERTOOLS_METRICS_NAMESPACE ?? 'LatamPayments',
  serviceName: process.env.POWERTOOLS_SERVICE_NAME ?? SERVICE_NAME,
});
export const tracer = new Tracer({ serviceName: process.env.POWERTOOLS_SERVICE_NAME ?? SERVICE_NAME });
