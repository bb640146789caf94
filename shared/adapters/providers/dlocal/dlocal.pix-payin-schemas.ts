/**
 * Our schemas of the subset of dLocal's pay-ins API a PIX pay-in uses, written from dLocal's published pages (not
 * copied):
 * - the create: docs.dlocal.com "Brazil / Pix payments" (docs/pix-payments; in the API reference
 *   api-documentation/payins-api-reference/payments/pix-payments): POST /payments with country BR, currency BRL,
 *   `payment_method_id` "PQ", `payment_method_flow` REDIRECT or DIRECT (DIRECT: "the important parameters are returned
 *   via API, so the merchant can build their own PIX UI"), the payer's name, email and document, our `order_id` and
 *   `notification_url`; the payment stays PENDING until the payer pays and dLocal is notified;
 * - the answer: the payment object (dlocal.schemas.ts `paymentSchema`: id, amount, currency, status, status_code,
 *   order_id, created_date, approved_date, `ticket`); which ticket field carries the copy-and-paste code is NOT
 *   confirmed: dLocal's older copy of the page (its gitbook, payment-methods/brazil pix) shows a DIRECT answer's ticket
 *   with `type` CUSTOM, `number` (an id such as QRS2-..., not a BR Code), `expiration_date`, `barcode` (a base64 image of
 *   the QR), `image_url`, `company_name`, `provider_name` "pix"; a third-party rebuild of the reference (api-evangelist's
 *   dLocal examples) shows the BR Code in `ticket.qr_code`, as the Bre-B row reads it. We take `ticket.qr_code`, then
 *   `ticket.number`, and only what is a Pix BR Code (isPixBrCode: the Pix GUI, BRL, BR, a CRC that matches);
 * - read-back by our order_id: reference/the-order-object (GET /orders/{order_id}: order_id, payment_id, status), then
 *   the payment by dLocal's id (GET /payments/{payment_id}); "not found" is 404 with code 4000
 *   (reference/http-errors-payments);
 * - cancel of a pending payment: reference/cancel-alternative-payment ("Cancel pending payment", for APMs, by the
 *   payment_id returned at creation); its path, POST /payments/{payment_id}/cancel, is the one dLocal's card pages give
 *   for a cancel (the APM page's path was not read; a third-party rebuild of the reference names the same path);
 * - refunds: dlocal.refunds.ts (POST /refunds by dLocal's payment id, read back by our order_refund_id).
 * The request is strict (a field we do not mean to send is a mismatch the fake dLocal fails a test on).
 */
import * as z from '../../../domain/zod';

/** dLocal's payment_method_id of Pix in Brazil (docs/pix-payments, both flows). */
export const PIX_METHOD_ID = 'PQ';

/**
 * Our order_id of a PIX charge: `dq` + the 32 hex digits of the payment id's 16 random bytes for the first attempt;
 * a later attempt (a failover, DESIGN.md 9.2) appends `a<n>` (as the card order ids do), so each attempt has its own.
 */
export const PIX_ORDER_ID = /^dq[0-9a-f]{32}(?:a(?:[2-9]|[1-9]\d))?$/;
export const pixOrderIdSchema = z.string().check(z.regex(PIX_ORDER_ID, 'must be one of our PIX order ids'));

const text = (max: number) => z.string().check(z.minLength(1), z.maxLength(max));
/** A positive amount in reais with at most 2 decimals (dLocal's "Positive Float"). */
const amount = z.number().check(
  z.positive(),
  z.refine((n) => Math.abs(Math.round(n * 100) - n * 100) < 1e-6, 'at most 2 decimals'),
);

export const pixPayinRequestSchema = z.strictObject({
  amount,
  currency: z.literal('BRL'),
  country: z.literal('BR'),
  payment_method_id: z.literal(PIX_METHOD_ID),
  payment_method_flow: z.literal('DIRECT'),
  payer: z.strictObject({
    name: text(100),
    email: z.string().check(z.email()),
    /** A CPF (11 digits) or CNPJ (14), digits only. */
    document: z.string().check(z.regex(/^(?:\d{11}|\d{14})$/, 'must be a CPF or CNPJ (digits)')),
  }),
  order_id: pixOrderIdSchema,
  description: z.optional(text(100)),
  notification_url: z.string().check(z.regex(/^https?:\/\/\S+$/, 'must be a URL'), z.maxLength(2000)),
});
export type PixPayinRequest = z.infer<typeof pixPayinRequestSchema>;
