/**
 * Live card payments routed between providers (issue 42, DESIGN.md 9.2), as live PIX pay-ins are (held-pix.ts): a
 * payment's attempts go down its routing rule's list, each with its own reference committed on the payment before
 * its call. The payment goes on to the next provider only when the attempt certainly moved no money: the request
 * never left, the provider answered a documented "not processed" (never a refusal about the payer), or the call got
 * no answer and a read-back by the attempt's reference finds nothing (the abandoned attempt is then watched,
 * attempt-watches.ts); or, once per payment, a soft decline (the provider's own table: the issuer never said no).
 * Never on a hard decline, after a 3-D Secure redirect, on a provider that cannot be read back (a timeout there
 * ends the payment as before routing), nor without a routing rule. Everything after the call (the outcome, 3-D
 * Secure, reconciliation, refunds, notifications) follows the attempt the payment ends at (`payment.provider`).
 */
import { createHash } from 'node:crypto';
import { AppError } from '../../domain/errors';
import { cardBrand, lastFour } from '../../domain/payments/card';
import type { Payment, ProviderLink } from '../../domain/payments/payment';
import type { CardInput } from '../../domain/payments/payment.schemas';
import type { CountryCode } from '../../domain/geo';
import {
  type CardRail,
  cardRailOf,
  type Connectors,
  type HeldCardOutcome,
  type HeldCardRequest,
  heldLocalPaths,
  type MerchantRouting,
  ProviderUnavailable,
} from '../providers';
import { breakers, candidatesOf, classifyFailure, nextCandidate, recordAttempt, type AttemptResult, type PlannedAttempt } from '../routing';
import { type Initiated, type InitiateRequest, recordNewPayment } from '../payments';
import type { PaymentDeps } from '../ports';
import { endAsBefore as endAttemptAsBefore, skippedAttempt, switchPaymentAttempt, unanswered as unansweredError } from './attempt-switch';
import { applyCardOutcome, heldCardPaths } from './held-card';

const KIND = 'card';

/** Our failure code of an attempt that ended in a soft decline and failed over (at most one per payment). */
export const SOFT_DECLINE = 'soft_decline';

/**
 * The card providers one payment may try, in order: the routing rule's (the merchant's override, the country's, `*`)
 * over the configured rails, else the first configured rail that serves unrouted payments alone. Empty: cards are
 * not offered live (no rail, or only rails that serve when routed to and no rule naming one).
 */
export function cardCandidates(c: Connectors, country: CountryCode, merchantRouting?: MerchantRouting): Array<PlannedAttempt<CardRail>> {
  const rails = (c.cardRails ?? []).map((rail) => ({ name: rail.cards.provider.name, rail }));
  return candidatesOf({ kind: KIND, country, rails, route: c.route, merchantRouting, servesUnrouted: (r) => !r.routedOnly });
}

/** A stable shopper reference for the provider: the merchant and a digest of the shopper's email (no PII in clear). */
const shopperReferenceOf = (merchantId: string, email: string) =>
  `${merchantId}-${createHash('sha256').update(email.trim().toLowerCase()).digest('hex').slice(0, 24)}`;

/** A keyed retry repeats the call only while the provider's answer is unknown (no reference, no action kept). */
const unansweredCard = (p: Payment) => p.status === 'processing' && !p.provider?.details.psp_reference && !p.provider?.details.action_url;

const unanswered = (payment: Payment) => unansweredError('card', payment);
const providerOf = (c: PlannedAttempt<CardRail>) => ({ name: c.name, reference: c.rail.cards.provider.reference });

/**
 * A live card payment: commit it `processing` at its first provider with that attempt's reference (the card
 * reduced to brand and last four), then authorise there, then commit its outcome, failing over as the header says.
 * A keyed retry of a payment whose authorisation never answered repeats its current attempt (same provider, same
 * reference: each provider is idempotent by it), never a new one elsewhere.
 */
export async function initiateHeldCard(deps: PaymentDeps, req: InitiateRequest, base: Payment, c: Connectors): Promise<Initiated> {
  const candidates = cardCandidates(c, req.country, req.merchant.routing);
  const first = nextCandidate(candidates, 0, KIND, breakers, deps.clock.now().getTime(), false);
  if (!first) throw new AppError('METHOD_NOT_AVAILABLE', `No live provider is configured for card in ${req.country}.`);
  const { name, rail } = candidates[first.index]!;
  const card = req.card as CardInput;
  const intent: Payment = {
    ...base,
    status: 'processing',
    card: { brand: cardBrand(card.number) ?? 'unknown', last_four: lastFour(card.number) },
    return_url: req.returnUrl ?? null,
    provider: { name, reference: rail.cards.provider.reference(req.paymentId, 1), details: {} },
    ...(first.skipped.length ? { ended_attempts: first.skipped.map((p) => skippedAttempt(p, base.created_at)) } : {}),
  };
  const existing = await recordNewPayment(deps, req, {
    payment: intent,
    session: req.session ? { sessionId: req.session.session_id, complete: false, latestOnly: false } : undefined,
    events: [],
    now: intent.created_at,
  });
  if (!existing) return { payment: await attemptCards(deps, intent, req, candidates, first.index), existing: false };
  if (!unansweredCard(existing) || !existing.provider) return { payment: existing, existing: true };
  const current = cardRailOf(c, existing.provider.name);
  if (!current) throw unanswered(existing);
  return { payment: await attemptCards(deps, existing, req, [{ name: existing.provider.name, rail: current }], 0), existing: true };
}

/** The authorisation request of one attempt: the same fields on every call of it (a retry repeats the same request). */
function cardRequest(deps: PaymentDeps, payment: Payment, req: InitiateRequest, provider: string): HeldCardRequest {
  const document = req.customer.document?.trim();
  return {
    paymentId: payment.payment_id,
    reference: (payment.provider as ProviderLink).reference,
    amountMinor: payment.amount_minor,
    currency: payment.currency,
    country: payment.country,
    card: req.card as CardInput,
    installments: payment.installments ?? 1,
    shopper: { reference: shopperReferenceOf(payment.merchant_id, req.customer.email), email: req.customer.email },
    returnUrl: `${deps.baseUrl()}${heldCardPaths(provider, payment.payment_id).return}`,
    notificationUrl: `${deps.baseUrl()}${heldLocalPaths(provider, payment.payment_id).notifications}`,
    ...(document ? { payer: { name: req.customer.name, document } } : {}),
    ...(req.browser ? { browser: req.browser } : {}),
  };
}

const resultOf = (o: HeldCardOutcome): AttemptResult =>
  o.kind === 'approved' ? 'approved' : o.kind === 'declined' ? 'declined' : 'pending';

/** Whether the payment already failed over once on a soft decline (the table allows one per payment). */
const softUsed = (p: Payment) => (p.ended_attempts ?? []).some((a) => a.failure_code === SOFT_DECLINE);

/** The payment's attempts from `index` on, each call's result on its provider's breaker (see the header). */
async function attemptCards(
  deps: PaymentDeps,
  payment: Payment,
  req: InitiateRequest,
  candidates: ReadonlyArray<PlannedAttempt<CardRail>>,
  index: number,
): Promise<Payment> {
  let current = payment;
  for (let i = index; ;) {
    const { name, rail } = candidates[i]!;
    const started = performance.now();
    const observe = (outcome: AttemptResult) => {
      const latencyMs = performance.now() - started;
      recordAttempt(deps.attempts, { provider: name, kind: KIND, outcome, latencyMs, now: deps.clock.now().getTime() });
      return Math.round(latencyMs);
    };
    const next = () => nextCandidate(candidates, i + 1, KIND, breakers, deps.clock.now().getTime(), true);
    let outcome: HeldCardOutcome;
    try {
      outcome = await rail.cards.authorize(cardRequest(deps, current, req, name));
    } catch (e) {
      const latencyMs = observe(e instanceof ProviderUnavailable ? 'no_answer' : 'rejected');
      const verdict = await afterFailure(rail, current, e, i + 1 < candidates.length);
      if (verdict.kind === 'found')
        return applyCardOutcome(deps, timed(current, latencyMs), verdict.outcome, req.threeDsStatus, rail.cards.redirectsDirectly);
      const to = verdict.kind === 'next' ? next() : null;
      if (verdict.kind !== 'next' || !to) return endAsBefore(deps, current, e);
      const switched = await switchPaymentAttempt(deps, current, KIND, providerOf(candidates[to.index]!), to.skipped, {
        ...verdict,
        latencyMs,
      });
      if (!switched) return (await deps.store.getPayment(current.payment_id)) ?? current;
      deps.attempts?.failedOver(name, KIND, verdict.failureCode);
      current = switched;
      i = to.index;
      continue;
    }
    const latencyMs = observe(resultOf(outcome));
    // A soft decline (the issuer never said no) goes to the next acquirer, once per payment.
    const to = outcome.kind === 'declined' && outcome.soft && !softUsed(current) ? next() : null;
    if (!to) return applyCardOutcome(deps, timed(current, latencyMs), outcome, req.threeDsStatus, rail.cards.redirectsDirectly);
    const verdict = { failureCode: SOFT_DECLINE, watched: false, latencyMs };
    const switched = await switchPaymentAttempt(deps, current, KIND, providerOf(candidates[to.index]!), to.skipped, verdict);
    if (!switched) return (await deps.store.getPayment(current.payment_id)) ?? current;
    deps.attempts?.failedOver(name, KIND, SOFT_DECLINE);
    current = switched;
    i = to.index;
  }
}

/** The call's time kept with the provider's answer on the payment (`providers stats`: latency per provider). */
const timed = (p: Payment, latencyMs: number): Payment => {
  const link = p.provider as ProviderLink;
  return { ...p, provider: { ...link, details: { ...link.details, latency_ms: String(latencyMs) } } };
};

type Verdict =
  | { readonly kind: 'next'; readonly failureCode: string; readonly watched: boolean }
  | { readonly kind: 'found'; readonly outcome: HeldCardOutcome }
  | { readonly kind: 'end' };

/** What a failed call leaves: certainly nothing (fail over), the attempt found after all (go on with it), or unknown. */
async function afterFailure(rail: CardRail, payment: Payment, e: unknown, hasNext: boolean): Promise<Verdict> {
  const c = classifyFailure(e);
  if (c.kind === 'no_money') return { kind: 'next', failureCode: c.failureCode, watched: false };
  if (c.kind === 'final' || !hasNext || !rail.cards.readBack) return { kind: 'end' };
  // No answer: only a read-back by the attempt's reference that finds nothing lets the payment go elsewhere.
  try {
    const state = await rail.cards.readBack(payment.payment_id, { reference: (payment.provider as ProviderLink).reference });
    return state.kind === 'not_found'
      ? { kind: 'next', failureCode: 'provider_no_answer', watched: true }
      : { kind: 'found', outcome: state };
  } catch {
    return { kind: 'end' };
  }
}

/** The attempt ends as it did before routing: no answer (502, processing; the job resolves it) or refused (failed). */
const endAsBefore = (deps: PaymentDeps, payment: Payment, e: unknown) =>
  endAttemptAsBefore(deps, payment, e, {
    provider: 'card',
    refused: (code) => `The card provider refused the payment (${code}).`,
    error: (code) => `The card provider refused payment ${payment.payment_id} (${code}).`,
  });
