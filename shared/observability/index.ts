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
/**
 * Metrics' own messages go through the logger. A flush with nothing stored is routine here (a route writes a
 * metric only when it answers 5xx), so Metrics' warning about it is a debug line, not a WARN line on every
 * request (at the live stage's WARN level it would be most of a route's log bytes).
 */
const metricsLogger = {
  trace: (...a: unknown[]) => logger.debug(String(a[0]), ...a.slice(1).map((x) => ({ detail: x }))),
  debug: (...a: unknown[]) => logger.debug(String(a[0]), ...a.slice(1).map((x) => ({ detail: x }))),
  info: (...a: unknown[]) => logger.info(String(a[0]), ...a.slice(1).map((x) => ({ detail: x }))),
  warn: (...a: unknown[]) =>
    String(a[0]).startsWith('No application metrics to publish')
      ? logger.debug(String(a[0]))
      : logger.warn(String(a[0]), ...a.slice(1).map((x) => ({ detail: x }))),
  error: (...a: unknown[]) => logger.error(String(a[0]), ...a.slice(1).map((x) => ({ detail: x }))),
};
export const metrics = new Metrics({
  namespace: process.env.POWERTOOLS_METRICS_NAMESPACE ?? 'LatamPayments',
  serviceName: process.env.POWERTOOLS_SERVICE_NAME ?? SERVICE_NAME,
  logger: metricsLogger,
});
