/**
 * Live vouchers (cash slips) held by a provider (issue 23): the intent (`processing`, with the provider reference)
 * is committed before the provider is called; the voucher it issues replaces the sandbox's artefact and the
 * payment waits `pending` for the provider's notification. Past its expiry (and a grace for a last-minute
 * payment's notification) the reconciliation job expires it.
 */
import { AppError } from '../../domain/errors';
import type { Payment } from '../../domain/payments/payment';
import { type HeldVoucherConnector, type VoucherKind, ProviderRejected, ProviderUnavailable } from '../providers';
import { type Initiated, type InitiateRequest, recordNewPayment, transition } from '../payments';
import type { PaymentDeps } from '../ports';
import { heldCardPaths } from './held-card';

/** Seconds after a voucher's expiry before it is expired: a payment at the last minute is still notified. */
export const VOUCHER_GRACE_SECONDS = 3600;

export async function initiateHeldVoucher(
  deps: PaymentDeps,
  req: InitiateRequest,
  base: Payment,
  voucher: HeldVoucherConnector,
): Promise<Initiated> {
  // A registered boleto names its payer's address: asked for before anything is written.
  if (req.kind === 'boleto' && !req.billingAddress) {
    throw new AppError('VALIDATION_ERROR', 'A boleto needs the payer’s billing_address (postal_code, street, number, city, state).', {
      details: [{ field: 'billing_address', message: 'is required for boleto payments' }],
    });
  }
  const intent: Payment = {
    ...base,
    status: 'processing',
    provider: { name: voucher.provider.name, reference: voucher.provider.reference(req.paymentId), details: {} },
  };
  const existing = await recordNewPayment(deps, req, {
    payment: intent,
    session: req.session ? { sessionId: req.session.session_id, complete: false, latestOnly: false } : undefined,
    events: [],
    now: intent.created_at,
  });
  if (existing && !(existing.status === 'processing' && !existing.artefact)) return { payment: existing, existing: true };
  const payment = existing ?? intent;
  let issued: Awaited<ReturnType<HeldVoucherConnector['issue']>>;
  try {
    issued = await voucher.issue({
      paymentId: payment.payment_id,
      kind: req.kind as VoucherKind,
      amountMinor: payment.amount_minor,
      currency: payment.currency,
      country: payment.country,
      shopper: {
        name: req.customer.name,
        email: req.customer.email,
        document: req.customer.document.replace(/\D/g, ''),
        ...(req.billingAddress ? { address: req.billingAddress } : {}),
      },
      dueAt: payment.expires_at ?? new Date(Date.parse(payment.created_at) + 3 * 86_400_000).toISOString(),
      returnUrl: `${deps.baseUrl()}${heldCardPaths(voucher.provider.name, payment.payment_id).return}`,
    });
  } catch (e) {
    if (e instanceof ProviderUnavailable) {
      throw new AppError(
        'PROVIDER_UNAVAILABLE',
        `The voucher provider did not answer. Payment ${payment.payment_id} is processing; its outcome follows by webhook.`,
        { paymentId: payment.payment_id },
      );
    }
    if (e instanceof ProviderRejected) {
      await transition(deps, payment, 'failed', {
        failure_code: 'PROVIDER_REJECTED',
        failure_message: `The voucher provider refused the payment (${e.code}).`,
        expires_at: null,
      });
      throw new AppError('PROVIDER_REJECTED', `The voucher provider refused payment ${payment.payment_id} (${e.code}).`, {
        paymentId: payment.payment_id,
      });
    }
    throw e;
  }
  const provider = payment.provider as NonNullable<Payment['provider']>;
  try {
    return {
      payment: await transition(deps, payment, 'pending', {
        artefact: { ...issued.artefact },
        provider: { ...provider, details: { ...provider.details, ...issued.details } },
      }),
      existing: Boolean(existing),
    };
  } catch (e) {
    if (!(e instanceof AppError) || e.code !== 'PAYMENT_STATE_CONFLICT') throw e;
    return { payment: (await deps.store.getPayment(payment.payment_id)) ?? payment, existing: true };
  }
}

/** The job's step for a pending held voucher: wait until its expiry plus the grace, then expire it. */
export async function reconcileHeldVoucher(deps: PaymentDeps, payment: Payment, now: Date): Promise<'expired' | 'waiting' | 'closed'> {
  if (payment.status !== 'pending') return 'closed';
  const until = Date.parse(payment.expires_at ?? payment.created_at) + VOUCHER_GRACE_SECONDS * 1000;
  if (now.getTime() < until) {
    await deps.store.touchPayment({ payment, patch: {}, nextCheckAt: new Date(until).toISOString(), now: now.toISOString() });
    return 'waiting';
  }
  try {
    await transition(deps, payment, 'expired', { expires_at: null });
    return 'expired';
  } catch (e) {
    if (e instanceof AppError && e.code === 'PAYMENT_STATE_CONFLICT') return 'closed';
    throw e;
  }
}
