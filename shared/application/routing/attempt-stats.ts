/**
 * Approval and no-answer rates and latency per provider and kind (DESIGN.md 9.2, `providers stats`): every attempt a
 * live payment or payout made, as its stored item tells it (the attempts that ended, then the current one by the
 * status it reached), folded per provider and kind. Pure: the items are read by the caller.
 */
import type { Payment } from '../../domain/payments/payment';
import type { Payout } from '../../domain/payouts/payout';

export type AttemptRecordResult = 'approved' | 'declined' | 'rejected' | 'no_answer' | 'pending' | 'skipped';

export interface AttemptRecord {
  readonly provider: string;
  readonly kind: string;
  readonly result: AttemptRecordResult;
  readonly latencyMs?: number;
}

const NO_ANSWER_CODES = new Set(['provider_unreachable', 'provider_no_answer', 'PROVIDER_UNAVAILABLE']);
/** An ended attempt the provider declined (a card's soft decline, failed over once): a decline, not a refusal. */
const DECLINED_CODES = new Set(['soft_decline']);

function ended(kind: string, list: Payment['ended_attempts']): AttemptRecord[] {
  return (list ?? []).map((a) => ({
    provider: a.provider,
    kind,
    result:
      a.outcome === 'skipped'
        ? 'skipped'
        : NO_ANSWER_CODES.has(a.failure_code)
          ? 'no_answer'
          : DECLINED_CODES.has(a.failure_code)
            ? 'declined'
            : 'rejected',
    ...(a.latency_ms !== undefined ? { latencyMs: a.latency_ms } : {}),
  }));
}

const latencyOf = (details: Readonly<Record<string, string>> | undefined) => {
  const n = Number(details?.latency_ms);
  return Number.isFinite(n) && details?.latency_ms !== undefined ? { latencyMs: n } : {};
};

/** What the current attempt of a payment came to at its provider. */
function paymentResult(p: Payment): AttemptRecordResult {
  switch (p.status) {
    case 'success':
    case 'refunded':
      return 'approved';
    case 'failed':
      if (NO_ANSWER_CODES.has(p.failure_code ?? '')) return 'no_answer';
      return p.failure_code === 'PROVIDER_REJECTED' ? 'rejected' : 'declined';
    case 'processing':
    case 'pending_3ds':
      return 'pending';
    default:
      // pending, expired, cancelled: a charge the shopper was shown (the provider did its part) or nothing answered yet.
      return p.artefact ? 'approved' : 'pending';
  }
}

export function attemptsOfPayment(p: Payment): AttemptRecord[] {
  const kind = p.payment_method;
  const current: AttemptRecord[] = p.provider
    ? [{ provider: p.provider.name, kind, result: paymentResult(p), ...latencyOf(p.provider.details) }]
    : [];
  return [...ended(kind, p.ended_attempts), ...current];
}

/** What the current attempt of a payout came to: taken (an order id, or settled), refused, or not answered yet. */
function payoutResult(p: Payout): AttemptRecordResult {
  if (p.status === 'completed' || p.status === 'refunded' || p.provider?.details.order_id) return 'approved';
  if (p.status === 'failed') return 'declined';
  return 'pending';
}

export function attemptsOfPayout(p: Payout, kind: string): AttemptRecord[] {
  const current: AttemptRecord[] = p.provider
    ? [{ provider: p.provider.name, kind, result: payoutResult(p), ...latencyOf(p.provider.details) }]
    : [];
  return [...ended(kind, p.ended_attempts), ...current];
}

export interface ProviderStatsRow {
  readonly provider: string;
  readonly kind: string;
  /** Calls made (skipped ones not counted). */
  readonly attempts: number;
  readonly approved: number;
  readonly declined: number;
  readonly rejected: number;
  readonly no_answer: number;
  readonly pending: number;
  readonly skipped: number;
  /** approved / (approved + declined + rejected + no_answer); null when none decided. */
  readonly approval_rate: number | null;
  /** no_answer / attempts; null without attempts. */
  readonly no_answer_rate: number | null;
  readonly p50_ms: number | null;
  readonly p99_ms: number | null;
  /** The breaker's last reported state (each function container keeps its own; this is the last change any told). */
  readonly breaker: string;
}

/** The q-quantile (nearest rank) of sorted values, or null. */
export function quantile(sorted: readonly number[], q: number): number | null {
  if (sorted.length === 0) return null;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
}

const ratio = (a: number, b: number) => (b > 0 ? Math.round((a / b) * 1000) / 1000 : null);

export function providerStats(
  records: readonly AttemptRecord[],
  breakerStates: ReadonlyArray<{ provider: string; kind: string; state: string }> = [],
): ProviderStatsRow[] {
  const groups = new Map<string, AttemptRecord[]>();
  for (const r of records) {
    const k = `${r.provider}\u0000${r.kind}`;
    groups.set(k, [...(groups.get(k) ?? []), r]);
  }
  return [...groups.entries()]
    .map(([k, rs]) => {
      const [provider = '', kind = ''] = k.split('\u0000');
      const count = (result: AttemptRecordResult) => rs.filter((r) => r.result === result).length;
      const [approved, declined, rejected, noAnswer, pending, skipped] = (
        ['approved', 'declined', 'rejected', 'no_answer', 'pending', 'skipped'] as const
      ).map(count) as [number, number, number, number, number, number];
      const attempts = rs.length - skipped;
      const latencies = rs.flatMap((r) => (r.latencyMs !== undefined ? [r.latencyMs] : [])).sort((a, b) => a - b);
      return {
        provider,
        kind,
        attempts,
        approved,
        declined,
        rejected,
        no_answer: noAnswer,
        pending,
        skipped,
        approval_rate: ratio(approved, approved + declined + rejected + noAnswer),
        no_answer_rate: ratio(noAnswer, attempts),
        p50_ms: quantile(latencies, 0.5),
        p99_ms: quantile(latencies, 0.99),
        breaker: breakerStates.find((b) => b.provider === provider && b.kind === kind)?.state ?? 'closed',
      };
    })
    .sort((a, b) => a.kind.localeCompare(b.kind) || a.provider.localeCompare(b.provider));
}
