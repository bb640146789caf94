/**
 * Live PIX charges held by a provider (DESIGN.md section 8): the intent is committed before the provider is
 * called, the provider's answer after; what the provider holds is only ever learned by reading it back
 * (never from a callback body), and a charge whose outcome is unknown stays open with its reference until
 * the reconciliation job (reconcile-held.ts; its PIX read-back: pix-reconcile.ts) resolves it.
 */
import { AppError } from '../../domain/errors';
import type { Payment } from '../../domain/payments/payment';
import { fromMinor } from '../../domain/money';
import { type PixCharge, type PixConnector, ProviderRejected, ProviderUnavailable } from '../providers';
import { type Initiated, type InitiateRequest, recordNewPayment, transition } from '../payments';
import { type PaymentDeps, WriteConflict } from '../ports';

type HeldPixConnector = PixConnector & { provider: NonNullable<PixConnector['provider']> };

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
 * A live PIX payment: commit it `processing` with the provider reference derived from its id, then create the
 * charge at the provider, then commit `pending` with the PIX code. A keyed retry of a payment whose charge
 * never answered repeats the same request (the provider is idempotent by our reference).
 */
export async function initiateHeldPix(deps: PaymentDeps, req: InitiateRequest, base: Payment, pix: PixConnector): Promise<Initiated> {
  if (!pix.provider) throw new Error('initiateHeldPix: the connector holds no charges');
  const intent: Payment = {
    ...base,
    status: 'processing',
    provider: { name: pix.provider.name, reference: pix.provider.reference(req.paymentId), details: {} },
  };
  const held = pix as HeldPixConnector;
  const existing = await recordNewPayment(deps, req, {
    payment: intent,
    session: req.session ? { sessionId: req.session.session_id, complete: false, latestOnly: false } : undefined,
    events: [],
    now: intent.created_at,
  });
  const current = existing ?? intent;
  if (existing && !(existing.status === 'processing' && existing.provider && !existing.artefact))
    return { payment: existing, existing: true };
  return { payment: await createHeldCharge(deps, current, req, held), existing: Boolean(existing) };
}

async function createHeldCharge(deps: PaymentDeps, payment: Payment, req: InitiateRequest, pix: HeldPixConnector): Promise<Payment> {
  let charge: PixCharge;
  try {
    charge = await pix.createCharge(chargeRequest(payment, req));
  } catch (e) {
    if (e instanceof ProviderUnavailable) {
      throw new AppError(
        'PROVIDER_UNAVAILABLE',
        `The PIX provider did not answer. Payment ${payment.payment_id} is processing; its outcome follows by webhook.`,
        { paymentId: payment.payment_id },
      );
    }
    if (e instanceof ProviderRejected) {
      await transition(deps, payment, 'failed', {
        failure_code: 'PROVIDER_REJECTED',
        failure_message: `The PIX provider refused the charge (${e.code}).`,
        expires_at: null,
      });
      throw new AppError('PROVIDER_REJECTED', `The PIX provider refused the charge for payment ${payment.payment_id} (${e.code}).`, {
        paymentId: payment.payment_id,
      });
    }
    throw e;
  }
  return openHeldCharge(deps, payment, charge);
}

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
