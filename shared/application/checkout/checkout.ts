/** Hosted checkout use cases (SPEC.md 2.1, 3.2, 4.1). */
import type { ShopperBrowser } from '../providers';
import { AppError } from '../../domain/errors';
import { toMinor } from '../../domain/money';
import { allowedInstallments, isAllowedInstallments } from '../../domain/payments/installments';
import type { CreateSessionInput, ProcessInput } from '../../domain/payments/payment.schemas';
import type { CheckoutSession } from '../../domain/payments/session';
import type { Principal } from '../access';
import { chooseMethod, initiatePayment, servedMerchant } from '../payins';
import { availableMethods } from '../../domain/payments/methods';
import type { Payment } from '../../domain/payments/payment';
import { closeRetrying, requireSafeNotificationUrl, settleExpiry } from '../payments';
import type { Answering, PaymentDeps } from '../ports';

/** A new session (or, for a keyed retry, the one already stored under that id). */
export async function createCheckoutSession(
  deps: PaymentDeps,
  principal: Principal,
  input: CreateSessionInput,
  sessionId: string,
): Promise<CheckoutSession> {
  if (input.environment === 'sandbox' && principal.livemode) {
    throw new AppError('VALIDATION_ERROR', 'environment "sandbox" needs a sk_test_ key.', {
      details: [{ field: 'environment', message: 'sandbox needs a sk_test_ key' }],
    });
  }
  if (!principal.merchant.countries.includes(input.country)) {
    throw new AppError('COUNTRY_NOT_SUPPORTED', `${input.country} is not enabled for this merchant.`);
  }
  requireSafeNotificationUrl(deps, input.notification_url, principal.livemode);
  const now = deps.clock.now();
  const at = now.toISOString();
  const session: CheckoutSession = {
    session_id: sessionId,
    merchant_id: principal.merchant.merchant_id,
    livemode: principal.livemode,
    amount_minor: toMinor(input.amount, input.currency) as number,
    currency: input.currency,
    country: input.country,
    status: 'pending',
    success_url: input.success_url,
    cancel_url: input.cancel_url,
    notification_url: input.notification_url ?? null,
    description: input.description ?? null,
    customer: input.customer
      ? (Object.fromEntries(Object.entries(input.customer).filter(([, v]) => v !== undefined)) as Record<string, string>)
      : null,
    order_number: input.order_number ?? null,
    reference_id: input.reference_id ?? null,
    metadata: input.metadata,
    payment_id: null,
    payment_status: null,
    expires_at: new Date(now.getTime() + input.expires_in_minutes * 60_000).toISOString(),
    created_at: at,
    updated_at: at,
  };
  let stored = session;
  if ((await deps.store.createSession(session)) === 'exists') {
    const existing = await deps.store.getSession(sessionId);
    if (!existing || existing.merchant_id !== session.merchant_id) throw new Error(`session id collision ${sessionId}`);
    stored = existing;
  }
  return stored;
}

/** Loads a session the principal may see: same merchant and mode, else SESSION_NOT_FOUND. */
async function ownSession(deps: PaymentDeps, principal: Principal, sessionId: string) {
  const s = await deps.store.getSession(sessionId);
  if (!s || s.merchant_id !== principal.merchant.merchant_id || s.livemode !== principal.livemode) throw new AppError('SESSION_NOT_FOUND');
  return s;
}

/** The session (expiry settled) with its latest payment, whose refunds the session view reports. */
export async function getCheckoutSession(
  deps: PaymentDeps,
  principal: Principal,
  sessionId: string,
): Promise<{ session: CheckoutSession; payment: Payment | null }> {
  const session = await settleExpiry(deps, await ownSession(deps, principal, sessionId));
  return { session, payment: session.payment_id ? await deps.store.getPayment(session.payment_id) : null };
}

/** pending or processing -> cancelled; `answering`: the keyed request's answer, in the closing transaction. */
export async function cancelCheckoutSession(
  deps: PaymentDeps,
  principal: Principal,
  sessionId: string,
  answering?: Answering<CheckoutSession>,
): Promise<CheckoutSession> {
  const s = await settleExpiry(deps, await ownSession(deps, principal, sessionId));
  if (s.status === 'cancelled') throw new AppError('SESSION_NOT_PENDING', 'The session is already cancelled.');
  if (s.status === 'expired') throw new AppError('SESSION_EXPIRED', 'The session has expired and cannot be cancelled.');
  if (s.status !== 'pending' && s.status !== 'processing')
    throw new AppError('SESSION_NOT_PENDING', `A ${s.status} session cannot be cancelled.`);
  const at = deps.clock.now().toISOString();
  const closed = await closeRetrying(deps, s, 'cancelled', at, answering);
  if (!closed) throw new AppError('SESSION_NOT_PENDING', 'The session changed while cancelling; it is no longer pending.');
  return { ...closed, status: 'cancelled', updated_at: at };
}

/** POST /api/v1/checkout/process: authorised by the session id itself (DESIGN.md section 5). */
export async function processCheckoutPayment(
  deps: PaymentDeps,
  input: ProcessInput,
  paymentId: string,
  browser?: ShopperBrowser,
): Promise<Payment> {
  const found = await deps.store.getSession(input.session_id);
  if (!found) throw new AppError('SESSION_NOT_FOUND');
  const s = await settleExpiry(deps, found);
  if (s.status === 'expired') throw new AppError('SESSION_EXPIRED');
  if (s.status !== 'pending' && s.status !== 'processing') throw new AppError('SESSION_NOT_PENDING', `The session is ${s.status}.`);
  const merchant = await deps.merchants.get(s.merchant_id);
  if (!merchant || merchant.status !== 'active') throw new AppError('MERCHANT_INACTIVE');
  const served = await servedMerchant(deps, merchant, s.livemode);
  const offered = availableMethods(s.country, s.currency, s.amount_minor, served).filter((m) => m.enabled);
  const choice = chooseMethod(
    { paymentMethod: input.payment_method, methodCode: input.method_code, wallet: input.wallet },
    s.country,
    offered,
  );
  const installments = input.payment_method === 'card' ? input.card?.installments : undefined;
  if (installments !== undefined && !isAllowedInstallments(s.country, s.amount_minor, s.currency, installments)) {
    const allowed = allowedInstallments(s.country, s.amount_minor, s.currency).join(', ');
    throw new AppError('VALIDATION_ERROR', `card.installments must be one of ${allowed} for this checkout.`, {
      details: [{ field: 'card.installments', message: `must be one of ${allowed}` }],
    });
  }
  const { payment } = await initiatePayment(deps, {
    installments,
    paymentId,
    merchant,
    livemode: s.livemode,
    kind: choice.kind,
    ...(choice.wallet ? { wallet: choice.wallet } : {}),
    amountMinor: s.amount_minor,
    currency: s.currency,
    country: s.country,
    customer: input.customer,
    card: input.card,
    session: s,
    threeDsStatus: 'processing',
    notificationUrl: s.notification_url,
    returnUrl: null,
    referenceId: s.order_number ?? s.reference_id,
    ...(browser ? { browser } : {}),
    ...(input.billing_address ? { billingAddress: input.billing_address } : {}),
    metadata: {},
  });
  return payment;
}
