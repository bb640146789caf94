/**
 * Resumes money in flight whose settlement message was lost (a process died between the commit and the
 * send, or a message expired): every payout still processing (or, in the sandbox, completed with its return
 * still owed) and every refund still pending for longer than the grace period gets its step sent again.
 * Steps are conditional on the status they find, so a duplicate does nothing. Completed live payouts still
 * watched for a return (see ReturnWatch) get their return check sent when it is due.
 */
import { ageSeconds } from '../../domain/age';
import { owedSettlementStep } from '../../domain/payouts/payout';
import type { PaymentDeps } from '../ports';
import type { PayoutDeps } from './payout-transition';

export interface SettlementBacklog {
  /** Payouts processing and refunds pending since at or before `before` (ISO), up to `limit`. */
  since(before: string, limit: number): Promise<Array<{ kind: 'payout' | 'refund'; id: string }>>;
  /** Since when (ISO) the oldest payout has been processing or refund pending; null when nothing is in flight. */
  oldestSince(): Promise<string | null>;
  /** Completed live payouts whose next return check is at or before `atOrBefore` (ISO), up to `limit`. */
  returnChecksDue(atOrBefore: string, limit: number): Promise<string[]>;
}

export interface SettlementDeps {
  readonly backlog: SettlementBacklog;
  readonly payouts: Pick<PayoutDeps, 'store' | 'rails'>;
  readonly payments: Pick<PaymentDeps, 'refunds' | 'refundRails'>;
}

/**
 * Sends again the owed step of what has been in flight past the grace period, and reports how long the
 * oldest item has been in flight (the settlement-SLA alarm reads it).
 */
export async function resumeSettlements(deps: SettlementDeps, now: Date, graceSeconds: number, limit = 200) {
  const oldestAgeSeconds = ageSeconds(await deps.backlog.oldestSince(), now);
  const due = await deps.backlog.since(new Date(now.getTime() - graceSeconds * 1000).toISOString(), limit);
  let resumed = 0;
  for (const item of due) {
    if (item.kind === 'payout') {
      const p = await deps.payouts.store.get(item.id);
      const step = p ? owedSettlementStep(p) : null;
      const rail = p && step ? deps.payouts.rails.forMode(p.livemode) : null;
      if (rail && step) {
        await rail.schedule(item.id, step);
        resumed++;
      }
    } else {
      const r = await deps.payments.refunds.get(item.id);
      const rail = r && r.status === 'pending' ? deps.payments.refundRails.forMode(r.livemode) : null;
      if (rail) {
        await rail.schedule(item.id);
        resumed++;
      }
    }
  }
  // Completed live payouts whose bank may return them without a callback: read back when their check is due.
  const rail = deps.payouts.rails.forMode(true);
  const checks = rail ? await deps.backlog.returnChecksDue(now.toISOString(), limit) : [];
  for (const id of checks) await rail?.schedule(id, 'watch');
  return { due: due.length, resumed, oldestAgeSeconds, returnChecks: checks.length };
}
