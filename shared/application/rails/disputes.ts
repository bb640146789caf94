/**
 * A payment's dispute moved one step, whatever the rail (card chargebacks, PIX fraud returns): the rail decides
 * the step on the payment as stored (shared/domain/payments/dispute.ts), and the step is written with its balance
 * movements and payment.disputed / dispute_won / dispute_lost events in one transaction, conditional on the stage
 * read: a replay, a duplicate or a stale notice moves nothing; a racing notice makes it decide again. The merchant's
 * case (DESIGN.md 9.4, dsp_) follows in the same transaction, conditional on its revision read: created by the first
 * notice, its status, amount and deadline after each, with dispute.* events beside the payment's.
 */
import { caseAfterNotice, disputeIdOf } from '../../domain/disputes/dispute-case';
import { disputeCaseEvent } from '../../domain/disputes/dispute-events';
import { paymentEvent } from '../../domain/events';
import type { DisputeStep } from '../../domain/payments/dispute';
import type { Payment } from '../../domain/payments/payment';
import { type PaymentDeps, commitAndPublish, WriteConflict } from '../ports';

/** applied / duplicate; mismatch: another currency or an amount outside the payment's; deferred: the payment is not paid (yet). */
export type DisputeOutcome = 'applied' | 'duplicate' | 'mismatch' | 'deferred' | 'unknown';

const ATTEMPTS = 3;

/** The step for the payment as stored (null: nothing to do), or why none applies. */
export type DisputeDecision = DisputeStep | null | Exclude<DisputeOutcome, 'applied' | 'duplicate'>;

/** Only money we collected can be disputed: an open payment waits for its own outcome; one closed unpaid is an operator's case. */
export function disputable(payment: Payment): 'ok' | 'deferred' | 'mismatch' {
  if (payment.status === 'pending' || payment.status === 'pending_3ds' || payment.status === 'processing') return 'deferred';
  if (payment.status !== 'success' && payment.status !== 'refunded') return 'mismatch';
  return 'ok';
}

export async function commitDisputeStep(
  deps: PaymentDeps,
  read: Payment,
  decide: (payment: Payment, at: string) => DisputeDecision,
): Promise<DisputeOutcome> {
  let payment = read;
  for (let attempt = 1; ; attempt++) {
    const at = deps.clock.now().toISOString();
    const step = decide(payment, at);
    if (step === null) return 'duplicate';
    if (typeof step === 'string') return step;
    const next: Payment = { ...payment, dispute: step.next, updated_at: at };
    const session = payment.checkout_session_id ? await deps.store.getSession(payment.checkout_session_id) : null;
    const current = await deps.store.getDisputeCase(disputeIdOf(payment.payment_id));
    const origin = {
      payment_id: payment.payment_id,
      merchant_id: payment.merchant_id,
      livemode: payment.livemode,
      currency: payment.currency,
      notification_url: payment.notification_url,
      metadata: payment.metadata,
      provider: payment.livemode ? (payment.provider?.name ?? null) : null,
    };
    const kase = caseAfterNotice(current, step.next, origin, at, step.movements.length > 0);
    try {
      await commitAndPublish(
        deps.publisher,
        deps.store.disputePayment({
          payment,
          dispute: step.next,
          disputeCase: { next: kase.next, readRevision: current?.revision ?? null },
          movements: step.movements.map((m) => ({ amountMinor: m.amountMinor, reason: m.reason, entryId: deps.ids.newId('le_') })),
          events: [
            ...step.events.map((type) => paymentEvent(type, next, session, deps.ids.newId('evt_'), at)),
            ...kase.events.map((type) => disputeCaseEvent(type, kase.next, deps.ids.newId('evt_'), at)),
          ],
          now: at,
        }),
      );
      return 'applied';
    } catch (e) {
      if (!(e instanceof WriteConflict) || (e.entity !== 'payment' && e.entity !== 'dispute') || attempt >= ATTEMPTS) throw e;
      const now = await deps.store.getPayment(payment.payment_id);
      if (!now) throw e;
      payment = now; // another notice moved it meanwhile: decide again on what is stored
    }
  }
}
