/**
 * Charges under a mandate (DESIGN.md 9.3): a payment with `mandate_id`, one per billing cycle (a failed card charge
 * may be charged again under retry_3_in_7_days: 3 retries in 7 days), committed with its cycle claim before the
 * provider is called. The sandbox settles a card charge at once and a PIX charge by simulate; live, a Pix Automático
 * charge (cobr) is sent to the PSP and read back until it settles.
 */
import { AppError } from '../../domain/errors';
import { addDays, daysBetween, localToday, type Mandate } from '../../domain/mandates/mandate';
import type { CreateMandateChargeInput } from '../../domain/mandates/mandate.schemas';
import { toMinor } from '../../domain/money';
import { methodCodeFor } from '../../domain/payments/methods';
import { PAYMENT_EVENT, type Payment } from '../../domain/payments/payment';
import { paymentEvent } from '../../domain/events';
import type { Principal } from '../access';
import { transition } from '../payments';
import { commitAndPublish, WriteConflict, type Answering, type PaymentDeps } from '../ports';
import { cardRailOf, ProviderRejected, ProviderUnavailable, type PixMandateChargeState, type PixMandateConnector } from '../providers';
import { chargeStoredCard } from './card-mandates';
import type { MandateDeps } from './mandate-deps';
import { chargeKindOf, checkCharge } from './mandate-rules';
import { getMandate } from './mandates';

const FINAL_FAILED = new Set(['failed', 'expired', 'cancelled']);
/** retry_3_in_7_days for a card mandate: the first charge and 3 retries, within 7 days of the due date. */
const MAX_CHARGES_A_CYCLE = 4;
const RETRY_DAYS = 7;

/** The last moment a Pix Automático charge can settle: its due date, or the retry policy's 7 days after (UTC-3 midnight). */
const pixChargeEnd = (m: Mandate, dueDate: string) => `${addDays(dueDate, m.retry_policy === 'retry_3_in_7_days' ? 8 : 1)}T03:00:00.000Z`;

export async function createMandateCharge(
  deps: MandateDeps,
  principal: Principal,
  mandateId: string,
  input: CreateMandateChargeInput,
  paymentId: string,
  answering?: Answering<Payment>,
): Promise<Payment> {
  const m = await getMandate(deps, principal, mandateId);
  const now = deps.clock.now();
  const at = now.toISOString();
  const connectors = m.livemode ? await deps.connectors.forMode(true) : null;
  const live = m.method === 'pix_automatico' ? connectors?.pixMandates?.mandates : null;
  const card = m.method === 'card' && m.stored_card ? connectors?.storedCards : null;
  const cardRail = card ? cardRailOf(connectors, card.provider.name) : null;
  if (m.status !== 'active') throw new AppError('MANDATE_NOT_ACTIVE', `The mandate is ${m.status}: only an active mandate can be charged.`);
  if (m.livemode && !(live && m.provider?.provider_mandate_id) && !(card && cardRail))
    throw new AppError('METHOD_NOT_AVAILABLE', `No live provider charges this ${m.method} mandate.`);
  const cycle = checkCharge(m, { amountMinor: toMinor(input.amount, m.currency), dueDate: input.due_date }, now, live?.chargeWindowDays);
  const held = await deps.mandates.cycleCharge(m.mandate_id, cycle);
  let replaces: string | null = null;
  if (held) {
    const prior = await deps.store.getPayment(held);
    if (held === paymentId && prior) return prior; // a keyed retry after a crash: the charge as stored
    // One charge per cycle. Only a card mandate under retry_3_in_7_days may charge a failed cycle again, within 7 days of
    // its due date (3 retries, counted on the cycle's claim): a Pix Automático charge is retried by the PSP itself.
    const retry = m.method === 'card' && m.retry_policy === 'retry_3_in_7_days';
    const inWindow = prior?.due_date ? daysBetween(prior.due_date, localToday(now)) <= RETRY_DAYS : false;
    if (!prior || !FINAL_FAILED.has(prior.status) || !retry || !inWindow)
      throw new AppError(
        'MANDATE_CYCLE_ALREADY_CHARGED',
        `Charge ${held} holds this billing cycle (${prior?.status ?? 'being made'}` +
          `${prior && FINAL_FAILED.has(prior.status) ? '; the mandate’s retry policy allows no new charge in it' : ''}).`,
      );
    replaces = held;
  }
  const kind = chargeKindOf(m.method);
  const sandboxCard = !m.livemode && kind === 'card';
  const payment: Payment = {
    payment_id: paymentId,
    merchant_id: m.merchant_id,
    livemode: m.livemode,
    checkout_session_id: null,
    payment_method: kind,
    method_code: methodCodeFor(kind, m.country) ?? kind,
    amount_minor: toMinor(input.amount, m.currency)!,
    currency: m.currency,
    country: m.country,
    status: sandboxCard ? 'success' : card ? 'processing' : 'pending',
    description: input.description ?? m.description,
    customer: m.customer,
    card: m.card,
    installments: kind === 'card' ? 1 : null,
    authorization_code: sandboxCard ? `SBX${paymentId.slice(-6).toUpperCase()}` : null,
    failure_code: null,
    failure_message: null,
    artefact: null,
    redirect_url: null,
    return_url: null,
    notification_url: input.notification_url ?? m.notification_url,
    reference_id: input.reference_id ?? null,
    metadata: { ...m.metadata, ...input.metadata },
    expires_at: kind === 'card' ? null : pixChargeEnd(m, input.due_date),
    paid_at: sandboxCard ? at : null,
    mandate_id: m.mandate_id,
    due_date: input.due_date,
    // Intent before call: the charge's reference at the PSP is committed with it.
    ...(live
      ? {
          provider: {
            name: live.provider.name,
            reference: live.provider.chargeReference(paymentId),
            // What a send again rebuilds the same request from (the job's read-back of a charge that never landed).
            details: { provider_mandate_id: m.provider!.provider_mandate_id!, retry_policy: m.retry_policy },
          },
        }
      : {}),
    // A stored card's charge: the card rail's payment reference, so its notifications, read-back and cancel apply.
    ...(card && cardRail
      ? { provider: { name: card.provider.name, reference: cardRail.cards.provider.reference(paymentId), details: {} } }
      : {}),
    created_at: at,
    updated_at: at,
  };
  const type = PAYMENT_EVENT[payment.status];
  const events = type ? [paymentEvent(type, payment, null, deps.ids.newId('evt_'), at)] : [];
  const credit =
    payment.status === 'success'
      ? { amountMinor: payment.amount_minor, currency: payment.currency, entryId: deps.ids.newId('le_') }
      : undefined;
  try {
    await commitAndPublish(
      deps.publisher,
      deps.mandates.createCharge({
        payment,
        cycle,
        replaces,
        maxCharges: MAX_CHARGES_A_CYCLE,
        events,
        credit,
        now: at,
        done: await answering?.(payment),
      }),
    );
  } catch (e) {
    if (!(e instanceof WriteConflict)) throw e;
    if (e.entity === 'payment') {
      const existing = await deps.store.getPayment(paymentId);
      if (existing && existing.merchant_id === m.merchant_id) return existing;
    }
    if (e.entity === 'mandate') throw new AppError('MANDATE_NOT_ACTIVE', 'The mandate stopped being active meanwhile.');
    if (e.entity === 'mandate_cycle')
      throw new AppError('MANDATE_CYCLE_ALREADY_CHARGED', 'Another charge took this billing cycle meanwhile.');
    throw e;
  }
  if (card) return chargeStoredCard(deps, card, m, payment);
  if (live)
    await sendPixCharge(deps, live, m.provider!.provider_mandate_id!, m.retry_policy, payment).catch((e: unknown) => {
      // Recorded pending either way: the reconciliation job reads it back and sends the same request again if it never landed.
      if (!(e instanceof ProviderUnavailable)) throw e;
    });
  return payment;
}

/** The cobr for a charge: derived from the charge and its mandate alone, so every send is the same request. */
export async function sendPixCharge(
  deps: PaymentDeps,
  pix: PixMandateConnector,
  providerMandateId: string,
  retryPolicy: Mandate['retry_policy'],
  p: Payment,
): Promise<void> {
  try {
    const state = await pix.createCharge({
      paymentId: p.payment_id,
      reference: p.provider!.reference,
      providerMandateId,
      amountMinor: p.amount_minor,
      dueDate: p.due_date!,
      description: p.description,
      retryPolicy,
    });
    await applyChargeReadBack(deps, p, state);
  } catch (e) {
    if (e instanceof ProviderRejected) {
      await transition(deps, p, 'failed', {
        failure_code: 'PROVIDER_REJECTED',
        failure_message: `The PSP refused the charge (${e.code}).`,
        expires_at: null,
      });
      throw new AppError('PROVIDER_REJECTED', `The PSP refused the charge (${e.code}); charge ${p.payment_id} failed.`, {
        paymentId: p.payment_id,
      });
    }
    throw e;
  }
}

/** A charge's read-back applied to its payment: paid (credited once), failed, or still scheduled (attempts kept). */
export async function applyChargeReadBack(
  deps: PaymentDeps,
  p: Payment,
  state: PixMandateChargeState,
): Promise<'settled' | 'failed' | 'waiting'> {
  const attempts =
    state.kind === 'not_found'
      ? undefined
      : state.attempts.map((a) => `${a.date}:${a.outcome}${a.failureCode ? `:${a.failureCode}` : ''}`).join(',');
  const details = { ...p.provider!.details, ...(attempts ? { attempts } : {}) };
  const provider = { ...p.provider!, details };
  switch (state.kind) {
    case 'paid':
      if (state.amountMinor !== p.amount_minor) {
        await deps.store.touchPayment({
          payment: p,
          patch: { provider_mismatch_minor: state.amountMinor, provider },
          nextCheckAt: null,
          now: deps.clock.now().toISOString(),
        });
        return 'waiting';
      }
      await transition(deps, p, 'success', {
        paid_at: state.paidAt,
        provider: { ...provider, details: { ...details, end_to_end_id: state.endToEndId } },
        expires_at: null,
      });
      return 'settled';
    case 'failed':
      await transition(deps, p, 'failed', { failure_code: state.failureCode, failure_message: state.message, provider, expires_at: null });
      return 'failed';
    case 'cancelled':
      await transition(deps, p, 'failed', {
        failure_code: 'cancelled',
        failure_message: 'The charge was cancelled at the PSP.',
        provider,
        expires_at: null,
      });
      return 'failed';
    default:
      // Still scheduled: each new attempt's result is shown on the payment at once (charge_attempts).
      if (attempts && attempts !== p.provider!.details.attempts)
        await deps.store
          .touchPayment({ payment: p, patch: { provider }, nextCheckAt: null, now: deps.clock.now().toISOString() })
          .catch(() => undefined);
      return 'waiting';
  }
}
