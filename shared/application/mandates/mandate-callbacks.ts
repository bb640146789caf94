/**
 * Pix Automático callbacks and the read-back of its charges (DESIGN.md 9.3). A `webhookrec` item names a recurrence,
 * a `webhookcobr` item a charge: each is read back from the PSP and only what the PSP holds moves anything.
 */
import { AppError } from '../../domain/errors';
import { addDays } from '../../domain/mandates/mandate';
import { awaitsProvider, type Payment } from '../../domain/payments/payment';
import type { PaymentDeps } from '../ports';
import { ProviderRejected, type PixMandateChargeState, type PixMandateConnector } from '../providers';
import { applyChargeReadBack, sendPixCharge } from './mandate-charges';
import type { MandateDeps } from './mandate-deps';
import { localToday } from '../../domain/mandates/mandate';
import { reconcileMandate } from './mandates-live';

const CHARGE_CHECK_SECONDS = 6 * 3600;
/** Under retry_3_in_7_days: at most 3 retries, each on a day 1 to 7 days after the due date (the PSP's rule). */
const MAX_RETRIES = 3;
const RETRY_DAYS = 7;

/**
 * The day a charge whose last attempt failed is tried again, or null: only under its mandate's retry policy, with no
 * attempt scheduled, fewer than 3 retries made, the day after the last failed attempt (never before the day after the
 * due date, nor in the past) and within 7 days of the due date.
 */
export function retryDateOf(p: Payment, state: PixMandateChargeState, now: Date): string | null {
  if (state.kind !== 'scheduled' || p.provider?.details.retry_policy !== 'retry_3_in_7_days' || !p.due_date) return null;
  const last = state.attempts[state.attempts.length - 1];
  if (!last || last.outcome !== 'failed' || state.attempts.some((a) => a.outcome === 'scheduled')) return null;
  if (state.attempts.length - 1 >= MAX_RETRIES) return null;
  const date = [addDays(last.date, 1), addDays(p.due_date, 1), localToday(now)].sort().at(-1)!;
  return date <= addDays(p.due_date, RETRY_DAYS) ? date : null;
}

/**
 * The job's step for one due Pix Automático charge: read it back and follow it; a charge the PSP does not hold after
 * the lost-intent time is sent again (the same request: its txid and body derive from the charge); still scheduled,
 * it is read again in six hours (its callback brings it sooner).
 */
export async function reconcileMandateCharge(
  deps: PaymentDeps,
  pix: PixMandateConnector,
  payment: Payment,
  now: Date,
  opts: { lostIntentSeconds?: number },
): Promise<'settled' | 'failed' | 'waiting' | 'closed'> {
  if (!payment.provider || !awaitsProvider(payment) || !payment.mandate_id) return 'closed';
  const state = await pix.getCharge(payment.provider.reference);
  const at = now.toISOString();
  if (state.kind === 'not_found' && now.getTime() - Date.parse(payment.created_at) > (opts.lostIntentSeconds ?? 300) * 1000) {
    const idRec = payment.provider.details.provider_mandate_id;
    if (idRec) {
      const policy = payment.provider.details.retry_policy === 'retry_3_in_7_days' ? 'retry_3_in_7_days' : 'none';
      try {
        await sendPixCharge(deps, pix, idRec, policy, payment);
      } catch (e) {
        // Refused now (the rec ended meanwhile, the window passed): the charge was failed; the job goes on to the next.
        if (e instanceof AppError && e.code === 'PROVIDER_REJECTED') return 'failed';
        throw e;
      }
      return 'waiting';
    }
  }
  let outcome = await applyChargeReadBack(deps, payment, state);
  const retryOn = outcome === 'waiting' && pix.retryCharge ? retryDateOf(payment, state, now) : null;
  if (retryOn) {
    // The attempt failed and the mandate allows retries: the PSP tries again only when asked (a second ask is refused).
    const fresh = (await deps.store.getPayment(payment.payment_id)) ?? payment;
    const retried = await pix.retryCharge!(payment.provider.reference, retryOn).catch((e: unknown) => {
      if (e instanceof ProviderRejected) return null;
      throw e;
    });
    if (retried && awaitsProvider(fresh)) outcome = await applyChargeReadBack(deps, fresh, retried);
  }
  if (outcome === 'waiting') {
    const fresh = (await deps.store.getPayment(payment.payment_id)) ?? payment;
    if (awaitsProvider(fresh))
      await deps.store
        .touchPayment({
          payment: fresh,
          patch: {},
          nextCheckAt: new Date(now.getTime() + CHARGE_CHECK_SECONDS * 1000).toISOString(),
          now: at,
        })
        .catch(() => undefined);
  }
  return outcome;
}

export interface MandateCallbackResult extends Record<string, number> {
  accepted: number;
  unknown: number;
  unavailable: number;
}

/**
 * The PSP's `webhookrec` or `webhookcobr` callback: 404 for a wrong token (nothing read), 400 for a body that is not
 * that shape; then each item read back. Unknown ids are answered 200 and counted.
 */
export async function receiveMandateCallback(
  deps: MandateDeps,
  kind: 'rec' | 'cobr',
  token: string,
  readBody: () => unknown,
): Promise<MandateCallbackResult> {
  const rail = (await deps.connectors.forMode(true))?.pixMandates;
  if (!rail || !rail.callbacks.tokenMatches(token)) throw new AppError('NOT_FOUND');
  const body = readBody();
  const result: MandateCallbackResult = { accepted: 0, unknown: 0, unavailable: 0 };
  const name = rail.mandates.provider.name;
  if (kind === 'rec') {
    const parsed = rail.callbacks.parseRecurrences(body);
    if (!parsed) throw new AppError('VALIDATION_ERROR', "The callback body is not the PSP's recurrence callback shape.");
    for (const id of parsed.providerMandateIds) {
      const mandateId = await deps.mandates.mandateOfProvider(name, id);
      if (!mandateId) {
        result.unknown++;
        continue;
      }
      try {
        await reconcileMandate(deps, mandateId);
        result.accepted++;
      } catch {
        result.unavailable++;
      }
    }
    return result;
  }
  const parsed = rail.callbacks.parseCharges(body);
  if (!parsed) throw new AppError('VALIDATION_ERROR', "The callback body is not the PSP's charge callback shape.");
  for (const reference of parsed.references) {
    const paymentId = rail.callbacks.paymentIdOf(reference);
    const payment = paymentId ? await deps.store.getPayment(paymentId) : null;
    if (!payment || !payment.livemode || payment.provider?.name !== name || payment.provider.reference !== reference) {
      result.unknown++;
      continue;
    }
    try {
      await reconcileMandateCharge(deps, rail.mandates, payment, deps.clock.now(), { lostIntentSeconds: deps.lostIntentSeconds });
      result.accepted++;
    } catch {
      result.unavailable++;
    }
  }
  return result;
}
