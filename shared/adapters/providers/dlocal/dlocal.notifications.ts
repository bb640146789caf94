/**
 * dLocal's notifications (docs.dlocal.com "Receive notifications", "Notification parameters" of payouts v3): a POST
 * of the payment, refund or payout object, signed like a request (Authorization V2-HMAC-SHA256 over our X-Login,
 * the X-Date header and the raw body). The signature is checked over the raw body before anything of it is read;
 * a forged one is counted, never parsed. What is returned says only which object to read back: the use case
 * never takes a status from the body (dLocal retries for days and may send them out of order).
 */
import * as z from '../../../domain/zod';
import type { LocalNotification, LocalPaymentNotifications, RequestHeaders } from '../../../application/providers';
import type { DlocalConfig } from '../providers.config';
import { paymentSchema, payoutSchema, refundSchema } from './dlocal.schemas';
import { signatureValid } from './dlocal.signature';
import { paymentIdOfOrderId, payoutIdOfExternalId, refundIdOfReference } from './dlocal.transformers';
import { parseCardOrderId } from './dlocal.card-transformers';
import { PIX_ORDER_ID } from './dlocal.pix-payin-schemas';
import { paymentIdOfPixOrderId } from './dlocal.pix-payin-transformers';

/**
 * Our payment of an order_id: a local pay-in's (`dp`), a card attempt's (`dc`, `dc...a<n>`) or a PIX charge's (`dq`,
 * `dq...a<n>`), else null.
 */
const paymentOfOrder = (orderId: string | undefined) =>
  orderId ? (paymentIdOfOrderId(orderId) ?? parseCardOrderId(orderId)?.paymentId ?? paymentIdOfPixOrderId(orderId)) : null;

export type Headers = RequestHeaders;

/** A verified pay-in notification: the payment (or refund) to read back, and the status it claims (for the log). */
export type DlocalNotification = LocalNotification;

export type Parsed<T> = { readonly item: T } | { readonly forged: true } | null;

export interface DlocalNotifications extends LocalPaymentNotifications {
  /** Pay-in and refund notifications: forged (signature), null (not dLocal's shape), or what to read back. */
  parse(headers: Headers, rawBody: string): Parsed<DlocalNotification>;
  /**
   * Payout notifications: our payout id (from the external_id) and dLocal's payout id. dLocal's v3 page documents no
   * signature on them: a signed one must verify (else forged); an unsigned one is only a prompt to read the payout
   * back (`verified: false`), which is all the use case does with any of them.
   */
  parsePayout(
    headers: Headers,
    rawBody: string,
  ): Parsed<{ readonly payoutId: string | null; readonly providerPayoutId: string; readonly claimed: string; readonly verified: boolean }>;
}

function json(raw: string): unknown {
  try {
    return JSON.parse(raw);
  } catch {
    return undefined;
  }
}

export function dlocalNotifications(cfg: Pick<DlocalConfig, 'x_login' | 'secret_key'>): DlocalNotifications {
  const expected = { xLogin: cfg.x_login, secretKey: cfg.secret_key };
  return {
    provider: 'dlocal',
    parse(headers, rawBody) {
      if (!signatureValid(headers, rawBody, expected)) return { forged: true };
      const body = json(rawBody);
      // A refund object names its payment (payment_id); a payment object does not.
      if (typeof body === 'object' && body !== null && 'payment_id' in body) {
        const refund = z.safeParse(refundSchema, body);
        if (!refund.success) return null;
        const r = refund.data;
        return {
          item: {
            kind: 'refund',
            refundId: r.order_refund_id ? refundIdOfReference(r.order_refund_id) : null,
            paymentId: paymentOfOrder(r.order_id),
            providerRefundId: r.id,
            providerPaymentId: r.payment_id,
            claimed: r.status,
          },
        };
      }
      const p = z.safeParse(paymentSchema, body);
      if (!p.success) return null;
      const orderId = p.data.order_id;
      // A PIX charge of ours (dlocal.pix-payins.ts): read back through the PIX rail, by the order_id as sent.
      if (orderId && PIX_ORDER_ID.test(orderId))
        return {
          item: {
            kind: 'pix',
            reference: orderId,
            paymentId: paymentIdOfPixOrderId(orderId),
            providerPaymentId: p.data.id,
            claimed: p.data.status,
          },
        };
      // A card attempt's order (`dc`): read back by that attempt's order_id, applied only to the current attempt.
      const card = orderId ? parseCardOrderId(orderId) : null;
      return {
        item: {
          kind: 'payment',
          paymentId: paymentOfOrder(orderId),
          providerPaymentId: p.data.id,
          claimed: p.data.status,
          ...(card && orderId ? { cardReference: orderId } : {}),
        },
      };
    },
    parsePayout(headers, rawBody) {
      const signed = headers.authorization !== undefined;
      if (signed && !signatureValid(headers, rawBody, expected)) return { forged: true };
      const p = z.safeParse(payoutSchema, json(rawBody));
      if (!p.success) return null;
      return {
        item: { payoutId: payoutIdOfExternalId(p.data.external_id), providerPayoutId: p.data.id, claimed: p.data.status, verified: signed },
      };
    },
  };
}
