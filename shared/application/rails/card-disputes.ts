/**
 * A card payment's dispute from its provider's notices (issue 23): each notice is a signal (funds withdrawn, case
 * won, case lost) that moves the payment's dispute forward (shared/domain/payments/dispute.ts), with its balance
 * movements (chargeback / chargeback_reversal ledger entries) and events, written by commitDisputeStep.
 */
import { applyDisputeSignal } from '../../domain/payments/dispute';
import type { Payment } from '../../domain/payments/payment';
import type { CardNotification } from '../providers';
import type { PaymentDeps } from '../ports';
import { commitDisputeStep, disputable, type DisputeOutcome } from './disputes';

/** A dispute notice in our words: Adyen's notification item, or a chargeback read back from its provider (dLocal's). */
export type DisputeNoticeOf = Pick<CardNotification, 'dispute' | 'currency' | 'amountMinor' | 'pspReference'>;

export async function applyDisputeNotice(deps: PaymentDeps, n: DisputeNoticeOf, read: Payment): Promise<DisputeOutcome> {
  const signal = n.dispute;
  if (!signal) return 'unknown';
  return commitDisputeStep(deps, read, (payment, at) => {
    const state = disputable(payment);
    if (state !== 'ok') return state;
    if (!payment.dispute && (n.currency !== payment.currency || n.amountMinor <= 0 || n.amountMinor > payment.amount_minor))
      return 'mismatch';
    return applyDisputeSignal(payment.dispute ?? null, signal.signal, {
      amountMinor: n.amountMinor,
      reasonCode: signal.reasonCode,
      providerReference: n.pspReference,
      deadline: signal.deadline ?? null,
      at,
    });
  });
}
