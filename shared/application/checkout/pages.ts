/** Use cases behind the customer-facing pages: hosted checkout, sandbox completion, PIX QR image. */
import { AppError } from '../../domain/errors';
import type { Payment } from '../../domain/payments/payment';
import type { PaymentDeps, QrCodes } from '../ports';
import { completePayment, settlePaymentExpiry, shopperNextUrl } from '../payments';

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

/** A payment for the result page (either mode: it only shows the status a shopper may already know). */
export async function resultPagePayment(deps: PaymentDeps, paymentId: string): Promise<Payment> {
  const p = await deps.store.getPayment(paymentId);
  if (!p) throw new AppError('PAYMENT_NOT_FOUND');
  return p.livemode ? p : settlePaymentExpiry(deps, p);
}

/** The PNG of a payment's QR code (the hosted page's image): a PIX code, or a Bre-B or crypto order's QR. */
export async function pixQrImage(deps: Pick<PaymentDeps, 'store'> & { readonly qr: QrCodes }, paymentId: string): Promise<Buffer> {
  const p = await deps.store.getPayment(paymentId);
  const code = p?.artefact?.pix_code ?? p?.artefact?.qr_code;
  if (!p || !code) throw new AppError('PAYMENT_NOT_FOUND');
  return deps.qr.png(code);
}
