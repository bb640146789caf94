/**
 * Live PIX charges held by a provider (DESIGN.md section 8): the intent is committed before the provider is
 * called, the provider's answer after; what the provider holds is only ever learned by reading it back
 * (never from a callback body), and a charge whose outcome is unknown stays open with its reference until
 * the reconciliation job (reconcile-held.ts; its PIX read-back: pix-reconcile.ts) resolves it.
 */
import { AppError } from '../../domain/errors';
import type { Payment } from '../../domain/payments/payment';
import { fromMinor } from '../../domain/money';
import { type Connectors, type PixCharge, type PixChargeState, type PixRail, pixRailOf, ProviderUnavailable } from '../providers';
import type { ProviderLink } from '../../domain/payments/payment';
import { breakers, candidatesOf, classifyFailure, nextCandidate, recordAttempt, type AttemptResult, type PlannedAttempt } from '../routing';
import { endAsBefore as endAttemptAsBefore, skippedAttempt, switchPaymentAttempt, unanswered as unansweredError } from './attempt-switch';
import { type Initiated, type InitiateRequest, recordNewPayment, transition } from '../payments';
import { type PaymentDeps, WriteConflict } from '../ports';

/** The payer of a Brazilian charge: a CPF (11 digits) or CNPJ (14) and the customer's name; else none. */
function debtorOf(req: Pick<InitiateRequest, 'customer' | 'country'>) {
  const digits = (req.customer.document ?? '').replace(/\D/g, '');
  return req.country === 'BRA' && (digits.length === 11 || digits.length === 14)
    ? { document: digits, name: req.customer.name }
    : undefined;
}

/** The charge's fields, the same on every call for one payment (a retry repeats the same request). */
export function chargeRequest(payment: Payment, req: Pick<InitiateRequest, 'merchant' | 'customer' | 'country' | 'description'>) {
  return {
    paymentId: payment.payment_id,
    amountMinor: payment.amount_minor,
    merchantName: req.merchant.name,
    createdAt: payment.created_at,
    expiresAt: payment.expires_at ?? payment.created_at,
    debtor: debtorOf(req),
    description: payment.description,
    payerEmail: req.customer.email,
  };
}

/** What a charge the provider holds puts on the payment: the code the shopper pays, and the provider's answer. */
export function chargePatch(payment: Payment, charge: PixCharge): Partial<Payment> {
  const provider = payment.provider as NonNullable<Payment['provider']>;
  return {
    artefact: { pix_code: charge.pixCode, txid: charge.txid },
    provider: { ...provider, details: { ...provider.details, ...(charge.details ?? {}) } },
  };
}

/**
 * A live PIX payment (DESIGN.md 8 and 9.2): commit it `processing` at its first provider with that attempt's
 * reference, then create the charge there, then commit `pending` with the PIX code. When the attempt certainly moved
 * nothing (never sent, a documented "not processed", or no answer and a read-back that finds nothing) and the routing
 * rule names another PSP, the payment switches to its next attempt (committed before that call) and goes on. A keyed
 * retry of a payment whose charge never answered repeats its current attempt (the PSP is idempotent by our reference).
 */
export async function initiateHeldPix(deps: PaymentDeps, req: InitiateRequest, base: Payment, c: Connectors): Promise<Initiated> {
  const rails = (c.pixRails ?? []).map((rail) => ({ name: rail.charges.provider.name, rail }));
  const candidates = candidatesOf({ kind: KIND, country: req.country, rails, route: c.route, merchantRouting: req.merchant.routing });
  const first = nextCandidate(candidates, 0, KIND, breakers, deps.clock.now().getTime(), false);
  if (!first) throw new Error('initiateHeldPix: no PSP holds live PIX charges');
  const rail = candidates[first.index]!.rail;
  const intent: Payment = {
    ...base,
    status: 'processing',
    provider: { name: rail.charges.provider.name, reference: rail.charges.provider.reference(req.paymentId, 1), details: {} },
    ...(first.skipped.length ? { ended_attempts: first.skipped.map((name) => skippedAttempt(name, base.created_at)) } : {}),
  };
  const existing = await recordNewPayment(deps, req, {
    payment: intent,
    session: req.session ? { sessionId: req.session.session_id, complete: false, latestOnly: false } : undefined,
    events: [],
    now: intent.created_at,
  });
  if (!existing) return { payment: await attemptCharges(deps, intent, req, candidates, first.index), existing: false };
  if (!(existing.status === 'processing' && existing.provider && !existing.artefact)) return { payment: existing, existing: true };
  const current = pixRailOf(c, existing.provider.name);
  if (!current) throw unanswered(existing);
  return { payment: await attemptCharges(deps, existing, req, [{ name: existing.provider.name, rail: current }], 0), existing: true };
}

const KIND = 'pix';
const unanswered = (payment: Payment) => unansweredError('PIX', payment);

/**
 * The payment's attempts from `index` on: each call's result on its provider's breaker; an attempt that certainly
 * moved nothing switches to the next candidate when there is one; otherwise the attempt ends as before routing.
 */
async function attemptCharges(
  deps: PaymentDeps,
  payment: Payment,
  req: InitiateRequest,
  candidates: ReadonlyArray<PlannedAttempt<PixRail>>,
  index: number,
): Promise<Payment> {
  let current = payment;
  for (let i = index; ;) {
    const { name, rail } = candidates[i]!;
    const link = current.provider as ProviderLink;
    const started = performance.now();
    const observe = (outcome: AttemptResult) => {
      const latencyMs = performance.now() - started;
      recordAttempt(deps.attempts, { provider: name, kind: KIND, outcome, latencyMs, now: deps.clock.now().getTime() });
      return Math.round(latencyMs);
    };
    let charge: PixCharge;
    try {
      charge = await rail.charges.createCharge({
        ...chargeRequest(current, req),
        reference: link.reference,
        callbackBaseUrl: deps.baseUrl(),
      });
    } catch (e) {
      const latencyMs = observe(e instanceof ProviderUnavailable ? 'no_answer' : 'rejected');
      const verdict = await afterFailure(rail, link.reference, e, i + 1 < candidates.length);
      if (verdict.kind === 'found') return openHeldCharge(deps, current, verdict.charge);
      const next = verdict.kind === 'next' ? nextCandidate(candidates, i + 1, KIND, breakers, deps.clock.now().getTime(), true) : null;
      if (verdict.kind !== 'next' || !next) return endAsBefore(deps, current, e);
      const to = candidates[next.index]!;
      const switched = await switchPaymentAttempt(
        deps,
        current,
        KIND,
        { name: to.name, reference: to.rail.charges.provider.reference },
        next.skipped,
        { ...verdict, latencyMs },
      );
      if (!switched) return (await deps.store.getPayment(current.payment_id)) ?? current;
      deps.attempts?.failedOver(name, KIND, verdict.failureCode);
      current = switched;
      i = next.index;
      continue;
    }
    // The call's time is kept with the provider's answer (`providers stats`: latency per provider).
    const latencyMs = observe('pending');
    return openHeldCharge(deps, current, { ...charge, details: { ...charge.details, latency_ms: String(latencyMs) } });
  }
}

type AfterFailure =
  | { readonly kind: 'next'; readonly failureCode: string; readonly watched: boolean }
  | { readonly kind: 'found'; readonly charge: PixCharge }
  | { readonly kind: 'end' };

/** What a failed call leaves: certainly nothing (fail over), the charge found after all (go on with it), or unknown. */
async function afterFailure(rail: PixRail, reference: string, e: unknown, hasNext: boolean): Promise<AfterFailure> {
  const c = classifyFailure(e);
  if (c.kind === 'no_money') return { kind: 'next', failureCode: c.failureCode, watched: false };
  if (c.kind === 'final' || !hasNext || !rail.charges.getCharge) return { kind: 'end' };
  // No answer: only a read-back by the attempt's reference that finds nothing lets the payment go elsewhere.
  let state: PixChargeState;
  try {
    state = await rail.charges.getCharge(reference);
  } catch {
    return { kind: 'end' };
  }
  if (state.kind === 'not_found') return { kind: 'next', failureCode: 'provider_no_answer', watched: true };
  if (state.kind === 'open' || state.kind === 'paid') return { kind: 'found', charge: state.charge };
  return { kind: 'end' };
}

/** The attempt ends as it did before routing: no answer (502, processing; the job reads it back) or refused (failed). */
const endAsBefore = (deps: PaymentDeps, payment: Payment, e: unknown) =>
  endAttemptAsBefore(deps, payment, e, {
    provider: 'PIX',
    refused: (code) => `The PIX provider refused the charge (${code}).`,
    error: (code) => `The PIX provider refused the charge for payment ${payment.payment_id} (${code}).`,
  });

/** processing -> pending with the charge's code; whoever got there first (a racing read-back) wins, and is answered. */
export async function openHeldCharge(deps: PaymentDeps, payment: Payment, charge: PixCharge): Promise<Payment> {
  try {
    return await transition(deps, payment, 'pending', chargePatch(payment, charge));
  } catch (e) {
    if (!(e instanceof AppError) || e.code !== 'PAYMENT_STATE_CONFLICT') throw e;
    return (await deps.store.getPayment(payment.payment_id)) ?? payment;
  }
}

/** The money a provider reported as the amount to settle, or why it cannot be settled. */
export function matchReceived<R extends { endToEndId: string; amountMinor: number }>(
  payment: Payment,
  received: readonly R[],
  endToEndId?: string,
) {
  const candidates = endToEndId ? received.filter((r) => r.endToEndId === endToEndId) : received;
  const exact = candidates.find((r) => r.amountMinor === payment.amount_minor);
  if (exact) return { kind: 'match' as const, pix: exact };
  const other = candidates[0];
  return other ? { kind: 'mismatch' as const, pix: other } : { kind: 'none' as const };
}

/** Records a paid amount that differs from the payment's (once), for the alarm and an operator; nothing is settled. */
export async function recordMismatch(deps: PaymentDeps, payment: Payment, paidMinor: number, endToEndId: string) {
  if (payment.provider_mismatch_minor === paidMinor) return false;
  const provider = payment.provider as NonNullable<Payment['provider']>;
  const [paid, due] = [fromMinor(paidMinor, payment.currency), fromMinor(payment.amount_minor, payment.currency)];
  await deps.store
    .touchPayment({
      payment,
      patch: {
        provider_mismatch_minor: paidMinor,
        provider: { ...provider, details: { ...provider.details, mismatch_end_to_end_id: endToEndId } },
        failure_message: `Paid ${paid} instead of ${due} ${payment.currency}: not settled.`,
      },
      nextCheckAt: null,
      now: deps.clock.now().toISOString(),
    })
    .catch((e: unknown) => {
      if (!(e instanceof WriteConflict)) throw e;
    });
  return true;
}
