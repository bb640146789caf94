/**
 * When a failed attempt may go on to the next provider (DESIGN.md 9.2): only when it certainly moved no money.
 * Certain from the error alone: the request never left (connection refused, TLS, no token) or the provider answered
 * a documented "not processed". Unknown (a timeout, a reset, a 5xx): certain only after a read-back by the attempt's
 * reference finds nothing, which the kind's flow does. Anything else (a decline, a refusal not documented as "not
 * processed") ends the attempt as before routing.
 */
import { ProviderRejected, ProviderUnavailable } from '../providers';
import type { AttemptObserver } from '../ports';
import { BREAKER_DEFAULTS, Breakers } from './breaker';
import { ApprovalWatch } from './approval-watch';

export type FailureClass =
  /** Certainly nothing at the provider: fail over. */
  | { readonly kind: 'no_money'; readonly failureCode: string }
  /** No answer: read back by the reference before failing over. */
  | { readonly kind: 'unknown' }
  /** A definite refusal or anything else: the attempt ends as before routing. */
  | { readonly kind: 'final' };

export function classifyFailure(e: unknown): FailureClass {
  if (e instanceof ProviderUnavailable) return e.notSent ? { kind: 'no_money', failureCode: 'provider_unreachable' } : { kind: 'unknown' };
  // A refusal about the payer moved nothing, yet no other provider is asked to override it.
  if (e instanceof ProviderRejected && e.notProcessed && !e.payerRefusal) return { kind: 'no_money', failureCode: 'provider_rejected' };
  return { kind: 'final' };
}

/** This function's breakers (one set per warm container). */
export const breakers = new Breakers(BREAKER_DEFAULTS);
/** This function's watch of approval rates (one per warm container). */
export const approvals = new ApprovalWatch();

/**
 * One attempt's end: its answer or no-answer on the provider's breaker (a change of state told to the observer, which
 * logs and counts it), and the attempt itself with its latency (approval rates per provider, `providers stats`).
 */
export function recordAttempt(
  observer: AttemptObserver | undefined,
  a: { provider: string; kind: string; outcome: AttemptResult; latencyMs: number; now: number },
): void {
  const change = breakers.record(a.provider, a.kind, a.outcome !== 'no_answer', a.now);
  if (change) observer?.breakerChanged(change.provider, change.kind, change.to);
  observer?.attempt(a.provider, a.kind, a.outcome, a.latencyMs);
  // Decided attempts only: a card waiting on 3-D Secure is not yet; a PIX charge or a payout taken (pending) is approved.
  const approved = a.outcome === 'approved' || (a.outcome === 'pending' && a.kind !== 'card');
  if (!approved && a.outcome === 'pending') return;
  const drop = approvals.record(a.provider, a.kind, approved, a.now);
  if (drop) observer?.approvalDropped?.(drop.provider, drop.kind, drop.rate, drop.usual);
}

/** What one call at a provider came to, for its approval and no-answer rates. */
export type AttemptResult = 'approved' | 'pending' | 'declined' | 'rejected' | 'no_answer';
