/**
 * MED on live PIX payments (issue 33): the central bank's special return mechanism as the payment's dispute, of
 * kind `fraud_return` (shared/domain/payments/dispute.ts). An infraction the PSP reports opens it (reason,
 * deadline; payment.disputed; nothing moves: the PSP holds the funds); an infraction closed without a return wins
 * it (payment.dispute_won; nothing moves); a return with natureza MED_FRAUDE / MED_OPERACIONAL, seen on the
 * infraction read or on the pay-in provider's callback and read-back, loses it (payment.dispute_lost) with one
 * `pix_fraud_return` debit of the returned amount, which may take the balance below zero as a chargeback's may.
 * Every path ends in commitDisputeStep, conditional on the stage read, so whichever sees it first moves the money
 * and the others move nothing.
 */
import { applyDisputeSignal, type DisputeSignal } from '../../domain/payments/dispute';
import type { Payment } from '../../domain/payments/payment';
import type { PixDisputeNotice, ReceivedPix } from '../providers';
import type { PaymentDeps } from '../ports';
import { commitDisputeStep, disputable, type DisputeOutcome } from './disputes';

/** A live PIX payment paid by exactly this Pix (its end-to-end id as settled), else null. */
const paidBy = (p: Payment | null, endToEndId: string) =>
  p && p.livemode && p.payment_method === 'pix' && p.provider?.details.end_to_end_id === endToEndId ? p : null;

function pixDisputeStep(
  payment: Payment,
  signal: DisputeSignal,
  n: { amountMinor: number | null; reasonCode: string | null; providerReference: string; deadline: string | null; at: string },
) {
  const state = disputable(payment);
  if (state !== 'ok') return state;
  const amountMinor = n.amountMinor ?? payment.dispute?.amount_minor ?? payment.amount_minor;
  if (amountMinor <= 0 || amountMinor > payment.amount_minor) return 'mismatch' as const;
  return applyDisputeSignal(payment.dispute ?? null, signal, { ...n, kind: 'fraud_return', amountMinor });
}

/** One infraction notice on the payment its Pix paid: unknown when the Pix paid no live PIX payment of ours. */
export async function applyPixDisputeNotice(deps: PaymentDeps, n: PixDisputeNotice): Promise<DisputeOutcome> {
  const payment = paidBy(n.paymentId ? await deps.store.getPayment(n.paymentId) : null, n.endToEndId);
  if (!payment) return 'unknown';
  return commitDisputeStep(deps, payment, (p) => pixDisputeStep(p, n.signal, n));
}

/**
 * The fraud returns a read-back of the Pix shows (never a callback body): the dispute lost with their total, once.
 * Nothing when the Pix shows none (an ordinary refund keeps its own path).
 */
export async function applyPixFraudReturns(deps: PaymentDeps, read: Payment, pix: ReceivedPix): Promise<DisputeOutcome | null> {
  if (pix.fraudReturns.length === 0) return null;
  const payment = paidBy(read, pix.endToEndId);
  if (!payment) return 'unknown';
  const total = pix.fraudReturns.reduce((s, r) => s + r.amountMinor, 0);
  const last = pix.fraudReturns.reduce((a, b) => (a.at >= b.at ? a : b));
  return commitDisputeStep(deps, payment, (p) =>
    pixDisputeStep(p, 'lost', { amountMinor: total, reasonCode: null, providerReference: last.id, deadline: null, at: last.at }),
  );
}

export interface PixDisputeReadResult extends Record<string, number> {
  read: number;
  applied: number;
  unchanged: number;
  deferred: number;
  mismatched: number;
  unknown: number;
}

/**
 * The scheduled read (no PSP sends infractions as callbacks): every infraction of the last `windowSeconds`
 * (a case stays listed by its opening, so the window spans its whole analysis) applied to its payment.
 * ProviderUnavailable propagates: the job fails and its alarm fires.
 */
export async function readPixDisputes(deps: PaymentDeps, now: Date, opts: { windowSeconds: number }): Promise<PixDisputeReadResult | null> {
  const reader = (await deps.connectors.forMode(true))?.pixDisputes;
  if (!reader) return null;
  const notices = await reader.list({ since: new Date(now.getTime() - opts.windowSeconds * 1000), until: now });
  const r: PixDisputeReadResult = { read: notices.length, applied: 0, unchanged: 0, deferred: 0, mismatched: 0, unknown: 0 };
  for (const n of notices) {
    const outcome = await applyPixDisputeNotice(deps, n);
    if (outcome === 'applied') r.applied++;
    else if (outcome === 'duplicate') r.unchanged++;
    else if (outcome === 'deferred') r.deferred++;
    else if (outcome === 'mismatch') r.mismatched++;
    else r.unknown++;
  }
  return r;
}
