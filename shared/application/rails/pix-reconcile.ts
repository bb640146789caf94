/**
 * Resolving live payments a provider holds, from the provider's own answer: the callback intake (each item
 * read back before it counts) and the scheduled reconciliation (missed callbacks, timeouts, expiry). Both
 * end in applyChargeState, so a Pix settles the same way whichever path sees it first, and only once.
 */
import { nextReadBackAt } from '../../domain/payments/read-back';
import { ageSeconds } from '../../domain/age';
import { AppError } from '../../domain/errors';
import { awaitsProvider, type Payment } from '../../domain/payments/payment';
import { type PixChargeState, type PixConnector, pixRailOf, ProviderUnavailable } from '../providers';
import { matchReceived, openHeldCharge, recordMismatch } from './held-pix';
import type { PaymentDeps } from '../ports';
import { transition } from '../payments';
import { settleRefundsReported } from '../refunds';
import type { HeldOutcome } from './held-types';
import { applyPixFraudReturns } from './pix-disputes';

/** Read again and retried once when the payment moved between the read and the write (a racing callback or request). */
async function fresh(deps: PaymentDeps, p: Payment) {
  return (await deps.store.getPayment(p.payment_id)) ?? p;
}

/**
 * Moves an open payment to what the provider holds: paid with the exact amount -> success (idempotent by the
 * end-to-end id: a settled payment is left alone); a different amount -> recorded and alarmed, not settled;
 * open -> the PIX code (a charge whose creation answer was lost), or removed at the provider once its expiry
 * passed, then expired; removed -> expired; never reached the provider -> failed after a grace period.
 */
export async function applyChargeState(
  deps: PaymentDeps,
  pix: PixConnector,
  payment: Payment,
  state: PixChargeState,
  now: Date,
  opts: { endToEndId?: string; sessionClosed?: boolean; lostIntentSeconds?: number; checkIntervalSeconds?: number } = {},
): Promise<HeldOutcome> {
  const { endToEndId, sessionClosed = false, lostIntentSeconds = 120, checkIntervalSeconds = 120 } = opts;
  if (!awaitsProvider(payment)) return 'closed';
  const at = now.toISOString();
  switch (state.kind) {
    case 'paid':
    case 'removed': {
      const m = matchReceived(payment, state.received, endToEndId);
      if (m.kind === 'match') {
        await transition(deps, payment, 'success', {
          paid_at: m.pix.paidAt,
          expires_at: null,
          ...(state.kind === 'paid' && !payment.artefact ? { artefact: { pix_code: state.charge.pixCode, txid: state.charge.txid } } : {}),
          provider: {
            ...payment.provider!,
            details: {
              ...payment.provider!.details,
              end_to_end_id: m.pix.endToEndId,
              // A provider that refunds by its own payment id: kept even when the charge's opening answer was lost.
              ...(m.pix.providerPaymentId ? { provider_payment_id: m.pix.providerPaymentId } : {}),
            },
          },
        });
        // Paid and already returned for fraud (MED) before we settled: the dispute follows at once.
        if (m.pix.fraudReturns.length > 0) await applyPixFraudReturns(deps, await fresh(deps, payment), m.pix);
        return 'settled';
      }
      if (m.kind === 'mismatch') {
        // Recorded and alarmed, never settled; past its expiry the payment closes (the money stays at the provider
        // for an operator to return), so the alarm clears instead of paging forever.
        await recordMismatch(deps, payment, m.pix.amountMinor, m.pix.endToEndId);
        const current = await fresh(deps, payment);
        if (current.expires_at && Date.parse(current.expires_at) <= now.getTime()) {
          await transition(deps, current, 'expired', { expires_at: null });
        } else {
          await deps.store.touchPayment({
            payment: current,
            patch: {},
            nextCheckAt: nextReadBackAt(current.created_at, now, checkIntervalSeconds),
            now: at,
          });
        }
        return 'mismatch';
      }
      if (state.kind === 'paid') return 'waiting';
      await transition(deps, payment, 'expired', { expires_at: null });
      return 'expired';
    }
    case 'open': {
      // A PSP that takes no expiry with the charge removes it at the payment's own expiry, or its own if earlier.
      const own = pix.expiresWithPayment && payment.expires_at ? Date.parse(payment.expires_at) : Infinity;
      const due = Math.min(Date.parse(state.expiresAt), own);
      if (due <= now.getTime() || sessionClosed) {
        if (!pix.removeCharge) return 'waiting';
        const after = await pix.removeCharge(payment.provider!.reference);
        return after.kind === 'open' ? 'waiting' : applyChargeState(deps, pix, payment, after, now, opts);
      }
      const current = payment.status === 'processing' ? await openHeldCharge(deps, payment, state.charge) : payment;
      if (awaitsProvider(current)) {
        // Young charges sooner (the shopper is on the page), then the interval; never later than just past expiry.
        const next = Math.min(due + 5_000, Date.parse(nextReadBackAt(current.created_at, now, checkIntervalSeconds)));
        await deps.store.touchPayment({ payment: current, patch: {}, nextCheckAt: new Date(next).toISOString(), now: at });
      }
      return payment.status === 'processing' ? 'opened' : 'waiting';
    }
    case 'not_found': {
      if (payment.status === 'processing' && ageSeconds(payment.created_at, now) >= lostIntentSeconds) {
        await transition(deps, payment, 'failed', {
          failure_code: 'PROVIDER_UNAVAILABLE',
          failure_message: 'The PIX provider never created the charge; nothing was collected.',
          expires_at: null,
        });
        return 'failed';
      }
      await deps.store.touchPayment({
        payment,
        patch: {},
        nextCheckAt: nextReadBackAt(payment.created_at, now, checkIntervalSeconds),
        now: at,
      });
      return 'waiting';
    }
  }
}

/**
 * A paid payment's Pix read back for the returns a callback hinted at: a fraud return (MED) loses its dispute with
 * one debit (applyPixFraudReturns); null when the read-back shows none.
 */
async function readBackFraudReturns(deps: PaymentDeps, pix: PixConnector, paymentId: string, endToEndId: string) {
  const payment = await deps.store.getPayment(paymentId);
  if (!payment?.provider || !pix.getCharge || payment.provider.details.end_to_end_id !== endToEndId) return null;
  const state = await pix.getCharge(payment.provider.reference);
  const received = state.kind === 'paid' || state.kind === 'removed' ? state.received.find((r) => r.endToEndId === endToEndId) : undefined;
  return received ? applyPixFraudReturns(deps, payment, received) : null;
}

/** A session closed (cancelled, expired, completed by another payment) leaves its still-open charge to be removed. */
async function sessionClosed(deps: PaymentDeps, p: Payment): Promise<boolean> {
  if (!p.checkout_session_id) return false;
  const s = await deps.store.getSession(p.checkout_session_id);
  return Boolean(s && s.status !== 'pending' && s.status !== 'processing');
}

/** One payment read back and applied; a racing writer makes it read again once. */
export async function reconcileOne(
  deps: PaymentDeps,
  pix: PixConnector,
  paymentId: string,
  now: Date,
  opts: { endToEndId?: string; lostIntentSeconds?: number; checkIntervalSeconds?: number } = {},
): Promise<HeldOutcome> {
  for (let attempt = 0; ; attempt++) {
    const payment = await deps.store.getPayment(paymentId);
    if (!payment || !payment.provider || !pix.getCharge) return 'closed';
    if (!awaitsProvider(payment)) return 'closed';
    const state = await pix.getCharge(payment.provider.reference);
    try {
      return await applyChargeState(deps, pix, payment, state, now, { ...opts, sessionClosed: await sessionClosed(deps, payment) });
    } catch (e) {
      const raced = e instanceof AppError && e.code === 'PAYMENT_STATE_CONFLICT';
      if (!raced || attempt >= 1) throw e;
    }
  }
}

export interface CallbackResult extends Record<string, number> {
  accepted: number;
  mismatched: number;
  rejected: number;
  unknown: number;
  unavailable: number;
}

/**
 * The PSP's callback: 404 for a wrong token (nothing read), 400 for a body that is not the provider's shape;
 * then each item is read back from the provider and counts only when the provider confirms it. Unknown
 * references are answered 200 and counted (a PSP retrying forever helps nobody).
 */
export async function receivePixCallback(
  deps: PaymentDeps,
  provider: string,
  token: string,
  readBody: () => unknown,
  now: Date,
): Promise<CallbackResult> {
  // Each PSP calls its own route: its token, its parser, its read-backs (a payment held elsewhere is unknown here).
  const rail = pixRailOf(await deps.connectors.forMode(true), provider);
  const callbacks = rail?.callbacks;
  const pix = rail?.charges;
  if (!callbacks || !pix || !callbacks.tokenMatches(token)) throw new AppError('NOT_FOUND');
  const parsed = callbacks.parse(readBody());
  if (!parsed) throw new AppError('VALIDATION_ERROR', "The callback body is not the provider's callback shape.");
  const result: CallbackResult = { accepted: 0, mismatched: 0, rejected: 0, unknown: 0, unavailable: 0 };
  for (const item of parsed.items) {
    const paymentId = callbacks.paymentIdOf(item.reference);
    const payment = paymentId ? await deps.store.getPayment(paymentId) : null;
    // An abandoned attempt's reference (a failover) is unknown here: its watch reads it back (attempt-watches.ts).
    if (!payment || !payment.livemode || payment.provider?.name !== provider || payment.provider.reference !== item.reference) {
      result.unknown++;
      continue;
    }
    try {
      const outcome = awaitsProvider(payment)
        ? await reconcileOne(deps, pix, payment.payment_id, now, { endToEndId: item.endToEndId })
        : 'closed';
      // A callback also fires when a refund (devolução) of the Pix reaches a final state.
      if (outcome === 'mismatch') result.mismatched++;
      const refunds = await settleRefundsReported(deps, payment, item.endToEndId);
      // A return that is not one of our refunds (a MED return): the Pix is read back, and only what it shows counts.
      const returned = item.returnHint ? await readBackFraudReturns(deps, pix, payment.payment_id, item.endToEndId) : null;
      if (returned === 'mismatch') result.mismatched++;
      if (
        outcome === 'settled' ||
        refunds > 0 ||
        returned === 'applied' ||
        (outcome === 'closed' && payment.provider?.details.end_to_end_id === item.endToEndId)
      )
        result.accepted++;
      else result.rejected++;
    } catch (e) {
      if (!(e instanceof ProviderUnavailable)) throw e;
      result.unavailable++; // the reconciliation job reads it back when the provider answers again
    }
  }
  return result;
}

/** What a provider's notification naming one of our PIX charges did. */
export type PixNotificationOutcome = HeldOutcome | 'unknown' | 'duplicate' | 'late';

/**
 * A provider's signed notification (verified by the caller) naming a PIX charge by our reference: a PSP that posts
 * its payments to one route of ours instead of an API Pix callback (an aggregator). The payment must be a live PIX
 * payment held by that provider under that exact reference (an abandoned attempt's reference is unknown here: its
 * watch reads it back); then it is read back through the provider's PIX rail and applied as every PIX read-back is,
 * nothing taken from the notification. A payment closed here is a duplicate, unless the provider holds it paid
 * (`late`: money collected and not settled, which the caller alarms).
 */
export async function receivePixNotification(
  deps: PaymentDeps,
  provider: string,
  n: { readonly reference: string; readonly paymentId: string | null },
  now: Date,
): Promise<PixNotificationOutcome> {
  const pix = pixRailOf(await deps.connectors.forMode(true), provider)?.charges;
  const payment = n.paymentId ? await deps.store.getPayment(n.paymentId) : null;
  if (
    !pix?.getCharge ||
    !payment?.livemode ||
    payment.payment_method !== 'pix' ||
    payment.provider?.name !== provider ||
    payment.provider.reference !== n.reference
  )
    return 'unknown';
  if (awaitsProvider(payment)) return reconcileOne(deps, pix, payment.payment_id, now);
  if (payment.status === 'success' || payment.status === 'refunded') return 'duplicate';
  const state = await pix.getCharge(n.reference);
  return (state.kind === 'paid' || state.kind === 'removed') && state.received.length > 0 ? 'late' : 'duplicate';
}
