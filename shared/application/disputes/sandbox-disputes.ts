/**
 * Disputes in test mode (DESIGN.md 9.4): a test payment disputed by simulate (a card chargeback, the amount withdrawn;
 * a PIX MED infraction, nothing moved), answered like a live one, and decided by the sandbox's issuer a few seconds
 * after a submission: won, unless the staged text contains `losing_evidence` (as Stripe's test mode reads evidence).
 * Accepting a chargeback needs no decision: the case is closed and the amount stays withdrawn; an accepted PIX MED is
 * lost a few seconds later (the Pix returned, its amount debited). Each moves the test balance by the
 * same rules and transaction as a live notice.
 */
import { disputeIdOf, type DisputeCase } from '../../domain/disputes/dispute-case';
import type { SimulateDisputeInput } from '../../domain/disputes/dispute.schemas';
import { AppError } from '../../domain/errors';
import { applyDisputeSignal, type DisputeSignal } from '../../domain/payments/dispute';
import type { Payment } from '../../domain/payments/payment';
import type { Principal } from '../access';
import { ownPayment } from '../payments';
import { commitDisputeStep, disputable } from '../rails';
import type { DisputeDeps } from './dispute-deps';

/** The evidence text that makes the sandbox's issuer decide against the merchant. */
export const SANDBOX_LOSING_EVIDENCE = 'losing_evidence';
/** How long a test dispute may be answered (unless simulate sets its evidence_due_by). */
export const SANDBOX_EVIDENCE_DAYS = 7;

/** Opens (or moves) a test payment's dispute by a signal, as a provider's notice would. */
export async function signalSandboxDispute(
  deps: DisputeDeps,
  payment: Payment,
  kind: 'chargeback' | 'fraud_return',
  signal: DisputeSignal,
  opts: { reasonCode?: string | null; deadline?: string } = {},
) {
  return commitDisputeStep(deps, payment, (p, at) => {
    const state = disputable(p);
    if (state !== 'ok') return state;
    const deadline = new Date(opts.deadline ?? Date.parse(at) + SANDBOX_EVIDENCE_DAYS * 86_400_000).toISOString();
    return applyDisputeSignal(p.dispute ?? null, signal, {
      amountMinor: p.amount_minor,
      reasonCode: opts.reasonCode ?? (kind === 'fraud_return' ? 'scam' : '13.1'),
      providerReference: `sandbox_${p.payment_id}`,
      at,
      kind,
      ...(p.dispute ? {} : { deadline }),
    });
  });
}

/**
 * The sandbox issuer's decision on a submitted test dispute (the settlement queue): won or lost, once. An accepted
 * PIX MED is decided too, lost: the payer's bank returns the Pix (the amount is debited now), as the PSP would.
 */
export async function decideSandboxDispute(deps: DisputeDeps, disputeId: string): Promise<void> {
  const d = await deps.disputes.get(disputeId);
  const acceptedMed = d?.status === 'accepted' && d.kind === 'pix_med';
  if (!d || d.livemode || (d.status !== 'under_review' && !acceptedMed)) return;
  const payment = await deps.store.getPayment(d.payment_id);
  if (!payment) return;
  const loses = acceptedMed || (d.evidence?.text ?? '').includes(SANDBOX_LOSING_EVIDENCE);
  await signalSandboxDispute(deps, payment, payment.dispute?.kind ?? 'chargeback', loses ? 'lost' : 'won');
}

/**
 * A test payment disputed by its payer's bank: a card payment charged back (the amount withdrawn from the test
 * balance), a PIX payment under a MED infraction (nothing moves until it is decided). Once per payment: a second call
 * answers the same dispute.
 */
export async function simulateDispute(
  deps: DisputeDeps,
  principal: Principal,
  paymentId: string,
  input: SimulateDisputeInput,
): Promise<DisputeCase> {
  const payment = await ownPayment(deps, principal, paymentId);
  if (payment.livemode) throw new AppError('FORBIDDEN', 'Simulations take test payments only.');
  const kind = payment.payment_method === 'card' ? 'chargeback' : payment.payment_method === 'pix' ? 'fraud_return' : null;
  if (!kind || disputable(payment) !== 'ok')
    throw new AppError('PAYMENT_STATE_CONFLICT', 'Only a successful (or refunded) card or PIX test payment can be disputed.');
  if (!payment.dispute)
    await signalSandboxDispute(deps, payment, kind, 'withdrawn', {
      reasonCode: input.reason_code ?? null,
      ...(input.evidence_due_by ? { deadline: input.evidence_due_by } : {}),
    });
  const d = await deps.disputes.get(disputeIdOf(payment.payment_id));
  if (!d) throw new Error(`dispute of ${payment.payment_id} not found after it was opened`);
  return d;
}
