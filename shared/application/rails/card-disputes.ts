/**
 * A card payment's dispute from its provider's notices (issue 23): each notice is a signal (funds withdrawn, case
 * won, case lost) that moves the payment's dispute forward (shared/domain/payments/dispute.ts), with its balance
 * movements (chargeback / chargeback_reversal ledger entries) and payment.disputed / dispute_won / dispute_lost
 * events in one transaction, conditional on the stage read: a replay, a duplicate or a stale notice moves nothing.
 */
import { paymentEvent } from '../../domain/events';
import { applyDisputeSignal } from '../../domain/payments/dispute';
import type { Payment } from '../../domain/payments/payment';
import type { CardNotification } from '../providers';
import { type PaymentDeps, commitAndPublish, WriteConflict } from '../ports';

/** applied / duplicate; mismatch: another currency or an amount outside the payment's; deferred: the payment is not paid (yet). */
export type DisputeOutcome = 'applied' | 'duplicate' | 'mismatch' | 'deferred' | 'unknown';

const ATTEMPTS = 3;

export async function applyDisputeNotice(deps: PaymentDeps, n: CardNotification, read: Payment): Promise<DisputeOutcome> {
  const signal = n.dispute;
  if (!signal) return 'unknown';
  let payment = read;
  for (let attempt = 1; ; attempt++) {
    // Only money we collected can be charged back: an open payment waits for its own outcome first (the provider
    // sends the notice again); one we closed unpaid is an operator's case, never a movement.
    if (payment.status === 'pending' || payment.status === 'pending_3ds' || payment.status === 'processing') return 'deferred';
    if (payment.status !== 'success' && payment.status !== 'refunded') return 'mismatch';
    if (!payment.dispute && (n.currency !== payment.currency || n.amountMinor <= 0 || n.amountMinor > payment.amount_minor))
      return 'mismatch';
    const at = deps.clock.now().toISOString();
    const step = applyDisputeSignal(payment.dispute ?? null, signal.signal, {
      amountMinor: n.amountMinor,
      reasonCode: signal.reasonCode,
      providerReference: n.pspReference,
      at,
    });
    if (!step) return 'duplicate';
    const next: Payment = { ...payment, dispute: step.next, updated_at: at };
    const session = payment.checkout_session_id ? await deps.store.getSession(payment.checkout_session_id) : null;
    try {
      await commitAndPublish(
        deps.publisher,
        deps.store.disputePayment({
          payment,
          dispute: step.next,
          movements: step.movements.map((m) => ({ amountMinor: m.amountMinor, reason: m.reason, entryId: deps.ids.newId('le_') })),
          events: step.events.map((type) => paymentEvent(type, next, session, deps.ids.newId('evt_'), at)),
          now: at,
        }),
      );
      return 'applied';
    } catch (e) {
      if (!(e instanceof WriteConflict) || e.entity !== 'payment' || attempt >= ATTEMPTS) throw e;
      const now = await deps.store.getPayment(payment.payment_id);
      if (!now) throw e;
      payment = now; // another notice moved it meanwhile: decide again on what is stored
    }
  }
}
