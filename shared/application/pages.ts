/** Use cases behind the customer-facing pages: hosted checkout, sandbox completion, PIX QR image. */
import { AppError } from '../domain/errors';
import { availableMethods } from '../domain/payments/methods';
import type { Payment } from '../domain/payments/payment';
import type { CheckoutPageModel } from '../http/pages/checkout-page';
import { settleExpiry } from './checkout';
import type { PaymentDeps } from './payment-deps';
import { completePayment, settlePaymentExpiry } from './payments';

export async function checkoutPageModel(deps: PaymentDeps, sessionId: string): Promise<CheckoutPageModel> {
  const found = await deps.store.getSession(sessionId);
  if (!found) throw new AppError('SESSION_NOT_FOUND');
  const s = await settleExpiry(deps, found);
  const merchant = await deps.merchants.get(s.merchant_id);
  if (!merchant) throw new AppError('SESSION_NOT_FOUND');
  return {
    sessionId: s.session_id,
    merchantName: merchant.name,
    amountMinor: s.amount_minor,
    currency: s.currency,
    description: s.description,
    status: s.status === 'processing' ? 'pending' : s.status,
    livemode: s.livemode,
    methods: availableMethods(s.country, s.currency, s.amount_minor, merchant),
    customer: s.customer ?? {},
    successUrl: s.success_url,
    cancelUrl: s.cancel_url,
  };
}

/** A test-mode payment for the sandbox pages; live payments are never completed from a page. */
export async function sandboxPayment(deps: PaymentDeps, paymentId: string): Promise<Payment> {
  const p = await deps.store.getPayment(paymentId);
  if (!p || p.livemode) throw new AppError('PAYMENT_NOT_FOUND');
  return settlePaymentExpiry(deps, p);
}

/** Completes from a sandbox page and says where the customer goes next (SPEC.md 6.3). */
export async function completeFromPage(deps: PaymentDeps, paymentId: string, outcome: 'success' | 'failed'): Promise<{ payment: Payment; next: string }> {
  await sandboxPayment(deps, paymentId);
  const payment = await completePayment(deps, paymentId, outcome);
  if (payment.checkout_session_id) {
    const s = await deps.store.getSession(payment.checkout_session_id);
    if (s) {
      const url = new URL(payment.status === 'success' ? s.success_url : s.cancel_url);
      url.searchParams.set('session_id', s.session_id);
      return { payment, next: url.toString() };
    }
  }
  if (payment.return_url) {
    const url = new URL(payment.return_url);
    url.searchParams.set('payment_id', payment.payment_id);
    url.searchParams.set('status', payment.status);
    return { payment, next: url.toString() };
  }
  return { payment, next: `${deps.baseUrl()}/sandbox/3ds/${payment.payment_id}/done` };
}

export async function pixQrCode(deps: PaymentDeps, paymentId: string): Promise<string> {
  const p = await deps.store.getPayment(paymentId);
  const code = p?.artefact?.pix_code;
  if (!p || !code) throw new AppError('PAYMENT_NOT_FOUND');
  return code;
}
