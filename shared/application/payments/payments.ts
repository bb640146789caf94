/** Direct payments, completion (3DS, wallet, sandbox simulate) and expiry (SPEC.md 2.4, 3.1, 4.2). */
import { AppError } from '../../domain/errors';
import { paymentEvent } from '../../domain/events';
import {
  awaitsProvider,
  canTransition,
  isOpenPaymentStatus,
  PAYMENT_EVENT,
  type Payment,
  type PaymentStatus,
} from '../../domain/payments/payment';
import { isOpenSessionStatus, type CheckoutSession } from '../../domain/payments/session';
import type { Principal } from '../access';
import { settleExpiry } from './sessions';
import { type PaymentDeps, commitAndPublish, WriteConflict } from '../ports';
import { createRefund } from '../refunds';
import { needsBeneficiary } from '../../domain/refunds/refund';

export async function ownPayment(deps: PaymentDeps, principal: Principal, paymentId: string) {
  const p = await deps.store.getPayment(paymentId);
  if (!p || p.merchant_id !== principal.merchant.merchant_id || p.livemode !== principal.livemode) throw new AppError('PAYMENT_NOT_FOUND');
  return p;
}

export async function getPaymentStatus(deps: PaymentDeps, principal: Principal, merchantId: string, paymentId: string): Promise<Payment> {
  if (merchantId !== principal.merchant.merchant_id) throw new AppError('PAYMENT_NOT_FOUND');
  return settlePaymentExpiry(deps, await ownPayment(deps, principal, paymentId));
}

/** An open payment past its expires_at becomes expired (once), whatever reads it first. */
export async function settlePaymentExpiry(deps: PaymentDeps, p: Payment): Promise<Payment> {
  const now = deps.clock.now();
  if (!isOpenPaymentStatus(p.status) || !p.expires_at || Date.parse(p.expires_at) > now.getTime()) return p;
  // A provider-held charge may have been paid at the last second: only its read-back (reconcileHeldPayments) expires it.
  if (awaitsProvider(p)) return p;
  if (p.checkout_session_id) {
    const s = await deps.store.getSession(p.checkout_session_id);
    if (s && isOpenSessionStatus(s.status) && s.payment_id === p.payment_id && Date.parse(s.expires_at) <= now.getTime()) {
      await settleExpiry(deps, s);
      return (await deps.store.getPayment(p.payment_id)) ?? p;
    }
  }
  await transition(deps, p, 'expired', {}).catch((e: unknown) => {
    if (!(e instanceof AppError)) throw e;
  });
  return (await deps.store.getPayment(p.payment_id)) ?? p;
}

/**
 * One conditional transition with its event, session update and (on success) credit. A payment that
 * succeeds after another payment already completed its session (the shopper paid twice) still succeeds,
 * without touching the session, and is refunded in full at once with reason `duplicate`.
 */
export async function transition(
  deps: PaymentDeps,
  p: Payment,
  to: PaymentStatus,
  patch: Partial<Payment>,
  linkSession = true,
): Promise<Payment> {
  if (!canTransition(p.status, to)) throw new AppError('PAYMENT_STATE_CONFLICT', `A ${p.status} payment cannot become ${to}.`);
  const at = deps.clock.now().toISOString();
  const session: CheckoutSession | null = p.checkout_session_id ? await deps.store.getSession(p.checkout_session_id) : null;
  const next: Payment = { ...p, ...patch, status: to, updated_at: at };
  const type = PAYMENT_EVENT[to];
  const events = type ? [paymentEvent(type, next, session, deps.ids.newId('evt_'), at)] : [];
  const link =
    session && linkSession
      ? to === 'success'
        ? { sessionId: session.session_id, complete: true, latestOnly: false }
        : session.payment_id === p.payment_id
          ? { sessionId: session.session_id, complete: false, latestOnly: true }
          : undefined
      : undefined;
  try {
    await commitAndPublish(
      deps.publisher,
      deps.store.transitionPayment({
        payment: p,
        to,
        patch,
        session: link,
        events,
        credit: to === 'success' ? { amountMinor: p.amount_minor, currency: p.currency, entryId: deps.ids.newId('le_') } : undefined,
        now: at,
      }),
    );
  } catch (e) {
    if (e instanceof WriteConflict && e.entity === 'session' && to === 'success' && session) {
      const now = await deps.store.getSession(session.session_id);
      if (now?.status === 'completed' && now.payment_id !== p.payment_id)
        return refundDuplicate(deps, await transition(deps, p, to, patch, false));
      // Money a provider took counts even when the session closed meanwhile: the payment succeeds on its own.
      if (p.provider) return transition(deps, p, to, patch, false);
      throw new AppError('SESSION_NOT_PENDING', 'The checkout session was already completed, cancelled or expired.');
    }
    if (e instanceof WriteConflict) throw new AppError('PAYMENT_STATE_CONFLICT', 'The payment changed concurrently; retry the read.');
    throw e;
  }
  return next;
}

/** The second successful payment of one session goes back in full (a voucher payment needs a beneficiary: left to the merchant). */
async function refundDuplicate(deps: PaymentDeps, paid: Payment): Promise<Payment> {
  if (!needsBeneficiary(paid.payment_method)) {
    await createRefund(deps, { system: true }, paid.payment_id, { reason: 'duplicate', metadata: {} }, deps.ids.newId('re_')).catch(
      (e: unknown) => {
        if (!(e instanceof AppError)) throw e;
      },
    );
  }
  return (await deps.store.getPayment(paid.payment_id)) ?? paid;
}

/**
 * Completes an open payment: 3DS challenge and wallet approval pages, and the
 * sandbox simulate endpoint. Completing to the state it already has is a no-op
 * (so a double click or a racing duplicate never credits twice).
 */
export async function completePayment(deps: PaymentDeps, paymentId: string, outcome: 'success' | 'failed', principal?: Principal) {
  const p = principal ? await ownPayment(deps, principal, paymentId) : await deps.store.getPayment(paymentId);
  if (!p) throw new AppError('PAYMENT_NOT_FOUND');
  const current = await settlePaymentExpiry(deps, p);
  if (current.status === outcome) return current;
  if (!isOpenPaymentStatus(current.status)) throw new AppError('PAYMENT_STATE_CONFLICT', `The payment is already ${current.status}.`);
  let to: PaymentStatus = outcome;
  let patch: Partial<Payment>;
  const at = deps.clock.now().toISOString();
  if (current.payment_method === 'card') {
    const connectors = await deps.connectors.forMode(current.livemode);
    if (!connectors?.card) throw new AppError('METHOD_NOT_AVAILABLE');
    const result = await connectors.card.completeChallenge({ paymentId, authenticated: outcome === 'success' });
    if (result.kind === 'approved') patch = { authorization_code: result.authorizationCode, paid_at: at, expires_at: null };
    else {
      to = 'failed';
      patch = {
        failure_code: result.kind === 'declined' ? 'AUTHENTICATION_FAILED' : 'CARD_DECLINED',
        failure_message: result.kind === 'declined' ? result.message : '3-D Secure failed.',
      };
    }
  } else if (to === 'success') {
    patch = { paid_at: at, expires_at: null };
  } else {
    patch = { failure_code: 'CARD_DECLINED', failure_message: 'The customer did not complete the payment.' };
  }
  try {
    return await transition(deps, current, to, patch);
  } catch (e) {
    // A racing duplicate won: answer with what it did.
    if (e instanceof AppError && e.code === 'PAYMENT_STATE_CONFLICT') {
      const fresh = await deps.store.getPayment(paymentId);
      if (fresh && fresh.status === to) return fresh;
    }
    throw e;
  }
}

/** The scheduled expiry sweep: everything due in the work index, each settled conditionally. */
export async function expireDue(deps: PaymentDeps, now: Date, limit = 200) {
  const due = await deps.store.dueForExpiry(now.toISOString(), limit);
  let expired = 0;
  for (const item of due) {
    if (item.kind === 'session') {
      const s = await deps.store.getSession(item.id);
      if (s && (await settleExpiry(deps, s)).status === 'expired') expired++;
    } else {
      const p = await deps.store.getPayment(item.id);
      if (p && (await settlePaymentExpiry(deps, p)).status === 'expired') expired++;
    }
  }
  return { due: due.length, expired };
}
