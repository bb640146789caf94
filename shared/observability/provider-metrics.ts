/**
 * Provider metrics (EMF, dimension set [service, provider]): every call's count, error and latency, and the
 * callbacks a provider sends. Each record is one EMF line of its own, published at once whatever else the
 * function buffers, so the alarms of lib/monitoring.ts see the same dimension set from routes, workers and jobs.
 * The pages that fire on any one event (money not settled, our balance at a payout provider too low) are also
 * counted on [service] alone: one alarm reads that for every provider ($0.10 a month, not $0.10 per provider),
 * and the series exists only in the hours something was counted; the provider's own series names it.
 */
import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';

type Unit = (typeof MetricUnit)[keyof typeof MetricUnit];
import { logger, SERVICE_NAME } from './index';

export type ProviderCallbackOutcome = 'Accepted' | 'Rejected' | 'Unknown';

const byProvider = new Map<string, Metrics>();
/** Key '' : the [service] dimension set, every provider's pages together. */
const ANY_PROVIDER = '';

function publish(provider: string, values: ReadonlyArray<readonly [string, Unit, number]>): void {
  let m = byProvider.get(provider);
  if (!m) {
    m = new Metrics({
      namespace: process.env.POWERTOOLS_METRICS_NAMESPACE ?? 'LatamPayments',
      serviceName: process.env.POWERTOOLS_SERVICE_NAME ?? SERVICE_NAME,
      ...(provider === ANY_PROVIDER ? {} : { defaultDimensions: { provider } }),
    });
    byProvider.set(provider, m);
  }
  for (const [name, unit, value] of values) m.addMetric(name, unit, value);
  m.publishStoredMetrics();
}

/** A page: on the provider's series (the dashboard, which provider) and on [service] (the one alarm). */
function page(provider: string, name: string, count: number): void {
  publish(provider, [[name, MetricUnit.Count, count]]);
  publish(ANY_PROVIDER, [[name, MetricUnit.Count, count]]);
}

/** One call to a provider: its latency, and whether it failed to give an answer (timeout, connection, 5xx, auth). */
export function recordProviderCall(provider: string, latencyMs: number, failed: boolean): void {
  publish(provider, [
    ['ProviderCalls', MetricUnit.Count, 1],
    ['ProviderCallErrors', MetricUnit.Count, failed ? 1 : 0],
    ['ProviderCallLatency', MetricUnit.Milliseconds, latencyMs],
  ]);
}

/**
 * A callback's items by outcome, on the provider's series (the dashboard); the refused ones also on [service], where
 * one alarm reads them for every provider (the logs and the dashboard name which).
 */
export function recordProviderCallbacks(provider: string, counts: Readonly<Record<ProviderCallbackOutcome, number>>): void {
  publish(
    provider,
    Object.entries(counts).map(([outcome, n]) => [`ProviderCallbacks${outcome}`, MetricUnit.Count, n] as const),
  );
  if (counts.Rejected > 0) publish(ANY_PROVIDER, [['ProviderCallbacksRejected', MetricUnit.Count, counts.Rejected]]);
}

/** Money a provider reports that the service did not settle (a different amount): pages. */
export function recordProviderAmountMismatch(provider: string, count = 1): void {
  page(provider, 'ProviderAmountMismatch', count);
}

/**
 * A payout refused or failed because our own balance at the provider (the float payouts are paid from) does not
 * cover it: every payout through that provider will fail until it is funded, so this pages.
 */
export function recordPayoutFloatLow(provider: string, count = 1): void {
  page(provider, 'PayoutProviderBalanceLow', count);
}

/**
 * Routing's observations (DESIGN.md 9.2). Every attempt is one structured log line (provider, kind, result, latency:
 * what a Logs Insights query reads; `providers stats` reads the stored attempts), not a metric series per provider and
 * kind, which would bill every hour. What is rare is counted on [service] alone (one series each, whichever provider;
 * the log line names it): a failover, a breaker opening, and what pages: a late success undone, or a provider's approval rate
 * falling below its usual level (one series for both).
 */
export const attemptObserver = {
  attempt(provider: string, kind: string, result: string, latencyMs: number): void {
    logger.info('Provider attempt', { provider, kind, result, latency_ms: Math.round(latencyMs) });
  },
  breakerChanged(provider: string, kind: string, to: string): void {
    logger.warn('Provider breaker changed', { provider, kind, to });
    if (to === 'open') publish(ANY_PROVIDER, [['ProviderBreakerOpened', MetricUnit.Count, 1]]);
  },
  failedOver(provider: string, kind: string, failureCode: string): void {
    logger.warn('Payment failed over to the next provider', { provider, kind, failure_code: failureCode });
    publish(ANY_PROVIDER, [['ProviderFailovers', MetricUnit.Count, 1]]);
  },
  // Both page through one alarm (provider-routing-page) on one series; the log line says which and names the provider.
  lateSuccess(provider: string, kind: string, undone: string): void {
    logger.error('An abandoned attempt moved money after all: undone', { provider, kind, undone, page: true });
    publish(ANY_PROVIDER, [['ProviderRoutingPage', MetricUnit.Count, 1]]);
  },
  approvalDropped(provider: string, kind: string, rate: number, usual: number): void {
    logger.error("A provider's approval rate fell below its usual level", { provider, kind, rate, usual, page: true });
    publish(ANY_PROVIDER, [['ProviderRoutingPage', MetricUnit.Count, 1]]);
  },
};
