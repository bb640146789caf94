/** How payments look on the wire (SPEC.md 2.4, 4.1 response shapes): the use cases return Payment, these shape it. */
import type { PaymentDeps, QrCodes } from '../../application/ports';
import { ERRORS, type ErrorCode } from '../../domain/errors';
import { fromMinor } from '../../domain/money';
import type { Payment } from '../../domain/payments/payment';
import { disputeFields } from '../../domain/events';
import { providerAttemptsOf } from '../../domain/payments/provider-attempts';

/** What a view needs besides the object: the public base URL (links), the QR renderer and the clock. */
export type ViewContext = Pick<PaymentDeps, 'baseUrl' | 'clock'>;

export const pixQrUrl = (ctx: Pick<ViewContext, 'baseUrl'>, paymentId: string) => `${ctx.baseUrl()}/checkout/pix-qr/${paymentId}`;

/** A payment's failure reason as merchants and the hosted page read it: the direct API's lowercase code (card_declined, ...). */
export function publicFailureCode(code: string | null): string | null {
  if (!code) return null;
  return code in ERRORS ? ERRORS[code as ErrorCode].direct : code.toLowerCase();
}

/** The method artefact as response fields: pix_code, boleto_line, clabe, voucher_reference, ... (never the PIX txid). */
export function artefactFields(p: Payment): Record<string, string> {
  const a = { ...(p.artefact ?? {}) };
  delete a.txid;
  return a;
}

/** POST /api/v1/checkout/process: 200 with the method's artefact, or 422 with the decline. */
export function processPaymentView(ctx: Pick<ViewContext, 'baseUrl'>, p: Payment) {
  if (p.status === 'failed') {
    return {
      status: 422,
      body: {
        success: false,
        status: 'failed',
        payment_id: p.payment_id,
        error_message: p.failure_message ?? 'The payment failed.',
        failure_code: publicFailureCode(p.failure_code),
      },
    };
  }
  return {
    status: 200,
    body: {
      success: true,
      payment_id: p.payment_id,
      status: p.status,
      payment_method: p.payment_method,
      ...artefactFields(p),
      ...(p.payment_method === 'pix' ? { pix_qr_code: pixQrUrl(ctx, p.payment_id) } : {}),
      ...(p.artefact?.qr_code ? { qr_code_image: pixQrUrl(ctx, p.payment_id) } : {}),
      ...(p.redirect_url ? { redirect_url: p.redirect_url } : {}),
      ...(p.card && p.status === 'success' ? { card_brand: p.card.brand, card_last_four: p.card.last_four } : {}),
      ...(p.status === 'pending' || p.status === 'processing' ? { expires_at: p.expires_at } : {}),
    },
  };
}

/** POST /cashier/cashier/payment: PIX code with its QR image inline, card authorisation, or the 3DS redirect. */
export async function directPaymentView(ctx: { readonly qr: QrCodes }, p: Payment) {
  return {
    payment_id: p.payment_id,
    status: p.status,
    payment_method: p.payment_method,
    amount: fromMinor(p.amount_minor, p.currency),
    currency: p.currency,
    ...(p.payment_method === 'pix' && p.artefact?.pix_code
      ? { pix_code: p.artefact.pix_code, pix_qr_code_base64: await ctx.qr.pngDataUri(p.artefact.pix_code), expires_at: p.expires_at }
      : {}),
    ...(p.card && p.status === 'success'
      ? { card_brand: p.card.brand, card_last_four: p.card.last_four, authorization_code: p.authorization_code }
      : {}),
    ...(p.status === 'pending_3ds' ? { redirect_url: p.redirect_url, return_url: p.return_url } : {}),
    provider_attempts: providerAttemptsOf(p),
  };
}

/** GET /cashier/cashier/status (and the sandbox simulate answer, with success: true). */
/** A mandate charge's settlement attempts at the PSP (Pix Automático retries), as last read back: date, outcome, our code. */
export function chargeAttemptsOf(p: Payment) {
  const raw = p.provider?.details.attempts;
  if (!raw) return [];
  return raw.split(',').map((a) => {
    const [date, outcome, failure_code] = a.split(':');
    return { date: date ?? '', outcome: outcome ?? '', failure_code: failure_code ?? null };
  });
}

export function paymentStatusView(p: Payment) {
  return {
    payment_id: p.payment_id,
    merchant_id: p.merchant_id,
    status: p.status,
    payment_method: p.payment_method,
    amount: fromMinor(p.amount_minor, p.currency),
    currency: p.currency,
    paid_at: p.paid_at,
    refunded_amount: fromMinor(p.refunded_minor ?? 0, p.currency),
    created_at: p.created_at,
    ...(p.artefact?.crypto_amount ? { crypto_amount: p.artefact.crypto_amount, crypto_currency: p.artefact.crypto_currency } : {}),
    provider_attempts: providerAttemptsOf(p),
    ...(p.dispute ? { dispute: disputeFields(p) } : {}),
    ...(p.mandate_id
      ? { mandate_id: p.mandate_id, due_date: p.due_date ?? null, failure_code: p.failure_code, charge_attempts: chargeAttemptsOf(p) }
      : {}),
  };
}
