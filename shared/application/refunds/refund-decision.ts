/** A pending refund's final status, committed: what the rail (sandbox bank, live provider, its notification) decided. */
import { paymentEvent } from '../../domain/events';
import type { Payment } from '../../domain/payments/payment';
import type { CheckoutSession } from '../../domain/payments/session';
import { refundEvent } from '../../domain/refunds/refund-events';
import { canRefundTransition, REFUND_EVENT, type Refund } from '../../domain/refunds/refund';
import { commitAndPublish, WriteConflict, type PaymentDeps } from '../ports';

/** What the rail decided for a pending refund: still pending, or its final status (with the bank's reason when it failed). */
export type RefundDecision = { readonly to: 'pending' } | { readonly to: 'succeeded' } | { readonly to: 'failed'; readonly reason: string };

/**
 * Commits a refund's final status: succeeded counts as settled on the payment (refunded when it reaches the
 * amount); failed releases the reservation and credits the balance back. A lost race on the payment is retried.
 */
export async function applyRefundDecision(
  deps: PaymentDeps,
  refundId: string,
  decision: Exclude<RefundDecision, { to: 'pending' }>,
  attempts = 25,
): Promise<Refund | null> {
  for (let i = 0; i < attempts; i++) {
    const refund = await deps.refunds.get(refundId);
    if (!refund || refund.status !== 'pending') return refund;
    const payment = await deps.store.getPayment(refund.payment_id);
    if (!payment) throw new Error(`refund ${refundId} has no payment ${refund.payment_id}`);
    const to = decision.to;
    if (!canRefundTransition(refund.status, to)) return refund;
    const at = deps.clock.now().toISOString();
    const settled = (payment.refund_settled_minor ?? 0) + refund.amount_minor;
    const fullyRefunded = to === 'succeeded' && settled === payment.amount_minor;
    const patch: Partial<Refund> =
      decision.to === 'succeeded' ? { completed_at: at, failure_reason: null } : { failure_reason: decision.reason, completed_at: null };
    const next: Refund = { ...refund, ...patch, status: to, updated_at: at };
    const refundedMinor = (payment.refunded_minor ?? 0) - (to === 'failed' ? refund.amount_minor : 0);
    const events = [refundEvent(REFUND_EVENT[to], next, { refunded_minor: refundedMinor }, deps.ids.newId('evt_'), at)];
    let session: CheckoutSession | null = null;
    if (fullyRefunded) {
      session = payment.checkout_session_id ? await deps.store.getSession(payment.checkout_session_id) : null;
      const refunded: Payment = {
        ...payment,
        status: 'refunded',
        refunded_minor: refundedMinor,
        refund_settled_minor: settled,
        updated_at: at,
      };
      events.push(paymentEvent('payment.refunded', refunded, session, deps.ids.newId('evt_'), at));
    }
    try {
      await commitAndPublish(
        deps.publisher,
        deps.refunds.settle({
          refund,
          to,
          patch,
          payment,
          fullyRefunded,
          session:
            session && session.payment_id === payment.payment_id
              ? { sessionId: session.session_id, complete: false, latestOnly: true }
              : undefined,
          events,
          creditEntryId: to === 'failed' ? deps.ids.newId('le_') : undefined,
          now: at,
        }),
      );
      return next;
    } catch (e) {
      if (!(e instanceof WriteConflict)) throw e;
      if (e.entity === 'refund') return deps.refunds.get(refundId);
      // payment: another refund of it settled meanwhile; read again and retry after a short jittered pause
      await new Promise((resolve) => setTimeout(resolve, 5 + Math.random() * 20 * (i + 1)));
    }
  }
  throw new Error(`refund ${refundId}: the payment kept changing while settling`);
}
