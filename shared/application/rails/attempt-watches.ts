/**
 * Late successes of abandoned attempts (DESIGN.md 9.2): an attempt the payment failed over from after no answer and
 * a read-back that found nothing is watched (its own item, shared/domain/payments/attempt-watch.ts) and read back on
 * a schedule. Nothing there by the end of the window: the watch ends. An open charge there: removed (a card: cancelled
 * by the attempt's reference, and paged). Money received there: sent back in full (a devolução per received Pix, a
 * card refund, its id derived from the attempt's reference, so a repeat sends nothing twice) and told to the
 * observer, which pages. Never money we keep.
 */
import { createHash } from 'node:crypto';
import { nextWatchAt, type AttemptWatch } from '../../domain/payments/attempt-watch';
import type { CurrencyCode } from '../../domain/geo';
import type { Payment, ProviderLink } from '../../domain/payments/payment';
import {
  type CardRail,
  cardRailOf,
  type Connectors,
  heldLocalPaths,
  pixRailOf,
  type ProviderRefundState,
  ProviderRejected,
  ProviderUnavailable,
  readsBackRefunds,
  type ReceivedPix,
} from '../providers';
import { WriteConflict, type PaymentDeps } from '../ports';

/** The watch of an attempt abandoned at `at`: first read back one step later. */
export function watchOf(payment: Payment, link: ProviderLink, kind: string, at: string): AttemptWatch {
  return {
    payment_id: payment.payment_id,
    provider: link.name,
    kind,
    reference: link.reference,
    amount_minor: payment.amount_minor,
    currency: payment.currency,
    created_at: at,
    next_check_at: nextWatchAt(at, 0) as string,
    checks: 0,
  };
}

/** What one read-back of a watched attempt found and did. */
export type WatchOutcome = 'nothing' | 'removed' | 'refunded' | 'refunding' | 'waiting';

/** A refund id of ours for a late Pix (`re_` + 16 bytes): derived from the attempt and the Pix, the same on every run. */
export const lateRefundId = (reference: string, endToEndId: string) =>
  `re_${createHash('sha256').update(`late:${reference}:${endToEndId}`).digest().subarray(0, 16).toString('base64url')}`;

type Undo = (deps: PaymentDeps, c: Connectors, w: AttemptWatch) => Promise<WatchOutcome>;

/** Each routed kind's read-back and undo: data, not branches. A kind without a row is read again until its window ends. */
const UNDO: Readonly<Record<string, Undo>> = {
  pix: async (deps, c, w) => {
    const rail = pixRailOf(c, w.provider);
    if (!rail?.charges.getCharge) return 'waiting';
    let state = await rail.charges.getCharge(w.reference);
    if (state.kind === 'not_found') return 'nothing';
    if (state.kind === 'open') {
      if (!rail.charges.removeCharge) return 'waiting';
      state = await rail.charges.removeCharge(w.reference);
      if (state.kind === 'open') return 'waiting';
    }
    const received = state.kind === 'paid' || state.kind === 'removed' ? state.received : [];
    if (received.length === 0) return 'removed';
    if (!rail.refunds) return 'waiting';
    let settled = true;
    for (const pix of received) settled = (await refundLatePix(deps, rail.refunds, w, pix)) && settled;
    return settled ? 'refunded' : 'refunding';
  },
  card: async (deps, c, w) => {
    const rail = cardRailOf(c, w.provider);
    if (!rail?.cards.readBack) return 'waiting';
    const readBack = () => rail.cards.readBack!(w.payment_id, { reference: w.reference });
    const state = await readBack();
    // Nothing, or a decline (nothing collected and nothing can be): nothing to undo.
    if (state.kind === 'not_found' || state.kind === 'declined') return 'nothing';
    if (state.kind === 'approved') return refundLateCard(deps, rail, w, state.pspReference);
    // Open there (authorised, or 3-D Secure unfinished): voided by the attempt's reference.
    try {
      await rail.cards.cancelByReference(w.payment_id, { reference: w.reference });
    } catch (e) {
      if (!(e instanceof ProviderRejected && e.code === 'paid_refund_required')) throw e;
      // Paid meanwhile (a cancel cannot void it): its money goes back by a refund.
      const paid = await readBack();
      return paid.kind === 'approved' ? refundLateCard(deps, rail, w, paid.pspReference) : 'waiting';
    }
    deps.attempts?.lateSuccess(w.provider, w.kind, 'cancelled');
    return 'removed';
  },
};

/**
 * Refunds a late card payment in full once, through the provider that took it: our refund (its id derived from the
 * attempt and the provider's payment) read back first where the provider can be, sent only when it has none. One the
 * provider holds failed stays watched (paged already at its send): an operator decides.
 */
async function refundLateCard(deps: PaymentDeps, rail: CardRail, w: AttemptWatch, pspReference: string): Promise<WatchOutcome> {
  const refunds = rail.refunds;
  if (!refunds) return 'waiting';
  const refundId = lateRefundId(w.reference, pspReference);
  const order = { refundId, amountMinor: w.amount_minor, currency: w.currency as CurrencyCode };
  let state: ProviderRefundState;
  if (readsBackRefunds(refunds)) {
    const known = await refunds.get({ providerPaymentId: pspReference, refundId });
    if (known) return known.kind === 'succeeded' ? 'refunded' : 'refunding';
    const notificationUrl = `${deps.baseUrl()}${heldLocalPaths(rail.cards.provider.name, w.payment_id).notifications}`;
    state = await refunds.send({ ...order, providerPaymentId: pspReference, notificationUrl });
  } else {
    // Acknowledged only (idempotent by our refund's reference), settled by the provider: nothing more to read here.
    state = await refunds.send({ ...order, pspReference });
  }
  deps.attempts?.lateSuccess(w.provider, w.kind, 'refunded');
  return state.kind === 'succeeded' || !readsBackRefunds(refunds) ? 'refunded' : 'refunding';
}

/** Sends a late Pix back in full once (read back first); true when the PSP holds it as returned. */
async function refundLatePix(
  deps: PaymentDeps,
  refunds: NonNullable<ReturnType<typeof pixRailOf>>['refunds'] & object,
  w: AttemptWatch,
  pix: ReceivedPix,
): Promise<boolean> {
  const refundId = lateRefundId(w.reference, pix.endToEndId);
  const ids = { endToEndId: pix.endToEndId, refundId, ...(pix.providerPaymentId ? { providerPaymentId: pix.providerPaymentId } : {}) };
  const known = await refunds.get(ids);
  if (known?.kind === 'succeeded') return true;
  if (known?.kind === 'pending') return false;
  const sent = await refunds.send({
    ...ids,
    amountMinor: pix.amountMinor,
    description: `Returned: payment ${w.payment_id} was paid through another provider`,
    callbackBaseUrl: deps.baseUrl(),
  });
  deps.attempts?.lateSuccess(w.provider, w.kind, 'refunded');
  return sent.kind === 'succeeded';
}

export interface WatchResult extends Record<string, number> {
  watched: number;
  undone: number;
  ended: number;
  unavailable: number;
}

/** The job's step: every watch due, read back and moved on (rescheduled or ended), in a bounded batch. */
export async function watchAbandonedAttempts(deps: PaymentDeps, c: Connectors | null, now: Date, limit = 50): Promise<WatchResult> {
  const result: WatchResult = { watched: 0, undone: 0, ended: 0, unavailable: 0 };
  const at = now.toISOString();
  for (const w of await deps.store.dueAttemptWatches(at, limit)) {
    result.watched++;
    let outcome: WatchOutcome;
    try {
      const undo = UNDO[w.kind];
      outcome = undo && c ? await undo(deps, c, w) : 'waiting';
    } catch (e) {
      if (!(e instanceof ProviderUnavailable)) throw e;
      result.unavailable++;
      outcome = 'waiting';
    }
    if (outcome === 'removed' || outcome === 'refunded') result.undone++;
    // Found nothing: read again until the window ends. Undone: ended. Still moving (open, refunding): every last step.
    const next =
      outcome === 'removed' || outcome === 'refunded'
        ? null
        : (nextWatchAt(w.created_at, w.checks + 1) ?? (outcome === 'nothing' ? null : later(now, 300)));
    if (next === null) result.ended++;
    await deps.store.moveAttemptWatch({ watch: w, nextCheckAt: next, outcome, now: at }).catch((e: unknown) => {
      if (!(e instanceof WriteConflict)) throw e; // another run moved it first
    });
  }
  return result;
}

const later = (now: Date, seconds: number) => new Date(now.getTime() + seconds * 1000).toISOString();
