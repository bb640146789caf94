/**
 * Payouts: statuses, transitions (SPEC.md 3.3 plus DESIGN.md 5-6), the event
 * each status emits and its balance effect. Pure rules.
 */
import type { EndedAttempt } from '../payments/payment';
import type { CountryCode, CurrencyCode } from '../geo';
import type { MaskedBeneficiary } from './masking';

export const PAYOUT_STATUSES = ['pending', 'processing', 'completed', 'failed', 'cancelled', 'refunded'] as const;
export type PayoutStatus = (typeof PAYOUT_STATUSES)[number];

export const PAYOUT_TRANSITIONS: Readonly<Record<PayoutStatus, readonly PayoutStatus[]>> = {
  pending: ['processing', 'cancelled'],
  processing: ['completed', 'failed'],
  completed: ['refunded'],
  failed: [],
  cancelled: [],
  refunded: [],
};

export const canPayoutTransition = (from: PayoutStatus, to: PayoutStatus) => PAYOUT_TRANSITIONS[from].includes(to);

/** Statuses that give the money back to the merchant's balance (the create debited it). */
export const RETURNS_FUNDS: ReadonlySet<PayoutStatus> = new Set(['failed', 'cancelled', 'refunded']);

export const PAYOUT_EVENT: Readonly<Partial<Record<PayoutStatus, string>>> = {
  processing: 'payout.processing',
  completed: 'payout.completed',
  failed: 'payout.failed',
  refunded: 'payout.refunded',
  cancelled: 'payout.cancelled',
};

/** DESIGN.md section 6: the sandbox beneficiary document decides the outcome. */
export type SandboxOutcome = 'complete' | 'fail' | 'complete_then_refund' | 'hold';
export function sandboxOutcome(document: string): SandboxOutcome {
  switch (document.replace(/\D/g, '')) {
    case '00000000272':
      return 'fail';
    case '00000000353':
      return 'complete_then_refund';
    case '00000000434':
      return 'hold';
    default:
      return 'complete';
  }
}

/** The beneficiary as a payout stores and shows it: document and keys masked (shared/domain/payouts/masking.ts). */
export type StoredBeneficiary = MaskedBeneficiary;

/**
 * A live payout held by a provider: our reference (derived from the payout id, known before the call), the
 * order's summary with documents and accounts masked (`order`), the exact order sealed by the connector
 * (`sealed_order`: every send for one payout is the same request; opaque here, dropped once the payout leaves
 * processing, when it can never be sent again), and what the provider answered (`details`, e.g. its order id).
 */
export interface PayoutProviderLink {
  readonly name: string;
  readonly reference: string;
  readonly order: Readonly<Record<string, string | number>>;
  readonly sealed_order?: string | null;
  readonly details: Readonly<Record<string, string>>;
  /** Which attempt of the payout this is (routing and failover, DESIGN.md 9.2); absent: the first. */
  readonly attempt?: number;
}

/**
 * A completed live payout the beneficiary's bank can still return without telling us: it is read back from
 * the provider at `next_check_at` (ISO), less often as it ages, until `until` (ISO); then it is left alone.
 */
export interface ReturnWatch {
  readonly until: string;
  readonly next_check_at: string;
  readonly checks: number;
}

/** Seconds from one return check to the next, by how many were made: cheap for a watch of days. */
export const RETURN_CHECK_BACKOFF_SECONDS: readonly number[] = [60, 300, 1_800, 7_200, 21_600, 43_200, 86_400];

/** A new watch from `now` for `windowSeconds` (null when the window is 0: no watch). */
export function startReturnWatch(now: Date, windowSeconds: number): ReturnWatch | null {
  if (!(windowSeconds > 0)) return null;
  const until = new Date(now.getTime() + windowSeconds * 1000);
  const next = new Date(Math.min(until.getTime(), now.getTime() + (RETURN_CHECK_BACKOFF_SECONDS[0] as number) * 1000));
  return { until: until.toISOString(), next_check_at: next.toISOString(), checks: 0 };
}

/** The watch after one more check at `now` showing no return: the next check, or null once the window is over. */
export function nextReturnCheck(w: ReturnWatch, now: Date): ReturnWatch | null {
  const until = Date.parse(w.until);
  if (now.getTime() >= until) return null;
  const step = RETURN_CHECK_BACKOFF_SECONDS[Math.min(w.checks + 1, RETURN_CHECK_BACKOFF_SECONDS.length - 1)] as number;
  const next = Math.min(until, now.getTime() + step * 1000);
  return { until: w.until, next_check_at: new Date(next).toISOString(), checks: w.checks + 1 };
}

export interface Payout {
  readonly payout_id: string;
  readonly merchant_id: string;
  readonly livemode: boolean;
  readonly method_code: string;
  readonly country: CountryCode;
  readonly amount_minor: number;
  readonly currency: CurrencyCode;
  readonly status: PayoutStatus;
  readonly beneficiary: StoredBeneficiary;
  /** What the sandbox does with it, decided from the full document at creation (not stored). */
  readonly sandbox_outcome: SandboxOutcome | null;
  readonly description: string | null;
  readonly notification_url: string | null;
  readonly metadata: Record<string, string | number | boolean | null>;
  readonly failure_reason: string | null;
  readonly created_at: string;
  readonly updated_at: string;
  readonly completed_at: string | null;
  /** Live payouts paid through a provider (see PayoutProviderLink); absent otherwise. */
  readonly provider?: PayoutProviderLink | null;
  /** Attempts at other providers that certainly paid nothing before the current one (routing); absent: one attempt. */
  readonly ended_attempts?: readonly EndedAttempt[];
  /** A completed live payout still read back for a return (see ReturnWatch); absent or null otherwise. */
  readonly return_watch?: ReturnWatch | null;
  /**
   * A live payout's send claim (ISO): set when the order is committed (the creating request sends it) and taken
   * again by whoever sends it later. While it is younger than the lease, nobody else sends: a send that is still
   * in flight (or hung) is never raced by a second one.
   */
  readonly send_claimed_at?: string | null;
}

/**
 * The settlement step a payout in this state still owes, if any: money in flight. Processing payouts are
 * settled; a sandbox payout that completes then is returned by the beneficiary bank still owes its return.
 */
export function owedSettlementStep(p: Pick<Payout, 'status' | 'sandbox_outcome'>): 'settle' | 'refund' | null {
  if (p.status === 'processing') return 'settle';
  if (p.status === 'completed' && p.sandbox_outcome === 'complete_then_refund') return 'refund';
  return null;
}
