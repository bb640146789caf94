/**
 * The hosted checkout page's use case: the session (expiry settled) with its merchant and its latest
 * payment, so a reload mid-payment shows that payment. The page and status views shape it.
 */
import { AppError } from '../../domain/errors';
import type { Merchant } from '../../domain/merchant';
import type { Payment } from '../../domain/payments/payment';
import type { CheckoutSession } from '../../domain/payments/session';
import type { PaymentDeps } from '../ports';
import { settleExpiry, settlePaymentExpiry } from '../payments';
import { servedMerchant } from '../payins';

export interface CheckoutView {
  readonly session: CheckoutSession;
  readonly payment: Payment | null;
  readonly merchant: Merchant;
}

/** The session a shopper opened, by its id (the capability), with its merchant and latest payment. */
export async function loadCheckout(deps: PaymentDeps, sessionId: string): Promise<CheckoutView> {
  const found = await deps.store.getSession(sessionId);
  if (!found) throw new AppError('SESSION_NOT_FOUND');
  const session = await settleExpiry(deps, found);
  const latest = session.payment_id ? await deps.store.getPayment(session.payment_id) : null;
  const payment = latest ? await settlePaymentExpiry(deps, latest) : null;
  const merchant = await deps.merchants.get(session.merchant_id);
  if (!merchant) throw new AppError('SESSION_NOT_FOUND');
  return { session, payment, merchant: await servedMerchant(deps, merchant, session.livemode) };
}
