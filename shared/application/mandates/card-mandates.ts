/**
 * Live cards on file (DESIGN.md 9.3): the payer approves on our hosted page, where a zero-value authorisation with
 * 3-D Secure stores the card at the acquirer under a shopper reference derived from the mandate; charges are
 * merchant-initiated on that stored card; a cancel disables it. One approval request per mandate (its reference and
 * Idempotency-Key derive from the mandate): a declined card rejects the mandate, the merchant makes a new one.
 */
import { AppError } from '../../domain/errors';
import { mandateEndsAt as endOf, type Mandate } from '../../domain/mandates/mandate';
import type { CardInput } from '../../domain/payments/payment.schemas';
import { cardBrand, lastFour } from '../../domain/payments/card';
import type { Payment } from '../../domain/payments/payment';
import { transition } from '../payments';
import {
  ProviderRejected,
  ProviderUnavailable,
  type ShopperBrowser,
  type ShopperRedirect,
  type StoreCardOutcome,
  type StoredCardConnector,
} from '../providers';
import type { MandateDeps } from './mandate-deps';
import { moveMandate } from './mandate-moves';

/** Our approval page and the acquirer's return to us (routes: mandates' page, the Adyen return route). */
export const cardMandatePaths = (provider: string, mandateId: string) => ({
  approve: `/mandates/${mandateId}/approve`,
  return: `/providers/${provider}/return/${mandateId}`,
});

export async function storedCards(deps: Pick<MandateDeps, 'connectors'>): Promise<StoredCardConnector | null> {
  return (await deps.connectors.forMode(true))?.storedCards ?? null;
}

/** What the payer's browser does next: a page of ours, the acquirer's authentication, or the merchant's URL. */
export type ApprovalStep =
  | { readonly kind: 'go'; readonly url: string }
  | { readonly kind: 'authenticate'; readonly redirect: ShopperRedirect }
  | { readonly kind: 'problem'; readonly message: string };

/** A live card mandate awaiting its payer on our page, or MANDATE_NOT_FOUND (nothing said of other mandates). */
export async function approvableCardMandate(deps: MandateDeps, mandateId: string): Promise<Mandate> {
  const m = await deps.mandates.get(mandateId);
  if (!m || !m.livemode || m.method !== 'card' || !m.provider) throw new AppError('MANDATE_NOT_FOUND');
  return m;
}

const doneUrl = (deps: MandateDeps, m: Mandate, approved: boolean) =>
  (approved ? m.success_url : m.cancel_url) ?? `${deps.baseUrl()}${cardMandatePaths(m.provider?.name ?? 'adyen', m.mandate_id).approve}`;

/** The acquirer's answer to the approval applied to the mandate: stored (active), declined (rejected), or waiting. */
async function applyStoreOutcome(
  deps: MandateDeps,
  stored: StoredCardConnector,
  m: Mandate,
  outcome: StoreCardOutcome,
  /** The card typed on our page (brand and last four), kept while its authentication is pending. */
  typed?: Mandate['card'],
): Promise<ApprovalStep> {
  const at = deps.clock.now().toISOString();
  const provider = {
    ...m.provider!,
    details: { ...m.provider!.details, ...(outcome.pspReference ? { psp_reference: outcome.pspReference } : {}) },
  };
  switch (outcome.kind) {
    case 'stored': {
      const patch: Partial<Mandate> = {
        provider: { ...provider, provider_mandate_id: outcome.pspReference },
        card: outcome.card,
        stored_card: {
          shopper_reference: stored.provider.shopperReference(m.mandate_id),
          stored_payment_method_id: outcome.storedPaymentMethodId,
        },
        approved_at: at,
        // An active card mandate with an end is read by the job the day after it, to expire (and disable its card).
        next_check_at: m.end_date ? endOf(m.end_date) : null,
      };
      await moveMandate(deps, m, 'active', patch);
      return { kind: 'go', url: doneUrl(deps, m, true) };
    }
    case 'declined':
      await moveMandate(deps, m, 'rejected', { provider, failure_code: outcome.code.toLowerCase(), ended_at: at });
      return { kind: 'go', url: doneUrl(deps, m, false) };
    case 'redirect':
      await deps.mandates
        .transition({ mandate: m, to: m.status, patch: { provider, ...(typed ? { card: typed } : {}) }, events: [], now: at })
        .catch(() => undefined);
      return { kind: 'authenticate', redirect: outcome.redirect };
    default:
      return { kind: 'problem', message: 'Your bank is still confirming the card. You can close this page: the merchant will be told.' };
  }
}

/** The payer submitted a card on our page: the approval's authorisation at the acquirer, once per mandate. */
export async function approveCardMandate(
  deps: MandateDeps,
  mandateId: string,
  card: CardInput,
  browser: ShopperBrowser | undefined,
): Promise<ApprovalStep> {
  const m = await approvableCardMandate(deps, mandateId);
  if (m.status !== 'pending_approval') return { kind: 'go', url: doneUrl(deps, m, m.status === 'active') };
  if (Date.parse(m.approval_expires_at) <= deps.clock.now().getTime())
    return { kind: 'problem', message: 'This authorisation request expired.' };
  const stored = await storedCards(deps);
  if (!stored) throw new AppError('MANDATE_NOT_FOUND');
  try {
    const outcome = await stored.store({
      mandateId,
      reference: m.provider!.reference,
      shopperReference: stored.provider.shopperReference(mandateId),
      currency: m.currency,
      country: m.country,
      card,
      shopper: { reference: stored.provider.shopperReference(mandateId), email: m.customer.email },
      returnUrl: `${deps.baseUrl()}${cardMandatePaths(stored.provider.name, mandateId).return}`,
      ...(browser ? { browser } : {}),
    });
    return await applyStoreOutcome(deps, stored, m, outcome, {
      brand: cardBrand(card.number) ?? 'unknown',
      last_four: lastFour(card.number),
    });
  } catch (e) {
    if (e instanceof ProviderUnavailable || e instanceof ProviderRejected)
      return { kind: 'problem', message: 'The card could not be checked right now. Please try again in a few minutes.' };
    throw e;
  }
}

/** Back from the acquirer's authentication: the approval completed with its result token. */
export async function completeCardMandateReturn(deps: MandateDeps, mandateId: string, redirectResult: string | undefined): Promise<string> {
  const m = await approvableCardMandate(deps, mandateId);
  const stored = await storedCards(deps);
  if (!stored || m.status !== 'pending_approval' || !redirectResult) return doneUrl(deps, m, m.status === 'active');
  try {
    const step = await applyStoreOutcome(deps, stored, m, await stored.completeStore({ mandateId, redirectResult }));
    if (step.kind === 'go') return step.url;
  } catch (e) {
    if (!(e instanceof ProviderUnavailable) && !(e instanceof ProviderRejected)) throw e;
  }
  return doneUrl(deps, (await deps.mandates.get(mandateId)) ?? m, false);
}

/** The acquirer's notification of the approval (verified by its connector): a stored card activates a pending mandate. */
export async function applyCardMandateNotification(
  deps: MandateDeps,
  mandateId: string,
  n: { success: boolean; storedPaymentMethodId?: string; pspReference: string },
): Promise<'moved' | 'ignored'> {
  const m = await deps.mandates.get(mandateId);
  const stored = await storedCards(deps);
  if (!m || !m.livemode || m.method !== 'card' || m.status !== 'pending_approval' || !stored) return 'ignored';
  if (n.success && n.storedPaymentMethodId) {
    const card = m.card ?? { brand: 'card', last_four: '' };
    const step = await applyStoreOutcome(deps, stored, m, {
      kind: 'stored',
      storedPaymentMethodId: n.storedPaymentMethodId,
      card,
      pspReference: n.pspReference,
    });
    return step.kind === 'go' ? 'moved' : 'ignored';
  }
  if (!n.success) {
    await moveMandate(deps, m, 'rejected', { failure_code: 'card_declined', ended_at: deps.clock.now().toISOString() });
    return 'moved';
  }
  return 'ignored';
}

/**
 * The job's step for a live card mandate: still pending past its approval deadline, it expires (the payer never
 * finished our page); active past its end date, its stored card is disabled, then it expires.
 */
export async function reconcileCardMandate(deps: MandateDeps, m: Mandate, now: Date): Promise<'moved' | 'waiting' | 'closed'> {
  const at = now.toISOString();
  const over =
    (m.status === 'pending_approval' && Date.parse(m.approval_expires_at) <= now.getTime()) ||
    (m.status === 'active' && m.end_date !== null && Date.parse(endOf(m.end_date)) <= now.getTime());
  if (!over) {
    if (m.status !== 'pending_approval' && m.status !== 'active') return 'closed';
    const next = m.status === 'pending_approval' ? m.approval_expires_at : m.end_date ? endOf(m.end_date) : null;
    await deps.mandates
      .transition({ mandate: m, to: m.status, patch: { next_check_at: next }, events: [], now: at })
      .catch(() => undefined);
    return 'waiting';
  }
  if (m.status === 'active') await disableStoredCard(deps, m);
  return (await moveMandate(deps, m, 'expired', { ended_at: at, next_check_at: null })) ? 'moved' : 'waiting';
}

/** The merchant's cancel: the stored card disabled at the acquirer first (a repeat finds it gone: fine). */
export async function disableStoredCard(deps: MandateDeps, m: Mandate): Promise<void> {
  if (!m.stored_card) return;
  const stored = await storedCards(deps);
  if (!stored) throw new AppError('PROVIDER_UNAVAILABLE', 'No acquirer is configured to disable the stored card at.');
  try {
    await stored.disable({
      shopperReference: m.stored_card.shopper_reference,
      storedPaymentMethodId: m.stored_card.stored_payment_method_id,
    });
  } catch (e) {
    if (e instanceof ProviderUnavailable || e instanceof ProviderRejected)
      throw new AppError(
        'PROVIDER_UNAVAILABLE',
        `The acquirer did not disable the stored card (${e.message}); nothing changed: try again.`,
      );
    throw e;
  }
}

/**
 * A merchant-initiated charge on the stored card, after its payment was committed processing with its reference:
 * approved (credited), declined (failed with its code) or left processing for the notification or the job.
 */
export async function chargeStoredCard(deps: MandateDeps, stored: StoredCardConnector, m: Mandate, p: Payment): Promise<Payment> {
  try {
    const outcome = await stored.charge({
      paymentId: p.payment_id,
      reference: p.provider!.reference,
      amountMinor: p.amount_minor,
      currency: p.currency,
      country: p.country,
      shopperReference: m.stored_card!.shopper_reference,
      storedPaymentMethodId: m.stored_card!.stored_payment_method_id,
      description: p.description,
      returnUrl: `${deps.baseUrl()}${cardMandatePaths(stored.provider.name, m.mandate_id).return}`,
    });
    const provider = {
      ...p.provider!,
      details: {
        ...(outcome.pspReference ? { psp_reference: outcome.pspReference } : {}),
        // The provider's own code of a decline (a deleted token's `stored_method_not_found` among them).
        ...(outcome.kind === 'declined' ? { refusal: outcome.providerCode } : {}),
      },
    };
    if (outcome.kind === 'approved') {
      await transition(deps, p, 'success', {
        authorization_code: outcome.authorizationCode,
        paid_at: deps.clock.now().toISOString(),
        provider,
      });
    } else if (outcome.kind === 'declined') {
      await transition(deps, p, 'failed', { failure_code: outcome.code, failure_message: outcome.message, provider });
    }
  } catch (e) {
    // No answer: the payment stays processing; the notification or the job (a cancel by reference) decides.
    if (!(e instanceof ProviderUnavailable) && !(e instanceof ProviderRejected)) throw e;
    if (e instanceof ProviderRejected)
      await transition(deps, p, 'failed', {
        failure_code: 'PROVIDER_REJECTED',
        failure_message: `The acquirer refused the charge (${e.code}).`,
      });
  }
  return (await deps.store.getPayment(p.payment_id)) ?? p;
}
