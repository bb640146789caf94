/**
 * Between our PIX charges and dLocal's Pix pay-ins (dlocal.pix-payin-schemas.ts for the sources): our order_id per
 * attempt (reversible to the payment id), the create's body (refused before any call when it cannot be sent), the
 * copy-and-paste code of an answer (only a Pix BR Code), a payment read back as our charge state, and a refusal in
 * our words with whether it certainly made nothing. dLocal's texts (status_detail, message) never leave here.
 */
import type { PixChargeRequest, PixChargeState, ReceivedPix } from '../../../application/providers';
import { isPixBrCode } from '../../../domain/payments/pix-brcode';
import { fromReference, toReference } from '../references';
import { DLOCAL_NOT_PROCESSED, notProcessed } from './dlocal.card-transformers';
import type { DlocalPayment } from './dlocal.schemas';
import { PIX_METHOD_ID, PIX_ORDER_ID, type PixPayinRequest } from './dlocal.pix-payin-schemas';
import { dlocalAmount, failureCodeOf, minorOf, refusalCodeOf } from './dlocal.transformers';

/** Our order_id of a payment's PIX charge at dLocal: `dq` + 32 hex, and `a<n>` after it for attempt n > 1. */
export function pixOrderIdOf(paymentId: string, attempt = 1): string {
  if (!Number.isInteger(attempt) || attempt < 1 || attempt > 99) throw new RangeError('an attempt is 1 to 99');
  return toReference(paymentId, 'pi_', 'dq') + (attempt > 1 ? `a${attempt}` : '');
}

/** The payment one of our PIX order ids names (its attempt suffix dropped), or null when it is not one of ours. */
export function paymentIdOfPixOrderId(orderId: string): string | null {
  return PIX_ORDER_ID.test(orderId) ? fromReference(orderId.slice(0, 34), 'pi_', 'dq') : null;
}

/** Why a charge cannot be sent to dLocal (nothing is sent): dLocal's Brazilian payer needs a CPF or CNPJ and an e-mail. */
export type PixPayinInvalid = 'payer_document_required' | 'payer_email_required';

/** The create's body for one attempt, or why it cannot be sent. */
export function pixPayinBodyOf(
  req: PixChargeRequest,
  orderId: string,
  notificationUrl: string,
): { readonly body: PixPayinRequest } | { readonly invalid: PixPayinInvalid } {
  const document = (req.debtor?.document ?? '').replace(/\D/g, '');
  if (!req.debtor || (document.length !== 11 && document.length !== 14)) return { invalid: 'payer_document_required' };
  if (!req.payerEmail) return { invalid: 'payer_email_required' };
  const description = req.description?.trim().slice(0, 100);
  return {
    body: {
      amount: dlocalAmount(req.amountMinor, 'BRL'),
      currency: 'BRL',
      country: 'BR',
      payment_method_id: PIX_METHOD_ID,
      payment_method_flow: 'DIRECT',
      payer: { name: req.debtor.name.trim().slice(0, 100), email: req.payerEmail, document },
      order_id: orderId,
      ...(description ? { description } : {}),
      notification_url: notificationUrl,
    },
  };
}

/**
 * The Pix copy-and-paste code of a DIRECT answer: the ticket's `qr_code`, else its `number`, when it is a Pix BR Code
 * (not a ticket id, an image or a URL); null otherwise. Which field dLocal fills is to confirm in its sandbox.
 */
export function brCodeOf(p: Pick<DlocalPayment, 'ticket'>): string | null {
  const t = p.ticket;
  return [t?.qr_code, t?.number].find((c): c is string => typeof c === 'string' && isPixBrCode(c.trim()))?.trim() ?? null;
}

/** An ISO 8601 instant of one of dLocal's dates (2020-11-16T20:37:20.000+0000), or null when it is none. */
export function isoOf(date: string | undefined): string | null {
  if (!date) return null;
  const ms = Date.parse(date.replace(/([+-]\d{2})(\d{2})$/, '$1:$2'));
  return Number.isNaN(ms) ? null : new Date(ms).toISOString();
}

/**
 * How long an open charge is taken to be payable when dLocal's answer gives no `ticket.expiration_date` (dLocal's Pix
 * page gives no figure): a day. The payment's own expiry comes first (the rail is `expiresWithPayment`).
 */
export const DEFAULT_OPEN_SECONDS = 86_400;

/**
 * A dLocal payment of one of our PIX order ids as our charge state; null when it cannot be read as one (an open payment
 * without a BR Code to show, a card state, another currency): the caller says "no usable answer", never a state.
 * PAID is one received Pix: dLocal's payment object names no Pix end-to-end id, so dLocal's payment id stands in for it
 * (unique per payment, and what dLocal refunds by); dLocal lists no refunds on a payment (they are read back by our
 * order_refund_id), so none are reported here.
 */
export function pixChargeStateOf(p: DlocalPayment, orderId: string, now: Date): PixChargeState | null {
  if (p.currency !== 'BRL') return null;
  const code = brCodeOf(p);
  const charge = { pixCode: code ?? '', txid: orderId, details: { provider_payment_id: p.id } };
  switch (p.status) {
    case 'PENDING': {
      if (!code) return null;
      const created = isoOf(p.created_date) ?? now.toISOString();
      const expiresAt = isoOf(p.ticket?.expiration_date) ?? new Date(Date.parse(created) + DEFAULT_OPEN_SECONDS * 1000).toISOString();
      return { kind: 'open', charge, expiresAt };
    }
    case 'PAID': {
      const received: ReceivedPix = {
        endToEndId: p.id,
        amountMinor: minorOf(p.amount, 'BRL'),
        paidAt: isoOf(p.approved_date) ?? isoOf(p.created_date) ?? now.toISOString(),
        refunds: [],
        fraudReturns: [],
        providerPaymentId: p.id,
      };
      return { kind: 'paid', charge, received: [received] };
    }
    case 'REJECTED':
    case 'CANCELLED':
    case 'EXPIRED':
      return { kind: 'removed', received: [] };
    default:
      // AUTHORIZED, VERIFIED: card states a Pix pay-in never has.
      return null;
  }
}

/** A rejection in the create's answer (REJECTED at once) as our failure code. */
export const pixRejectionOf = (p: Pick<DlocalPayment, 'status_code'>) => failureCodeOf(p.status_code);

/**
 * dLocal's 4xx refusal of a create in our words, and whether it certainly made nothing (another PSP may be tried,
 * DESIGN.md 9.2): dLocal's documented not-processed codes (DLOCAL_NOT_PROCESSED) except those about the payer (user
 * unauthorized, limit, blacklisted), which another PSP should not be asked to override.
 */
export function pixRefusalOf(status: number, code: number | null): { readonly code: string; readonly notProcessed: boolean } {
  const documented = code === null ? undefined : DLOCAL_NOT_PROCESSED[code];
  return { code: documented?.code ?? refusalCodeOf(code), notProcessed: notProcessed(code, status) && !documented?.payer };
}
