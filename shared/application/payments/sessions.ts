/**
 * A checkout session's end as a payment sees it: closing a session (cancelled, expired) with its open payment,
 * the session's URLs, and where a shopper goes after a page outside the hosted checkout.
 */
import { AppError } from '../../domain/errors';
import { paymentEvent, sessionEvent } from '../../domain/events';
import { awaitsProvider, canTransition, isOpenPaymentStatus, type Payment } from '../../domain/payments/payment';
import {
  effectiveSessionStatus,
  isOpenSessionStatus,
  SESSION_EVENT,
  shopperReturnUrl,
  shopperState,
  type CheckoutSession,
} from '../../domain/payments/session';
import { commitAndPublish, WriteConflict, type Answering, type PaymentDeps } from '../ports';

/** Refuses a notification_url the webhook sender would never call (SPEC.md 6; DESIGN.md 5 SSRF rules). */
export function requireSafeNotificationUrl(deps: PaymentDeps, url: string | null | undefined, livemode: boolean) {
  if (!url) return;
  const problem = deps.checkNotificationUrl(url, livemode);
  if (problem)
    throw new AppError('VALIDATION_ERROR', `notification_url is not allowed: ${problem}`, {
      details: [{ field: 'notification_url', message: problem }],
    });
}

export function checkoutUrl(deps: Pick<PaymentDeps, 'baseUrl'>, sessionId: string) {
  return `${deps.baseUrl()}/checkout/${sessionId}`;
}

/**
 * Closes an open session as cancelled or expired, together with its latest payment when that payment may
 * make the same move (a card waiting for 3-D Secure cannot be cancelled: it fails or expires on its own),
 * writing the events in the same transaction. Throws WriteConflict when the session changed in between,
 * including a new attempt linked after it was read.
 */
async function closeSession(
  deps: PaymentDeps,
  s: CheckoutSession,
  to: 'cancelled' | 'expired',
  at: string,
  answering?: Answering<CheckoutSession>,
) {
  const open = s.payment_id ? await deps.store.getPayment(s.payment_id) : null;
  // A live charge a provider holds is left open: the reconciliation job removes it there, then closes it here.
  const openPayment = open && isOpenPaymentStatus(open.status) && canTransition(open.status, to) && !awaitsProvider(open) ? open : null;
  const events = [sessionEvent(SESSION_EVENT[to], { ...s, status: to, updated_at: at }, deps.ids.newId('evt_'), at)];
  if (openPayment) events.push(paymentEvent(`payment.${to}`, { ...openPayment, status: to }, s, deps.ids.newId('evt_'), at));
  await commitAndPublish(
    deps.publisher,
    deps.store.transitionSession({
      session: s,
      to,
      payment: openPayment ? { payment: openPayment, to } : undefined,
      events,
      now: at,
      done: await answering?.({ ...s, status: to, updated_at: at }),
    }),
  );
}

/**
 * closeSession, read again and retried while the session stays open (an attempt linked meanwhile makes the
 * first try fail); the session as closed, or null when someone else closed it first. `answering`: a keyed
 * request's answer for the closed session, recorded in the closing transaction.
 */
export async function closeRetrying(
  deps: PaymentDeps,
  s: CheckoutSession,
  to: 'cancelled' | 'expired',
  at: string,
  answering?: Answering<CheckoutSession>,
  tries = 3,
) {
  let current: CheckoutSession | null = s;
  for (let i = 0; i < tries && current && isOpenSessionStatus(current.status); i++) {
    try {
      await closeSession(deps, current, to, at, answering);
      return current;
    } catch (e) {
      if (!(e instanceof WriteConflict) || e.entity === 'idempotency') throw e;
      current = await deps.store.getSession(s.session_id);
    }
  }
  return null;
}

/** Moves a session past its expires_at to expired (and its open payment), once; then returns it fresh. */
export async function settleExpiry(deps: PaymentDeps, s: CheckoutSession): Promise<CheckoutSession> {
  const now = deps.clock.now();
  if (effectiveSessionStatus(s, now) !== 'expired' || s.status === 'expired') return s;
  await closeRetrying(deps, s, 'expired', now.toISOString()); // null: someone else settled it first
  return (await deps.store.getSession(s.session_id)) ?? s;
}

/**
 * Where a shopper goes after a page outside the hosted checkout (sandbox page, a card's 3-D Secure): a checkout
 * payment to success_url when it succeeded, back to the hosted page while the session still takes payments (it
 * shows the payment as it is, and retries after a decline), else to cancel_url (SPEC.md 6.3); a direct payment to
 * its return_url, or without one to the result page.
 */
export async function shopperNextUrl(deps: PaymentDeps, payment: Payment): Promise<string> {
  if (payment.checkout_session_id) {
    const s = await deps.store.getSession(payment.checkout_session_id);
    if (s) {
      if (payment.status === 'success') return shopperReturnUrl(s.success_url, s.session_id);
      if (shopperState(s) === 'open') return checkoutUrl(deps, s.session_id);
      return shopperReturnUrl(s.cancel_url, s.session_id);
    }
  }
  if (payment.return_url) {
    const url = new URL(payment.return_url);
    url.searchParams.set('payment_id', payment.payment_id);
    url.searchParams.set('status', payment.status);
    return url.toString();
  }
  return `${deps.baseUrl()}/sandbox/3ds/${payment.payment_id}/done`;
}
