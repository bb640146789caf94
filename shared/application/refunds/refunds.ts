/**
 * Refunds (issue 11): give a successful payment's money back, in full or in parts, never more than it was,
 * within the method's window, out of the available balance. Creating one reserves it on the payment, debits
 * the balance and writes refund.created in one transaction; the rail settles it (sandbox: after a delay),
 * and a failure gives the reservation and the money back the same way.
 */
import { disputeHoldsFunds } from '../../domain/payments/dispute';
import { AppError } from '../../domain/errors';
import { fromMinor, toMinor } from '../../domain/money';
import type { Payment } from '../../domain/payments/payment';
import { describeFieldErrors, validateBeneficiary } from '../../domain/payouts/beneficiary';
import { maskBeneficiary } from '../../domain/payouts/masking';
import { refundEvent } from '../../domain/refunds/refund-events';
import {
  needsBeneficiary,
  REFUND_EVENT,
  refundableMinor,
  refundDeadline,
  refundRail,
  sandboxRefundFails,
  type Refund,
  type RefundReason,
} from '../../domain/refunds/refund';
import type { CreateRefundInput } from '../../domain/refunds/refund.schemas';
import type { Principal } from '../access';
import { type Answering, type PaymentDeps, commitAndPublish, WriteConflict } from '../ports';
import { liveRefundConnector, liveRefundDecision } from './refunds-live';
import { applyRefundDecision, type RefundDecision } from './refund-decision';

/** Who asks: a merchant's key, or the service itself (the duplicate-payment refund). */
type Requester = Pick<Principal, 'merchant' | 'livemode'> | { system: true };

async function ownPayment(deps: PaymentDeps, who: Requester, paymentId: string): Promise<Payment> {
  const p = await deps.store.getPayment(paymentId);
  if (!p) throw new AppError('PAYMENT_NOT_FOUND');
  if ('merchant' in who && (p.merchant_id !== who.merchant.merchant_id || p.livemode !== who.livemode)) {
    throw new AppError('PAYMENT_NOT_FOUND');
  }
  return p;
}

function checkBeneficiary(p: Payment, beneficiary: CreateRefundInput['beneficiary']) {
  if (!needsBeneficiary(p.payment_method)) {
    if (beneficiary)
      throw new AppError('VALIDATION_ERROR', `A ${p.payment_method} refund goes back to the original instrument; omit beneficiary.`, {
        details: [{ field: 'beneficiary', message: `not accepted for ${p.payment_method} payments` }],
      });
    return null;
  }
  const rail = refundRail(p.country);
  if (!rail) throw new AppError('METHOD_NOT_AVAILABLE', `Refunds of ${p.payment_method} payments in ${p.country} cannot be sent yet.`);
  if (!beneficiary)
    throw new AppError('VALIDATION_ERROR', `A ${p.payment_method} refund needs a beneficiary account (${rail.name} in ${p.country}).`, {
      details: [{ field: 'beneficiary', message: `required for ${p.payment_method} payments: ${rail.required_fields.join(', ')}` }],
    });
  const r = validateBeneficiary(rail, beneficiary);
  const errors = [...r.malformed, ...r.invalid]; // fields already named beneficiary.<field>
  if (errors.length)
    throw new AppError('VALIDATION_ERROR', `Invalid beneficiary: ${describeFieldErrors(errors)}`, {
      details: errors,
    });
  return maskBeneficiary(beneficiary);
}

/** Amount in minor units: the requested one (checked against what is left) or all that is left. */
function refundAmount(p: Payment, amount: number | undefined): number {
  const left = refundableMinor(p);
  if (p.status !== 'success' || left <= 0) {
    throw new AppError(
      'PAYMENT_NOT_REFUNDABLE',
      p.status === 'success' || p.status === 'refunded'
        ? 'The payment is already fully refunded.'
        : `A ${p.status} payment cannot be refunded.`,
    );
  }
  if (disputeHoldsFunds(p.dispute)) {
    throw new AppError(
      'PAYMENT_NOT_REFUNDABLE',
      'A disputed payment cannot be refunded: its dispute holds the amount, or already returned it to the shopper.',
    );
  }
  if (amount === undefined) return left;
  const minor = toMinor(amount, p.currency);
  if (minor === null)
    throw new AppError('VALIDATION_ERROR', 'Invalid amount.', {
      details: [{ field: 'amount', message: `must be greater than 0 with at most the decimals of ${p.currency}` }],
    });
  if (minor > left)
    throw new AppError('REFUND_AMOUNT_EXCEEDED', `At most ${fromMinor(left, p.currency)} ${p.currency} is left to refund on this payment.`);
  return minor;
}

export async function createRefund(
  deps: PaymentDeps,
  who: Requester,
  paymentId: string,
  input: { amount?: number; reason: RefundReason; metadata: Refund['metadata']; beneficiary?: CreateRefundInput['beneficiary'] },
  refundId: string,
  answering?: Answering<Refund>,
): Promise<Refund> {
  const existing = await deps.refunds.get(refundId);
  if (existing && existing.payment_id === paymentId) return existing; // a keyed retry after a crash
  if (existing) throw new AppError('IDEMPOTENCY_KEY_REUSED', 'This X-Idempotency-Key was already used for a refund of another payment.');
  const payment = await ownPayment(deps, who, paymentId);
  const now = deps.clock.now();
  if (payment.status === 'success' && now > refundDeadline(payment)) {
    throw new AppError(
      'REFUND_WINDOW_EXPIRED',
      `${payment.payment_method} payments can be refunded until ${refundDeadline(payment).toISOString()}.`,
    );
  }
  const amountMinor = refundAmount(payment, input.amount);
  const beneficiary = checkBeneficiary(payment, input.beneficiary);
  const rail = deps.refundRails.forMode(payment.livemode);
  if (!rail) throw new AppError('METHOD_NOT_AVAILABLE', 'No live refund provider is configured yet.');
  // A live refund carries its provider id from its first write: the intent is committed before the provider is called.
  const providerRefunds = payment.livemode ? await liveRefundConnector(deps, payment) : null;
  const at = now.toISOString();
  const refund: Refund = {
    refund_id: refundId,
    payment_id: payment.payment_id,
    merchant_id: payment.merchant_id,
    livemode: payment.livemode,
    amount_minor: amountMinor,
    currency: payment.currency,
    status: 'pending',
    reason: input.reason,
    metadata: input.metadata,
    beneficiary,
    reference_id: payment.reference_id,
    notification_url: payment.notification_url,
    failure_reason: null,
    ...(providerRefunds
      ? { provider: { name: providerRefunds.provider.name, reference: providerRefunds.provider.reference(refundId), details: {} } }
      : {}),
    created_at: at,
    updated_at: at,
    completed_at: null,
  };
  const after = { refunded_minor: (payment.refunded_minor ?? 0) + amountMinor };
  try {
    await commitAndPublish(
      deps.publisher,
      deps.refunds.create({
        refund,
        payment,
        events: [refundEvent(REFUND_EVENT.pending, refund, after, deps.ids.newId('evt_'), at)],
        ledgerEntryId: deps.ids.newId('le_'),
        now: at,
        done: await answering?.(refund),
      }),
    );
  } catch (e) {
    if (!(e instanceof WriteConflict)) throw e;
    if (e.entity === 'balance')
      throw new AppError('INSUFFICIENT_BALANCE', `The available ${payment.currency} balance does not cover this refund.`);
    if (e.entity === 'refund') {
      const stored = await deps.refunds.get(refundId);
      if (stored && stored.payment_id === paymentId) return stored;
      // The id comes from an X-Idempotency-Key whose record expired, now sent for another payment.
      if (stored) throw new AppError('IDEMPOTENCY_KEY_REUSED', 'This X-Idempotency-Key was already used for a refund of another payment.');
    }
    if (e.entity === 'payment') {
      // Another refund (or a status change) got there first: answer with what is true now.
      const fresh = await ownPayment(deps, who, paymentId);
      refundAmount(fresh, fromMinor(amountMinor, fresh.currency));
    }
    throw e;
  }
  await rail.schedule(refundId);
  return refund;
}

export async function getRefund(deps: PaymentDeps, principal: Principal, refundId: string): Promise<Refund> {
  const r = await deps.refunds.get(refundId);
  if (!r || r.merchant_id !== principal.merchant.merchant_id || r.livemode !== principal.livemode) throw new AppError('REFUND_NOT_FOUND');
  return r;
}

export async function listPaymentRefunds(deps: PaymentDeps, principal: Principal, paymentId: string) {
  const payment = await ownPayment(deps, principal, paymentId);
  return { payment, refunds: await deps.refunds.listByPayment(paymentId) };
}

/**
 * The settlement worker's step for a refund: the sandbox bank succeeds, or declines amounts ending in .13;
 * a live refund goes to (or is read back from) its provider. A refund already settled (a duplicate message)
 * is left alone.
 */
export async function settleRefund(deps: PaymentDeps, refundId: string): Promise<Refund | null> {
  const refund = await deps.refunds.get(refundId);
  if (!refund || refund.status !== 'pending') return refund;
  const decision: RefundDecision = refund.livemode
    ? await liveRefundDecision(deps, refund)
    : sandboxRefundFails(refund.amount_minor)
      ? { to: 'failed', reason: 'declined_by_bank' }
      : { to: 'succeeded' };
  return decision.to === 'pending' ? refund : applyRefundDecision(deps, refundId, decision);
}
