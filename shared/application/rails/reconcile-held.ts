/**
 * The scheduled reconciliation of live payments a provider holds (missed callbacks, timeouts, expiry): each due
 * payment goes to the row of the held-strategy table (held.ts) whose provider holds it.
 */
import { ageSeconds } from '../../domain/age';
import { awaitsProvider, type Payment } from '../../domain/payments/payment';
import { READ_BACK_ON_READ_GAP_SECONDS } from '../../domain/payments/read-back';
import { WriteConflict, type PaymentDeps } from '../ports';
import { ProviderUnavailable } from '../providers';
import { heldCheck, heldReadBack } from './held';
import type { ReconcileOptions } from './held-types';
import { watchAbandonedAttempts } from './attempt-watches';

const later = (now: Date, seconds: number) => new Date(now.getTime() + seconds * 1000).toISOString();

export interface ReconcileResult extends Record<string, number> {
  checked: number;
  /** Abandoned attempts read back (attempt-watches.ts) and, of those, undone (a late charge removed or refunded). */
  watched: number;
  undone: number;
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
  const result: ReconcileResult = {
    checked: 0,
    watched: 0,
    undone: 0,
    settled: 0,
    expired: 0,
    failed: 0,
    mismatched: 0,
    unavailable: 0,
    oldestAgeSeconds: 0,
  };
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
  const watches = await watchAbandonedAttempts(deps, connectors, now, limit);
  result.watched += watches.watched;
  result.undone += watches.undone;
  result.unavailable += watches.unavailable;
  return result;
}

const add = (into: ReconcileResult, r: ReconcileResult) => {
  for (const k of Object.keys(r)) if (k !== 'oldestAgeSeconds') into[k] = (into[k] ?? 0) + (r[k] ?? 0);
};

/**
 * The job's run: one pass now, then, while the next read-back of a held payment falls inside the window (a young
 * payment's early read-backs at 10, 30 and 60 s), one pass at that time, at most `maxPasses`. With nothing due
 * soon it returns after the first pass, so an idle stage pays one short invocation a minute; the window ends
 * before the next scheduled run begins.
 */
export async function reconcileHeldWindow(
  deps: PaymentDeps,
  opts: ReconcileOptions & { windowSeconds: number; first?: Date; maxPasses?: number; sleep?: (ms: number) => Promise<void> },
): Promise<ReconcileResult> {
  const sleep = opts.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const end = deps.clock.now().getTime() + opts.windowSeconds * 1000;
  const total = await reconcileHeldPayments(deps, opts.first ?? deps.clock.now(), opts);
  for (let pass = 1; pass < (opts.maxPasses ?? 30); pass++) {
    const next = await deps.store.oldestProviderCheck();
    if (!next) break;
    const now = deps.clock.now().getTime();
    // At least a second apart: a payment whose check leaves it due is not read back in a tight loop.
    const at = Math.max(Date.parse(next), now + 1000);
    if (!Number.isFinite(at) || at > end) break;
    await sleep(at - now);
    add(total, await reconcileHeldPayments(deps, deps.clock.now(), opts));
  }
  return total;
}

/**
 * A status read of a live payment its provider holds (the merchant's GET, the hosted page's poll) reads it back
 * once, when none did in the last READ_BACK_ON_READ_GAP_SECONDS: claimed on the payment item first, so however
 * many poll, the provider is asked at most once per gap for each payment. The provider not answering changes
 * nothing: the read answers what is stored, and the job reads it back on its schedule.
 */
export async function readBackOnRead(deps: PaymentDeps, p: Payment, opts: ReconcileOptions = {}): Promise<Payment> {
  if (!p.livemode || !awaitsProvider(p)) return p;
  const now = deps.clock.now();
  const check = heldReadBack(await deps.connectors.forMode(true), p.payment_id, p);
  if (!check) return p;
  if (!(await deps.store.claimReadBack({ payment: p, now: now.toISOString(), gapSeconds: READ_BACK_ON_READ_GAP_SECONDS }))) return p;
  try {
    await check(deps, now, opts);
  } catch (e) {
    if (!(e instanceof ProviderUnavailable) && !(e instanceof WriteConflict)) throw e;
    return p;
  }
  return (await deps.store.getPayment(p.payment_id)) ?? p;
}
