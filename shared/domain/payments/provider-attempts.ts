/**
 * A payment's attempts at providers as merchants see them (DESIGN.md 9.2 `provider_attempts`): which provider, and
 * whether it moved the money. The attempts that ended without moving money (failed over, or
 * skipped while their provider was paused) come first, then the current one at `provider`. Never a provider's message:
 * only our failure code. A sandbox payment has none.
 */
import type { Payment } from './payment';

export const ATTEMPT_OUTCOMES = ['succeeded', 'pending', 'failed', 'skipped'] as const;
export type AttemptOutcome = (typeof ATTEMPT_OUTCOMES)[number];

export interface ProviderAttempt {
  /** The provider as the providers document names its block. */
  readonly provider: string;
  readonly outcome: AttemptOutcome;
  /** Our code for a failed attempt (never the provider's text). */
  readonly failure_code?: string;
}

/** What an attempt became, from the payment it made. */
function outcomeOf(p: Payment): AttemptOutcome {
  switch (p.status) {
    case 'success':
    case 'refunded':
      return 'succeeded';
    case 'pending':
    case 'pending_3ds':
    case 'processing':
      return 'pending';
    default: // failed, cancelled, expired: the attempt moved no money
      return 'failed';
  }
}

export function providerAttemptsOf(p: Payment): ProviderAttempt[] {
  const ended: ProviderAttempt[] = (p.ended_attempts ?? []).map((a) => ({
    provider: a.provider,
    outcome: a.outcome,
    failure_code: a.failure_code,
  }));
  if (!p.provider) return ended;
  const outcome = outcomeOf(p);
  const failure = outcome === 'failed' ? (p.failure_code?.toLowerCase() ?? p.status) : null;
  return [...ended, { provider: p.provider.name, outcome, ...(failure ? { failure_code: failure } : {}) }];
}
