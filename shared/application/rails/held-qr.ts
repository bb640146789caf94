/**
 * A held local payment the shopper pays by scanning a QR our page shows (issue 41: Colombia's Bre-B, a crypto order):
 * the open payment shows the QR's content (`qr_code`, rendered as an image by our page and the direct answer), the
 * provider's own checkout page when it has one, and what the provider priced it at in another currency (a crypto
 * order: `crypto_amount` and `crypto_currency`, beside the payment's own amount). The payment expires when the
 * provider's QR does, never later than it would here.
 */
import type { Payment } from '../../domain/payments/payment';
import type { LocalPaymentArtefact, ProviderQuote } from '../providers';

const instant = (value: string | undefined): number => (value ? Date.parse(value) : NaN);

/** What an open QR payment shows. */
export function qrPatch(
  payment: Payment,
  qr: Extract<LocalPaymentArtefact, { kind: 'qr' }>,
  quote: ProviderQuote | undefined,
): Partial<Payment> {
  const artefact: Record<string, string> = {
    qr_code: qr.qrContent,
    ...(qr.checkoutUrl?.startsWith('https://') ? { checkout_url: qr.checkoutUrl } : {}),
    ...(quote ? { crypto_amount: quote.amount, crypto_currency: quote.currency } : {}),
  };
  const theirs = instant(qr.expiresAt);
  const ours = instant(payment.expires_at ?? undefined);
  const expiresAt = Number.isFinite(theirs) && (!Number.isFinite(ours) || theirs < ours) ? new Date(theirs).toISOString() : null;
  return { artefact, ...(expiresAt ? { expires_at: expiresAt } : {}) };
}
