/**
 * Provider metrics (EMF, dimension set [service, provider]): every call's count, error and latency, and the
 * callbacks a provider sends. Each is published at once (a single metric), whatever else the function
 * buffers, so the alarms of lib/monitoring.ts see the same dimension set from routes, workers and jobs.
 */
import { MetricUnit } from '@aws-lambda-powertools/metrics';
import { metrics } from './index';

export type ProviderCallbackOutcome = 'Accepted' | 'Rejected' | 'Unknown';

function single(provider: string) {
  const m = metrics.singleMetric();
  m.addDimension('provider', provider);
  return m;
}

/** One call to a provider: its latency, and whether it failed to give an answer (timeout, connection, 5xx, auth). */
export function recordProviderCall(provider: string, latencyMs: number, failed: boolean): void {
  const m = single(provider);
  m.addMetric('ProviderCalls', MetricUnit.Count, 1);
  m.addMetric('ProviderCallErrors', MetricUnit.Count, failed ? 1 : 0);
  m.addMetric('ProviderCallLatency', MetricUnit.Milliseconds, latencyMs);
}

/** A callback's items by outcome (one metric line per callback). */
export function recordProviderCallbacks(provider: string, counts: Readonly<Record<ProviderCallbackOutcome, number>>): void {
  const m = single(provider);
  for (const [outcome, n] of Object.entries(counts)) m.addMetric(`ProviderCallbacks${outcome}`, MetricUnit.Count, n);
}

/** Money a provider reports that the service did not settle (a different amount, or paid after the payment closed): pages. */
export function recordProviderAmountMismatch(provider: string, count = 1): void {
  single(provider).addMetric('ProviderAmountMismatch', MetricUnit.Count, count);
}
