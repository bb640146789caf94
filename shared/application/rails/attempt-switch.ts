/**
 * What every routed pay-in kind does the same way (DESIGN.md 9.2): a skipped attempt's record, the next attempt
 * committed before its call (the ended one, any skipped on the way, and the watch of one abandoned without an answer),
 * and an attempt that ends as it did before routing (no answer: 502 naming the payment; refused: failed).
 */
import { AppError } from '../../domain/errors';
import type { EndedAttempt, Payment, ProviderLink } from '../../domain/payments/payment';
import { ProviderRejected, ProviderUnavailable } from '../providers';
import { transition } from '../payments';
import { type PaymentDeps, WriteConflict } from '../ports';
import { watchOf } from './attempt-watches';

/** A provider passed over because its breaker is open. */
export const skippedAttempt = (provider: string, at: string): EndedAttempt => ({
  provider,
  outcome: 'skipped',
  failure_code: 'provider_paused',
  at,
});

/** The 502 of a payment whose provider did not answer: it stays processing, its outcome follows by webhook. */
export const unanswered = (what: string, payment: Payment) =>
  new AppError(
    'PROVIDER_UNAVAILABLE',
    `The ${what} provider did not answer. Payment ${payment.payment_id} is processing; its outcome follows by webhook.`,
    { paymentId: payment.payment_id },
  );

/**
 * The payment's next attempt at `next` (its reference for that attempt number), committed before the call; null when
 * another writer moved the payment first (the caller reads it again and answers what it holds).
 */
export async function switchPaymentAttempt(
  deps: PaymentDeps,
  payment: Payment,
  kind: string,
  next: { readonly name: string; reference(paymentId: string, attempt: number): string },
  skipped: readonly string[],
  verdict: { failureCode: string; watched: boolean; latencyMs?: number },
): Promise<Payment | null> {
  const link = payment.provider as ProviderLink;
  const attempt = (link.attempt ?? 1) + 1;
  const at = deps.clock.now().toISOString();
  const ended: EndedAttempt = {
    provider: link.name,
    outcome: 'failed',
    failure_code: verdict.failureCode,
    reference: link.reference,
    attempt: link.attempt ?? 1,
    at,
    ...(verdict.latencyMs !== undefined ? { latency_ms: verdict.latencyMs } : {}),
    ...(verdict.watched ? { watched: true } : {}),
  };
  const to: ProviderLink = { name: next.name, reference: next.reference(payment.payment_id, attempt), details: {}, attempt };
  const endedAll = [ended, ...skipped.map((p) => skippedAttempt(p, at))];
  const watch = verdict.watched ? watchOf(payment, link, kind, at) : undefined;
  try {
    await deps.store.switchAttempt({ payment, ended: endedAll, next: to, watch, now: at });
  } catch (e) {
    if (e instanceof WriteConflict) return null;
    throw e;
  }
  return { ...payment, provider: to, ended_attempts: [...(payment.ended_attempts ?? []), ...endedAll], updated_at: at };
}

/** The attempt ends as before routing: no answer (502, processing; the job resolves it) or refused (failed, then 4xx). */
export async function endAsBefore(
  deps: PaymentDeps,
  payment: Payment,
  e: unknown,
  words: { readonly provider: string; readonly refused: (code: string) => string; readonly error: (code: string) => string },
): Promise<never> {
  if (e instanceof ProviderUnavailable) throw unanswered(words.provider, payment);
  if (e instanceof ProviderRejected) {
    await transition(deps, payment, 'failed', {
      failure_code: 'PROVIDER_REJECTED',
      failure_message: words.refused(e.code),
      expires_at: null,
    });
    throw new AppError('PROVIDER_REJECTED', words.error(e.code), { paymentId: payment.payment_id });
  }
  throw e;
}
