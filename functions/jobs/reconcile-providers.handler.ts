/** Scheduled: reads back from the provider every live payment still waiting on it (missed callbacks, timeouts, expiry). */
import { reconcileHeldPayments, reconcileHeldWindow } from '../../shared/application/rails';
import { reconcileDueMandates } from '../../shared/application/mandates';
import { mandateDeps, paymentDeps } from '../../shared/wiring';
import { config } from '../../shared/config';
import { scheduledHandler } from '../../shared/workers/scheduled-handler';
import { recordProviderAmountMismatch } from '../../shared/observability/provider-metrics';
import { API_PIX } from '../../shared/adapters/providers/api-pix/api-pix.client';

export const handler = scheduledHandler({
  run: async (now) => {
    const opts = { lostIntentSeconds: config.providerLostIntentSeconds, checkIntervalSeconds: config.providerCheckIntervalSeconds };
    const window = config.providerReadBackWindowSeconds;
    // A pass at the scheduled time; then, within the window, one at each young payment's early read-back.
    const r =
      window > 0
        ? await reconcileHeldWindow(paymentDeps(), { ...opts, windowSeconds: window, first: now })
        : await reconcileHeldPayments(paymentDeps(), now, opts);
    // Money a provider holds that was not settled pages until an operator resolves it (API Pix is the one held rail today).
    if (r.mismatched > 0) recordProviderAmountMismatch(API_PIX, r.mismatched);
    // Live mandates whose recurrence is read back now (approval pending, or a payer's cancellation in the bank app).
    const mandates = await reconcileDueMandates(mandateDeps(), now);
    return { ...r, mandatesChecked: mandates.checked, unavailable: r.unavailable + mandates.failed };
  },
  // Payments it could not read back are in the warn line below (nothing graphs or pages on a count of them).
  metrics: (r) => ({
    ProviderChecked: r.checked + r.mandatesChecked,
    ProviderReconciled: r.settled + r.expired + r.failed,
    ProviderAwaitingOldestSeconds: r.oldestAgeSeconds,
  }),
  log: (r) =>
    r.unavailable > 0 || r.mismatched > 0
      ? { level: 'warn', message: 'Live payments could not be read back from their provider, or were paid a different amount' }
      : r.settled + r.expired + r.failed > 0
        ? { level: 'info', message: 'Resolved live payments from their provider' }
        : null,
});
