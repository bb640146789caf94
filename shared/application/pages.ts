/** Use cases behind the customer-facing pages: hosted checkout, sandbox completion, PIX QR image. */
import { AppError } from '../domain/errors';
import type { Payment } from '../domain/payments/payment';
import { shopperReturnUrl, shopperState } from '../domain/payments/session';
import { checkoutUrl } from './checkout';
import type { PaymentDeps } from './payment-deps';
import type { QrCodes } from './payment-ports';
import { completePayment, settlePaymentExpiry } from './payments';

/** A test-mode payment for the sandbox pages; live payments are never completed from a page. */
export async function sandboxPayment(deps: PaymentDeps, paymentId: string): Promise<Payment> {
  const p = await deps.store.getPayment(paymentId);
  if (!p || p.livemode) throw new AppError('PAYMENT_NOT_FOUND');
  return settlePaymentExpiry(deps, p);
}

/**
 * Completes from a sandbox page and says where the customer goes next: a checkout
 * payment to success_url when it succeeded, back to the hosted page when it failed
 * and the session still takes payments (the shopper may retry, as after a decline),
 * else to cancel_url (SPEC.md 6.3); a direct payment to its return_url.
 */
export async function completeFromPage(
  deps: PaymentDeps,
  paymentId: string,
  outcome: 'success' | 'failed',
): Promise<{ payment: Payment; next: string }> {
  await sandboxPayment(deps, paymentId);
  const payment = await completePayment(deps, paymentId, outcome);
  return { payment, next: await shopperNextUrl(deps, payment) };
}

/**
 * Where a shopper goes after a page outside the hosted checkout (sandbox page, a card's 3-D Secure): a checkout
 * payment to success_url when it succeeded, back to the hosted page while the session still takes payments (it
 * shows the payment as it is, and retries after a decline), else to cancel_url (SPEC.md 6.3); a direct payment to
 * its return_url, or without one to the result page.
 */
export async function shopperNextUrl(deps: PaymentDeps, payment: Payment): Promise<string> {
  if (payment.checkout_session_id) {
    const s = await deps.store.getSession(payment.checkout_session_id);
    if (s) {
      if (payment.status === 'success') return shopperReturnUrl(s.success_url, s.session_id);
      if (shopperState(s) === 'open') return checkoutUrl(deps, s.session_id);
      return shopperReturnUrl(s.cancel_url, s.session_id);
    }
  }
  if (payment.return_url) {
    const url = new URL(payment.return_url);
    url.searchParams.set('payment_id', payment.payment_id);
    url.searchParams.set('status', payment.status);
    return url.toString();
  }
  return `${deps.baseUrl()}/sandbox/3ds/${payment.payment_id}/done`;
}

/** A payment for the result page (either mode: it only shows the status a shopper may already know). */
export async function resultPagePayment(deps: PaymentDeps, paymentId: string): Promise<Payment> {
  const p = await deps.store.getPayment(paymentId);
  if (!p) throw new AppError('PAYMENT_NOT_FOUND');
  return p.livemode ? p : settlePaymentExpiry(deps, p);
}

/** The PNG of a PIX payment's QR code (the hosted page's image). */
export async function pixQrImage(deps: Pick<PaymentDeps, 'store'> & { readonly qr: QrCodes }, paymentId: string): Promise<Buffer> {
  const p = await deps.store.getPayment(paymentId);
  const code = p?.artefact?.pix_code;
  if (!p || !code) throw new AppError('PAYMENT_NOT_FOUND');
  return deps.qr.png(code);
}
