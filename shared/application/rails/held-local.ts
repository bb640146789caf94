/**
 * Live local pay-ins an aggregator holds (issue 32): a redirect (held-redirect.ts) or a ticket (held-ticket.ts).
 * The intent (`processing`, with the reference derived from the payment id, so a retry is the same order) is
 * committed before the provider is called; its answer opens the payment (`pending` with the redirect or the
 * ticket). What the provider holds is only ever learned by reading it back: the notification (local-notifications.ts),
 * the shopper's return and the reconciliation job all end in applyLocalState, so a payment settles once.
 */
import { ageSeconds } from '../../domain/age';
import { AppError } from '../../domain/errors';
import { awaitsProvider, type Payment } from '../../domain/payments/payment';
import { nextReadBackAt } from '../../domain/payments/read-back';
import {
  type FoundLocalPayment,
  type HeldLocalPaymentConnector,
  type LocalFlow,
  type LocalPaymentState,
  ProviderRejected,
  ProviderUnavailable,
  heldLocalPaths,
  localRailOf,
} from '../providers';
import { type Initiated, type InitiateRequest, recordNewPayment, shopperNextUrl, transition } from '../payments';
import type { PaymentDeps } from '../ports';
import { recordMismatch } from './held-pix';
import type { HeldOutcome, ReconcileOptions } from './held-types';
import { redirectPatch } from './held-redirect';
import { ticketPatch } from './held-ticket';
import { WALLET_CHOICES, type WalletChoice } from '../../domain/payments/methods';
import { qrPatch } from './held-qr';
import { VOUCHER_GRACE_SECONDS } from './held-voucher';
import { completeHeldCardReturn } from './held-card';

export { heldLocalPaths } from '../providers';

/**
 * What an open payment shows for the artefact the provider gave: a redirect (held-redirect.ts), a ticket
 * (held-ticket.ts) or a QR (held-qr.ts).
 */
function artefactPatch(payment: Payment, state: FoundLocalPayment): Partial<Payment> | null {
  const a = state.artefact;
  if (!a) return null;
  switch (a.kind) {
    case 'redirect':
      return redirectPatch(a.redirectUrl);
    case 'ticket':
      return ticketPatch(payment, a.ticket);
    case 'qr':
      return qrPatch(payment, a, state.quote);
  }
}

const isWalletChoice = (v: string | undefined): v is WalletChoice => (WALLET_CHOICES as readonly (string | undefined)[]).includes(v);

/** The provider's id of the payment, kept once known (a later read-back asks for it by that id). */
const PROVIDER_ID = 'provider_payment_id';

const withProviderId = (p: Payment, providerPaymentId: string): NonNullable<Payment['provider']> => {
  const provider = p.provider as NonNullable<Payment['provider']>;
  return { ...provider, details: { ...provider.details, [PROVIDER_ID]: providerPaymentId } };
};

/**
 * A live local payment: commit it `processing` with the provider reference, create it at the provider, then open it
 * with the provider's redirect or ticket. A keyed retry of a payment whose create never answered repeats the same
 * request (the same order: the provider's "duplicated" is answered by reading it back).
 */
export async function initiateHeldLocal(
  deps: PaymentDeps,
  req: InitiateRequest,
  base: Payment,
  local: HeldLocalPaymentConnector,
): Promise<Initiated> {
  const intent: Payment = {
    ...base,
    status: 'processing',
    return_url: req.returnUrl ?? null,
    // The wallet chosen is part of the intent: a retry sends the provider the same request, never another wallet's.
    provider: {
      name: local.provider.name,
      reference: local.provider.reference(req.paymentId),
      // The name shown at the provider is part of the intent too (a retry after a rename asks the same).
      details: { ...(req.wallet ? { wallet: req.wallet } : {}), shown_name: req.merchant.name.slice(0, 100) },
    },
  };
  const existing = await recordNewPayment(deps, req, {
    payment: intent,
    session: req.session ? { sessionId: req.session.session_id, complete: false, latestOnly: false } : undefined,
    events: [],
    now: intent.created_at,
  });
  if (existing && !(existing.status === 'processing' && !existing.provider?.details[PROVIDER_ID]))
    return { payment: existing, existing: true };
  const payment = existing ?? intent;
  let state: FoundLocalPayment;
  try {
    state = await local.create({
      paymentId: payment.payment_id,
      methodCode: payment.method_code,
      amountMinor: payment.amount_minor,
      currency: payment.currency,
      country: payment.country,
      payer: { name: req.customer.name, email: req.customer.email, document: req.customer.document },
      ...(payment.description ? { description: payment.description } : {}),
      notificationUrl: `${deps.baseUrl()}${heldLocalPaths(local.provider.name, payment.payment_id).notifications}`,
      returnUrl: `${deps.baseUrl()}${heldLocalPaths(local.provider.name, payment.payment_id).return}`,
      ...(isWalletChoice(payment.provider?.details.wallet) ? { wallet: payment.provider.details.wallet } : {}),
      ...(payment.expires_at ? { expiresAt: payment.expires_at } : {}),
      createdAt: payment.created_at,
      merchantName: payment.provider?.details.shown_name ?? req.merchant.name.slice(0, 100),
    });
  } catch (e) {
    if (e instanceof ProviderUnavailable) {
      throw new AppError(
        'PROVIDER_UNAVAILABLE',
        `The payment provider did not answer. Payment ${payment.payment_id} is processing; its outcome follows by webhook.`,
        { paymentId: payment.payment_id },
      );
    }
    if (e instanceof ProviderRejected) {
      await transition(deps, payment, 'failed', {
        failure_code: 'PROVIDER_REJECTED',
        failure_message: `The payment provider refused the payment (${e.code}).`,
        expires_at: null,
      });
      throw new AppError('PROVIDER_REJECTED', `The payment provider refused payment ${payment.payment_id} (${e.code}).`, {
        paymentId: payment.payment_id,
      });
    }
    throw e;
  }
  await applyLocalState(deps, payment, state, deps.clock.now());
  return { payment: (await deps.store.getPayment(payment.payment_id)) ?? payment, existing: Boolean(existing) };
}

/** A conditional move whose loser (a racing notification, return or job) leaves the winner's outcome standing. */
async function move(deps: PaymentDeps, p: Payment, to: Payment['status'], patch: Partial<Payment>): Promise<boolean> {
  try {
    await transition(deps, p, to, patch);
    return true;
  } catch (e) {
    if (e instanceof AppError && e.code === 'PAYMENT_STATE_CONFLICT') return false;
    throw e;
  }
}

/**
 * Moves an open payment to what the provider holds: paid with our amount -> success; another amount -> recorded
 * and alarmed, never settled; rejected -> failed with our code; cancelled or expired -> closed; open -> the redirect
 * or ticket shown (a create whose answer was lost), and past its expiry and a grace -> expired; never reached
 * the provider -> failed after `lostIntentSeconds`.
 */
export async function applyLocalState(
  deps: PaymentDeps,
  payment: Payment,
  state: LocalPaymentState,
  now: Date,
  opts: ReconcileOptions = {},
): Promise<HeldOutcome> {
  if (!awaitsProvider(payment)) return 'closed';
  const { lostIntentSeconds = 120, checkIntervalSeconds = 120 } = opts;
  const at = now.toISOString();
  const touch = (p: Payment, nextCheckAt: string) => deps.store.touchPayment({ payment: p, patch: {}, nextCheckAt, now: at });
  if (!('outcome' in state)) {
    if (payment.status === 'processing' && ageSeconds(payment.created_at, now) >= lostIntentSeconds) {
      const failed = await move(deps, payment, 'failed', {
        failure_code: 'PROVIDER_UNAVAILABLE',
        failure_message: 'The payment provider never created the payment; nothing was collected.',
        expires_at: null,
      });
      return failed ? 'failed' : 'closed';
    }
    // An open payment the provider no longer has (its read answers "not found") expires past its expiry and the grace,
    // like one still open there: never open here forever.
    const until = Date.parse(payment.expires_at ?? payment.created_at) + VOUCHER_GRACE_SECONDS * 1000;
    if (payment.status === 'pending' && now.getTime() >= until)
      return (await move(deps, payment, 'expired', { expires_at: null })) ? 'expired' : 'closed';
    await touch(payment, nextReadBackAt(payment.created_at, now, checkIntervalSeconds));
    return 'waiting';
  }
  const o = state.outcome;
  switch (o.kind) {
    case 'paid': {
      if (o.amountMinor !== payment.amount_minor) {
        // Recorded and alarmed, never settled: an operator returns the money or settles it by hand.
        await recordMismatch(deps, payment, o.amountMinor, state.providerPaymentId);
        const current = (await deps.store.getPayment(payment.payment_id)) ?? payment;
        // Past its expiry the payment closes (the money stays at the provider for an operator), so the alarm clears.
        if (current.expires_at && Date.parse(current.expires_at) <= now.getTime())
          await move(deps, current, 'expired', { expires_at: null });
        else await touch(current, nextReadBackAt(current.created_at, now, checkIntervalSeconds));
        return 'mismatch';
      }
      const settled = await move(deps, payment, 'success', {
        paid_at: o.at ?? at,
        expires_at: null,
        provider: withProviderId(payment, state.providerPaymentId),
      });
      return settled ? 'settled' : 'closed';
    }
    case 'failed': {
      const failed = await move(deps, payment, 'failed', {
        failure_code: o.code,
        failure_message: 'The payment provider rejected the payment.',
        expires_at: null,
        provider: withProviderId(payment, state.providerPaymentId),
      });
      return failed ? 'failed' : 'closed';
    }
    case 'cancelled':
    case 'expired': {
      const to = o.kind === 'cancelled' ? (payment.status === 'pending' ? 'cancelled' : 'failed') : 'expired';
      const closed = await move(deps, payment, to, {
        expires_at: null,
        ...(to === 'failed'
          ? { failure_code: 'cancelled_by_provider', failure_message: 'The payment was cancelled at the provider.' }
          : {}),
        provider: withProviderId(payment, state.providerPaymentId),
      });
      return closed ? (to === 'expired' ? 'expired' : 'failed') : 'closed';
    }
    case 'pending': {
      let current = payment;
      if (payment.status === 'processing') {
        const patch = artefactPatch(payment, state);
        // An open payment whose artefact is not in this answer (a read-back before it was issued) waits.
        if (patch && (await move(deps, payment, 'pending', { ...patch, provider: withProviderId(payment, state.providerPaymentId) }))) {
          current = (await deps.store.getPayment(payment.payment_id)) ?? payment;
        }
      }
      const until = Date.parse(current.expires_at ?? current.created_at) + VOUCHER_GRACE_SECONDS * 1000;
      if ((current.status === 'pending' || current.status === 'processing') && now.getTime() >= until) {
        // Past its expiry and a grace for a last-minute payment's notification, and still open there: it expires here.
        // A payment still `processing` (its create's answer was lost and the read-back carries no artefact, as a crypto
        // order's query has no QR) was never shown to the shopper: it expires the same way, never stays open.
        return (await move(deps, current, 'expired', { expires_at: null })) ? 'expired' : 'closed';
      }
      if (awaitsProvider(current)) {
        const next = Math.min(until, Date.parse(nextReadBackAt(current.created_at, now, checkIntervalSeconds)));
        await touch(current, new Date(next).toISOString());
      }
      return payment.status === 'processing' && current.status === 'pending' ? 'opened' : 'waiting';
    }
  }
}

/** A stored payment read back from the provider (by its id there once known, else by our reference) and applied. */
export async function reconcileHeldLocal(
  deps: PaymentDeps,
  local: HeldLocalPaymentConnector,
  paymentId: string,
  now: Date,
  opts: ReconcileOptions = {},
): Promise<HeldOutcome> {
  for (let attempt = 0; ; attempt++) {
    const payment = await deps.store.getPayment(paymentId);
    if (!payment || !awaitsProvider(payment)) return 'closed';
    const known = payment.provider?.details[PROVIDER_ID];
    const state = known ? await local.getByProviderId(known) : await local.get(paymentId);
    try {
      return await applyLocalState(deps, payment, state, now, opts);
    } catch (e) {
      const raced = e instanceof AppError && e.code === 'PAYMENT_STATE_CONFLICT';
      if (!raced || attempt >= 1) throw e;
    }
  }
}

/** Whether a stored payment is one this provider holds with this flow. */
export const heldLocally = (local: HeldLocalPaymentConnector, p: Payment | null, flow: LocalFlow): p is Payment =>
  Boolean(p && p.provider?.name === local.provider.name && local.flowOf(p.method_code, p.country) === flow);

/**
 * The shopper is back from the provider's page: the payment is read back once (no answer changes nothing: the
 * notification or the job decides), then the shopper goes on, as after a card's 3-D Secure: to the merchant's
 * success_url when paid, to our page while the session is open, else to its cancel_url. A card payment of this
 * provider's (back from its 3-D Secure page to the same route) is completed as a card (held-card.ts).
 */
export async function completeLocalReturn(deps: PaymentDeps, provider: string, paymentId: string): Promise<string> {
  const payment = await deps.store.getPayment(paymentId);
  if (payment?.payment_method === 'card') return completeHeldCardReturn(deps, provider, paymentId, undefined);
  const local = localRailOf(await deps.connectors.forMode(true), provider)?.payments;
  if (!payment || !payment.livemode || !local || payment.provider?.name !== provider) throw new AppError('PAYMENT_NOT_FOUND');
  try {
    await reconcileHeldLocal(deps, local, paymentId, deps.clock.now());
  } catch (e) {
    if (!(e instanceof ProviderUnavailable)) throw e;
  }
  return shopperNextUrl(deps, (await deps.store.getPayment(paymentId)) ?? payment);
}
