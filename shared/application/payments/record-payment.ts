/** A new payment's request and its first write, shared by the sandbox path and every held rail. */
import type { WalletChoice } from '../../domain/payments/methods';
import type { CountryCode, CurrencyCode } from '../../domain/geo';
import { AppError } from '../../domain/errors';
import { paymentEvent } from '../../domain/events';
import type { Merchant } from '../../domain/merchant';
import { PAYMENT_EVENT, type Payment, type PaymentMethod, type PaymentStatus } from '../../domain/payments/payment';
import type { BillingAddress, CardInput, CustomerInput } from '../../domain/payments/payment.schemas';
import type { CheckoutSession } from '../../domain/payments/session';
import { commitAndPublish, WriteConflict, type Answering, type PaymentDeps } from '../ports';
import type { CardOutcome, ShopperBrowser } from '../providers';

export interface InitiateRequest {
  readonly paymentId: string;
  readonly merchant: Merchant;
  readonly livemode: boolean;
  readonly kind: PaymentMethod;
  readonly amountMinor: number;
  readonly currency: CurrencyCode;
  readonly country: CountryCode;
  readonly customer: CustomerInput;
  readonly card?: CardInput;
  readonly installments?: number;
  readonly session?: CheckoutSession;
  /** Status a card needing 3DS starts in: pending_3ds (direct) or processing (checkout, SPEC.md 3.1). */
  readonly threeDsStatus: Extract<PaymentStatus, 'pending_3ds' | 'processing'>;
  readonly description?: string | null;
  readonly notificationUrl?: string | null;
  readonly returnUrl?: string | null;
  readonly referenceId?: string | null;
  readonly metadata?: Payment['metadata'];
  /** The hosted page's shopper browser, for a live card's 3-D Secure 2 (never stored). */
  readonly browser?: ShopperBrowser;
  /** The payer's address (a live boleto is registered with it). */
  readonly billingAddress?: BillingAddress;
  /** The wallet the shopper chose (Brazil's wallets), one the mode serves (checked by chooseMethod). */
  readonly wallet?: WalletChoice;
  /** A keyed request's answer for the payment, recorded with its first write when the provider already answered. */
  readonly answering?: Answering<Payment>;
}

export interface Initiated {
  readonly payment: Payment;
  readonly card?: CardOutcome;
  /** True when the id already existed (a keyed retry after a crash): nothing new was written. */
  readonly existing: boolean;
}

/**
 * Records a new payment (with its session link, events and credit) and publishes its events. A keyed retry
 * after a crash finds the id taken: the stored payment is returned instead (null when it was recorded now).
 * A session that stopped accepting payments answers SESSION_EXPIRED or SESSION_NOT_PENDING.
 */
export async function recordNewPayment(
  deps: PaymentDeps,
  req: Pick<InitiateRequest, 'paymentId' | 'merchant' | 'session'>,
  op: Parameters<PaymentDeps['store']['recordNewPayment']>[0],
): Promise<Payment | null> {
  try {
    await commitAndPublish(deps.publisher, deps.store.recordNewPayment(op));
    return null;
  } catch (e) {
    if (e instanceof WriteConflict && e.entity === 'payment') {
      const existing = await deps.store.getPayment(req.paymentId);
      if (existing && existing.merchant_id === req.merchant.merchant_id) return existing;
    }
    if (e instanceof WriteConflict && e.entity === 'session') {
      const s = await deps.store.getSession(req.session?.session_id ?? '');
      if (s && Date.parse(s.expires_at) <= deps.clock.now().getTime()) throw new AppError('SESSION_EXPIRED');
      throw new AppError('SESSION_NOT_PENDING', 'The session is no longer accepting payments.');
    }
    throw e;
  }
}

/**
 * Records a payment the provider already answered (sandbox connectors, a live deposit CLABE): its event (when its
 * status has one), session link and (on success) credit. A keyed retry finds the stored payment instead.
 */
export async function recordStarted(
  deps: PaymentDeps,
  req: Pick<InitiateRequest, 'paymentId' | 'merchant' | 'session' | 'answering'>,
  payment: Payment,
): Promise<Initiated> {
  const at = payment.created_at;
  const type = PAYMENT_EVENT[payment.status];
  const events = type ? [paymentEvent(type, payment, req.session ?? null, deps.ids.newId('evt_'), at)] : [];
  const credit =
    payment.status === 'success'
      ? { amountMinor: payment.amount_minor, currency: payment.currency, entryId: deps.ids.newId('le_') }
      : undefined;
  const existing = await recordNewPayment(deps, req, {
    payment,
    session: req.session ? { sessionId: req.session.session_id, complete: payment.status === 'success', latestOnly: false } : undefined,
    events,
    credit,
    now: at,
    // A failed payment is answered with an error, which is not stored: a retry runs again and finds it.
    done: payment.status === 'failed' ? undefined : await req.answering?.(payment),
  });
  if (existing) return { payment: existing, existing: true };
  return { payment, existing: false };
}
