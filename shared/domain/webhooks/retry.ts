/**
 * The webhook retry schedule (DESIGN.md section 5): attempt at once, then after
 * about 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 14 h, 20 h and 24 h (≈ 3 days),
 * jittered. SQS delays stop at 15 minutes, so longer waits travel as hops.
 */
export const DEFAULT_RETRY_SCHEDULE_SECONDS = [0, 5, 300, 1800, 7200, 18000, 36000, 50400, 72000, 86400] as const;

/** SQS's longest DelaySeconds. */
export const MAX_SQS_DELAY_SECONDS = 900;

export function parseSchedule(raw: string | undefined): number[] {
  if (!raw) return [...DEFAULT_RETRY_SCHEDULE_SECONDS];
  const parts = raw.split(',').map((s) => Number(s.trim()));
  if (parts.length === 0 || parts.some((n) => !Number.isFinite(n) || n < 0)) return [...DEFAULT_RETRY_SCHEDULE_SECONDS];
  return parts;
}

/** Seconds to wait before attempt number `attempt` (0-based), jittered by ±10%; null when there is no such attempt. */
export function delayBeforeAttempt(schedule: readonly number[], attempt: number, random: () => number = Math.random): number | null {
  const base = schedule[attempt];
  if (base === undefined) return null;
  if (base === 0) return 0;
  return Math.max(1, Math.round(base * (0.9 + random() * 0.2)));
}

/** How a wait is carried by SQS: the delay of this message, and when the attempt may run (unix ms). */
export function hop(delaySeconds: number, nowMs: number): { delaySeconds: number; notBefore: number } {
  return { delaySeconds: Math.min(MAX_SQS_DELAY_SECONDS, Math.max(0, Math.ceil(delaySeconds))), notBefore: nowMs + delaySeconds * 1000 };
}

export type DeliveryStatus = 'pending' | 'delivered' | 'retrying' | 'gone' | 'dead_lettered' | 'no_endpoint';

export interface DeliveryAttempt {
  readonly attempt: number;
  readonly at: string;
  readonly url: string | null;
  readonly status: number | null;
  readonly error: string | null;
  readonly duration_ms: number;
}

/** What happens after an attempt's outcome. */
export function nextStep(
  outcome: { ok: boolean; status?: number },
  attempt: number,
  schedule: readonly number[],
): 'delivered' | 'gone' | 'retry' | 'dead_letter' {
  if (outcome.ok) return 'delivered';
  if (outcome.status === 410) return 'gone';
  return attempt + 1 < schedule.length ? 'retry' : 'dead_letter';
}
