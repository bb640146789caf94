/**
 * Live card payments held by a provider (issue 23): the intent (`processing`, with the provider reference derived
 * from the payment id, the card reduced to brand and last four) is committed before the provider is called,
 * the provider's answer after. A call with no answer leaves the payment processing (502 PROVIDER_UNAVAILABLE);
 * the provider's notification or the reconciliation job's technical cancel by reference closes it. The raw card
 * travels only in the request to the provider: never logged, never stored.
 */
import { createHash } from 'node:crypto';
import { AppError } from '../../domain/errors';
import { cardBrand, lastFour } from '../../domain/payments/card';
import type { Payment } from '../../domain/payments/payment';
import type { CardInput } from '../../domain/payments/payment.schemas';
import { type HeldCardConnector, type HeldCardOutcome, ProviderRejected, ProviderUnavailable } from '../providers';
import { type Initiated, type InitiateRequest, recordNewPayment, shopperNextUrl, transition } from '../payments';
import type { PaymentDeps } from '../ports';

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
 * failed with our failure code, redirect -> the 3DS status with our forwarding page, pending -> unchanged
 * (the notification decides). A payment another writer already moved is read back and answered.
 */
export async function applyCardOutcome(
  deps: PaymentDeps,
  payment: Payment,
  outcome: HeldCardOutcome,
  threeDsStatus: 'pending_3ds' | 'processing',
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
        const patch = {
          redirect_url: `${deps.baseUrl()}${heldCardPaths(name, payment.payment_id).redirect}`,
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

/** A stable shopper reference for the provider: the merchant and a digest of the shopper's email (no PII in clear). */
const shopperReferenceOf = (merchantId: string, email: string) =>
  `${merchantId}-${createHash('sha256').update(email.trim().toLowerCase()).digest('hex').slice(0, 24)}`;

/**
 * A live card payment: commit it `processing` with the provider reference, then authorise at the provider, then
 * commit its outcome. A keyed retry of a payment whose authorisation never answered repeats the same request
 * (the provider is idempotent by the key derived from our id).
 */
export async function initiateHeldCard(
  deps: PaymentDeps,
  req: InitiateRequest,
  base: Payment,
  card: HeldCardConnector,
): Promise<Initiated> {
  const c = req.card as CardInput;
  const intent: Payment = {
    ...base,
    status: 'processing',
    card: { brand: cardBrand(c.number) ?? 'unknown', last_four: lastFour(c.number) },
    return_url: req.returnUrl ?? null,
    provider: { name: card.provider.name, reference: card.provider.reference(req.paymentId), details: {} },
  };
  const existing = await recordNewPayment(deps, req, {
    payment: intent,
    session: req.session ? { sessionId: req.session.session_id, complete: false, latestOnly: false } : undefined,
    events: [],
    now: intent.created_at,
  });
  // A keyed retry repeats the call only while the provider's answer is unknown (no reference, no action kept).
  const unanswered = (p: Payment) => p.status === 'processing' && !p.provider?.details.psp_reference && !p.provider?.details.action_url;
  if (existing && !unanswered(existing)) return { payment: existing, existing: true };
  const payment = existing ?? intent;
  let outcome: HeldCardOutcome;
  try {
    outcome = await card.authorize({
      paymentId: payment.payment_id,
      amountMinor: payment.amount_minor,
      currency: payment.currency,
      country: payment.country,
      card: c,
      installments: payment.installments ?? 1,
      shopper: { reference: shopperReferenceOf(payment.merchant_id, req.customer.email), email: req.customer.email },
      returnUrl: `${deps.baseUrl()}${heldCardPaths(card.provider.name, payment.payment_id).return}`,
      ...(req.browser ? { browser: req.browser } : {}),
    });
  } catch (e) {
    if (e instanceof ProviderUnavailable) {
      throw new AppError(
        'PROVIDER_UNAVAILABLE',
        `The card provider did not answer. Payment ${payment.payment_id} is processing; its outcome follows by webhook.`,
        { paymentId: payment.payment_id },
      );
    }
    if (e instanceof ProviderRejected) {
      await transition(deps, payment, 'failed', {
        failure_code: 'PROVIDER_REJECTED',
        failure_message: `The card provider refused the payment (${e.code}).`,
        expires_at: null,
      });
      throw new AppError('PROVIDER_REJECTED', `The card provider refused payment ${payment.payment_id} (${e.code}).`, {
        paymentId: payment.payment_id,
      });
    }
    throw e;
  }
  return { payment: await applyCardOutcome(deps, payment, outcome, req.threeDsStatus), existing: Boolean(existing) };
}

/**
 * The shopper is back from the provider's authentication with its result token: the provider completes the
 * payment (details call) and its outcome is applied. Answers where to send the shopper next.
 */
export async function completeHeldCardReturn(deps: PaymentDeps, paymentId: string, redirectResult: string | undefined): Promise<string> {
  const payment = await deps.store.getPayment(paymentId);
  const card = (await deps.connectors.forMode(true))?.heldCard;
  if (!payment || !payment.livemode || !card || payment.provider?.name !== card.provider.name) throw new AppError('PAYMENT_NOT_FOUND');
  let current = payment;
  if (redirectResult && (payment.status === 'pending_3ds' || payment.status === 'processing')) {
    try {
      const outcome = await card.completeRedirect({ paymentId, redirectResult });
      current = await applyCardOutcome(deps, payment, outcome, payment.status);
    } catch (e) {
      // No answer: the notification (or the reconciliation job) decides; the shopper sees the payment as it is.
      if (!(e instanceof ProviderUnavailable) && !(e instanceof ProviderRejected)) throw e;
    }
  }
  return shopperNextUrl(deps, current);
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

/**
 * The reconciliation job's step for a held card payment: while it waits within the provider's cancel window it
 * is looked at again later; past the window with no AUTHORISATION, a technical cancel by our reference voids
 * whatever the provider made of the unanswered call, and the payment fails (nothing is collected).
 */
export async function reconcileHeldCard(
  deps: PaymentDeps,
  card: HeldCardConnector,
  payment: Payment,
  now: Date,
): Promise<'failed' | 'waiting' | 'closed'> {
  if (payment.status !== 'processing' && payment.status !== 'pending_3ds') return 'closed';
  const window = card.cancelAfterSeconds;
  const dueAt = Date.parse(payment.created_at) + window * 1000;
  if (now.getTime() < dueAt) {
    await deps.store.touchPayment({ payment, patch: {}, nextCheckAt: new Date(dueAt).toISOString(), now: now.toISOString() });
    return 'waiting';
  }
  await card.cancelByReference(payment.payment_id);
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
