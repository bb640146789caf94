/**
 * Live card payments held by a provider (issue 23), after the call (its start and failover: card-attempts.ts): the
 * outcome applied, 3-D Secure's forwarding and return, and the reconciliation job's step, each by the provider of
 * the attempt the payment is at (`payment.provider`). A call with no answer leaves the payment processing (502
 * PROVIDER_UNAVAILABLE); the provider's notification, a read-back or the job's technical cancel by reference closes
 * it. The raw card travels only in the request to the provider: never logged, never stored.
 */
import { AppError } from '../../domain/errors';
import { awaitsProvider, type Payment } from '../../domain/payments/payment';
import { nextReadBackAt } from '../../domain/payments/read-back';
import { type CardRail, cardRailOf, type HeldCardOutcome, ProviderRejected, ProviderUnavailable } from '../providers';
import { shopperNextUrl, transition } from '../payments';
import type { PaymentDeps } from '../ports';
import type { HeldOutcome, ReconcileOptions } from './held-types';

/** Our pages the provider sends the shopper to and back from (routes.providers.ts). */
export const heldCardPaths = (provider: string, paymentId: string) => ({
  redirect: `/providers/${provider}/3ds/${paymentId}`,
  return: `/providers/${provider}/return/${paymentId}`,
});

/** What the provider answered that is kept: its reference and, for 3DS, the action to forward to. */
function detailsOf(outcome: HeldCardOutcome): Record<string, string> {
  const d: Record<string, string> = {};
  if (outcome.pspReference) d.psp_reference = outcome.pspReference;
  if (outcome.kind === 'declined') d.refusal = outcome.providerCode;
  if (outcome.kind === 'redirect') {
    d.action_url = outcome.redirect.url;
    d.action_method = outcome.redirect.method;
    d.action_data = JSON.stringify(outcome.redirect.data);
  }
  return d;
}

const withDetails = (p: Payment, outcome: HeldCardOutcome): Payment['provider'] => {
  const provider = p.provider as NonNullable<Payment['provider']>;
  return { ...provider, details: { ...provider.details, ...detailsOf(outcome) } };
};

/**
 * Applies a provider outcome to an open held card payment: approved -> success (with its credit), declined ->
 * failed with our failure code, redirect -> the 3DS status with our forwarding page (or, `direct`, the provider's
 * own GET URL), pending -> unchanged (the notification decides). A payment another writer already moved is read
 * back and answered.
 */
export async function applyCardOutcome(
  deps: PaymentDeps,
  payment: Payment,
  outcome: HeldCardOutcome,
  threeDsStatus: 'pending_3ds' | 'processing',
  direct = false,
): Promise<Payment> {
  const at = deps.clock.now().toISOString();
  try {
    switch (outcome.kind) {
      case 'approved':
        return await transition(deps, payment, 'success', {
          authorization_code: outcome.authorizationCode,
          paid_at: at,
          expires_at: null,
          provider: withDetails(payment, outcome),
        });
      case 'declined':
        return await transition(deps, payment, 'failed', {
          failure_code: outcome.code,
          failure_message: outcome.message,
          expires_at: null,
          provider: withDetails(payment, outcome),
        });
      case 'redirect': {
        const name = (payment.provider as NonNullable<Payment['provider']>).name;
        const plain = direct && outcome.redirect.method === 'GET' && Object.keys(outcome.redirect.data).length === 0;
        const patch = {
          redirect_url: plain ? outcome.redirect.url : `${deps.baseUrl()}${heldCardPaths(name, payment.payment_id).redirect}`,
          provider: withDetails(payment, outcome),
        };
        if (payment.status === threeDsStatus) {
          await deps.store.touchPayment({ payment, patch, nextCheckAt: null, now: at });
          return { ...payment, ...patch, updated_at: at };
        }
        return await transition(deps, payment, threeDsStatus, patch);
      }
      case 'pending': {
        if (!outcome.pspReference) return payment;
        const patch = { provider: withDetails(payment, outcome) };
        await deps.store.touchPayment({ payment, patch, nextCheckAt: null, now: at });
        return { ...payment, ...patch, updated_at: at };
      }
    }
  } catch (e) {
    if (!(e instanceof AppError) || e.code !== 'PAYMENT_STATE_CONFLICT') throw e;
    return (await deps.store.getPayment(payment.payment_id)) ?? payment;
  }
}

/**
 * The shopper is back from the provider's authentication (its result token, when it gives one): the provider of the
 * payment's attempt completes it (Adyen's details call; dLocal's read-back by the attempt's order id) and its outcome
 * is applied. Answers where to send the shopper next.
 */
export async function completeHeldCardReturn(
  deps: PaymentDeps,
  provider: string,
  paymentId: string,
  redirectResult: string | undefined,
): Promise<string> {
  const payment = await deps.store.getPayment(paymentId);
  const rail = cardRailOf(await deps.connectors.forMode(true), provider);
  if (!payment || !payment.livemode || !rail || payment.provider?.name !== provider) throw new AppError('PAYMENT_NOT_FOUND');
  let current = payment;
  // A provider that is read back needs no token (dLocal's return carries none we trust): the read-back is the result.
  const completes = redirectResult !== undefined || Boolean(rail.cards.readBack);
  if (completes && (payment.status === 'pending_3ds' || payment.status === 'processing')) {
    try {
      const outcome = await rail.cards.completeRedirect({
        paymentId,
        redirectResult: redirectResult ?? '',
        reference: payment.provider.reference,
      });
      current = await applyCardOutcome(deps, payment, outcome, payment.status, rail.cards.redirectsDirectly);
    } catch (e) {
      // No answer: the notification (or the reconciliation job) decides; the shopper sees the payment as it is.
      if (!(e instanceof ProviderUnavailable) && !(e instanceof ProviderRejected)) throw e;
    }
  }
  return shopperNextUrl(deps, current);
}

/**
 * A provider's notification naming one of our card payments, where it comes with the provider's other payments
 * (dLocal's): only the payment's current attempt's applies (an abandoned attempt's is its watch's), read back by
 * that attempt's reference (the body's status is never taken). A payment closed here that the provider holds paid
 * is `late` (money collected, not settled: alarmed).
 */
export async function applyCardNotice(
  deps: PaymentDeps,
  rail: CardRail,
  payment: Payment,
  reference: string,
): Promise<HeldOutcome | 'duplicate' | 'ignored' | 'late' | 'unknown'> {
  if (!rail.cards.readBack) return 'unknown';
  // Another attempt of the payment's (abandoned: its watch undoes whatever it finds there).
  if (payment.provider?.reference !== reference) return 'ignored';
  if (payment.provider.name !== rail.cards.provider.name) return 'unknown';
  if (payment.status === 'success' || payment.status === 'refunded') return 'duplicate';
  const found = await rail.cards.readBack(payment.payment_id, { reference });
  if (!awaitsProvider(payment)) return found.kind === 'approved' ? 'late' : 'duplicate';
  return found.kind === 'approved' || found.kind === 'declined' ? settleFound(deps, payment, found) : 'waiting';
}

/** The provider's 3DS action for a payment awaiting authentication, or null. */
export async function heldCardRedirect(deps: PaymentDeps, paymentId: string) {
  const p = await deps.store.getPayment(paymentId);
  const d = p?.provider?.details;
  if (!p || !p.livemode || !d?.action_url || (p.status !== 'pending_3ds' && p.status !== 'processing')) return null;
  return {
    url: d.action_url,
    method: d.action_method === 'POST' ? ('POST' as const) : ('GET' as const),
    data: JSON.parse(d.action_data ?? '{}') as Record<string, string>,
  };
}

/** A decided outcome applied by the job: what it made of the payment. */
async function settleFound(deps: PaymentDeps, payment: Payment, outcome: HeldCardOutcome): Promise<HeldOutcome> {
  const after = await applyCardOutcome(deps, payment, outcome, payment.status === 'pending_3ds' ? 'pending_3ds' : 'processing');
  if (after.status === payment.status) return 'waiting';
  return after.status === 'success' ? 'settled' : after.status === 'failed' ? 'failed' : 'closed';
}

/**
 * The reconciliation job's step for a held card payment, at the provider of its attempt. A provider that can be
 * read back is asked first: a decided payment (paid, declined) is applied at once, an open one is asked again
 * (10, 30, 60 s, then every interval) until the cancel window. Past the window with no outcome, a technical cancel
 * by the attempt's reference voids whatever the provider made of the unanswered call, and the payment fails
 * (nothing is collected); a provider that reports the attempt paid meanwhile (it cannot be cancelled) settles it.
 */
export async function reconcileHeldCard(
  deps: PaymentDeps,
  rail: CardRail,
  payment: Payment,
  now: Date,
  opts: ReconcileOptions = {},
): Promise<HeldOutcome> {
  if (payment.status !== 'processing' && payment.status !== 'pending_3ds') return 'closed';
  const cards = rail.cards;
  const reference = payment.provider?.reference;
  const readBack = async () => (cards.readBack ? await cards.readBack(payment.payment_id, { reference }) : null);
  const found = await readBack();
  if (found && (found.kind === 'approved' || found.kind === 'declined')) return settleFound(deps, payment, found);
  const dueAt = Date.parse(payment.created_at) + cards.cancelAfterSeconds * 1000;
  if (now.getTime() < dueAt) {
    const next = cards.readBack
      ? Math.min(dueAt, Date.parse(nextReadBackAt(payment.created_at, now, opts.checkIntervalSeconds ?? 120)))
      : dueAt;
    await deps.store.touchPayment({ payment, patch: {}, nextCheckAt: new Date(next).toISOString(), now: now.toISOString() });
    return 'waiting';
  }
  try {
    await cards.cancelByReference(payment.payment_id, { reference });
  } catch (e) {
    // Paid at the provider after all (a cancel cannot void it): it is this payment's money, and it succeeds.
    const paid = e instanceof ProviderRejected && e.code === 'paid_refund_required' ? await readBack() : null;
    if (paid?.kind === 'approved') return settleFound(deps, payment, paid);
    throw e;
  }
  try {
    await transition(deps, payment, 'failed', {
      failure_code: 'PROVIDER_UNAVAILABLE',
      failure_message: 'The card provider gave no outcome in time; the payment was cancelled by reference and nothing was collected.',
      expires_at: null,
      provider: {
        ...(payment.provider as NonNullable<Payment['provider']>),
        details: { ...payment.provider?.details, cancelled_by_reference: now.toISOString() },
      },
    });
    return 'failed';
  } catch (e) {
    if (e instanceof AppError && e.code === 'PAYMENT_STATE_CONFLICT') return 'closed';
    throw e;
  }
}
