/**
 * The scheduled reconciliation of live payments a provider holds (missed callbacks, timeouts, expiry): each due
 * payment goes to the row of the held-strategy table (held.ts) whose provider holds it.
 */
import { ageSeconds } from '../../domain/age';
import { awaitsProvider } from '../../domain/payments/payment';
import type { PaymentDeps } from '../ports';
import { ProviderUnavailable } from '../providers';
import { heldCheck } from './held';
import type { ReconcileOptions } from './held-types';

const later = (now: Date, seconds: number) => new Date(now.getTime() + seconds * 1000).toISOString();

export interface ReconcileResult extends Record<string, number> {
  checked: number;
  settled: number;
  expired: number;
  failed: number;
  mismatched: number;
  unavailable: number;
  oldestAgeSeconds: number;
}

/** The scheduled job: every provider-held payment whose read-back is due, in a bounded batch. */
export async function reconcileHeldPayments(deps: PaymentDeps, now: Date, opts: ReconcileOptions = {}): Promise<ReconcileResult> {
  const limit = opts.limit ?? 50;
  const result: ReconcileResult = { checked: 0, settled: 0, expired: 0, failed: 0, mismatched: 0, unavailable: 0, oldestAgeSeconds: 0 };
  result.oldestAgeSeconds = ageSeconds(await deps.store.oldestProviderCheck(), now);
  const connectors = await deps.connectors.forMode(true);
  const due = await deps.store.dueForProviderCheck(now.toISOString(), limit);
  for (const id of due) {
    result.checked++;
    try {
      const check = heldCheck(connectors, id, await deps.store.getPayment(id));
      if (!check) throw new ProviderUnavailable('pix', 'configuration', 'no live PIX provider is configured');
      const outcome = await check(deps, now, opts);
      if (outcome === 'settled') result.settled++;
      if (outcome === 'expired') result.expired++;
      if (outcome === 'failed') result.failed++;
      if (outcome === 'mismatch') result.mismatched++;
    } catch (e) {
      if (!(e instanceof ProviderUnavailable)) throw e;
      result.unavailable++;
      const p = await deps.store.getPayment(id);
      if (p && awaitsProvider(p)) {
        await deps.store
          .touchPayment({ payment: p, patch: {}, nextCheckAt: later(now, 60), now: now.toISOString() })
          .catch(() => undefined);
      }
    }
  }
  return result;
}
