/**
 * Our schemas of the subset of dLocal's card API we use, written from dLocal's published pages (not copied):
 * - create a card payment with the card's own data: docs.dlocal.com "Card payments" (docs/card-payments) and the
 *   Credit Card Payments page of its API reference (api-documentation/payins-api-reference/payments/
 *   credit-card-payments; the same text is kept in github.com/fmazzoli-dlocal/documentation): raw card data goes to
 *   POST /secure_payments (POST /payments takes only a Smart Fields token or a saved card_id); payment_method_id
 *   `CARD`, payment_method_flow `DIRECT`; the payer object (name, email and document required; user_reference "for
 *   fraud prevention"); the card object reference/the-card-object: holder_name, number (digits, no separators), cvv,
 *   expiration_month (integer), expiration_year (four-digit integer), installments (a String, default 1), capture
 *   (boolean, default TRUE: false only authorizes);
 * - 3-D Secure: docs/3d-secure and .../credit-card-payments/3d-secure: where it is needed the create answers PENDING
 *   with status_code 101 and a `three_dsecure` object holding the `redirect_url` the shopper is sent to; after the
 *   authentication the shopper comes back to our `callback_url` (docs/configure-callback-url: dLocal POSTs paymentId,
 *   status, date and a signature there, and says not to take the status from it but to read the payment);
 * - statuses and rejection codes: reference/payment-status-codes (PENDING 100 and 101, PAID 200, REJECTED 300-326,
 *   CANCELLED 400, AUTHORIZED 600, VERIFIED 700);
 * - read-back by our order_id: reference/the-order-object ("Retrieve an Order", GET /orders/{order_id}: order_id,
 *   payment_id, status, status_code), then GET /payments/{payment_id} for the whole payment;
 * - cancel an uncaptured (AUTHORIZED) card payment: POST /payments/{payment_id}/cancel ("Credit Card Payment
 *   Operations", answered with the payment CANCELLED 400);
 * - chargebacks: docs/chargebacks, reference/chargeback-asynchronous-notification, reference/chargeback-status (see
 *   dlocal.chargebacks.ts).
 * Requests are strict (a field we do not mean to send is a mismatch the fake dLocal fails a test on); answers are
 * loose (dLocal adds fields). No schema here ever prints a value it refuses: a card number in an issue's message
 * would leak into a log.
 */
import * as z from '../../../domain/zod';
import { orderSchema, paymentSchema, PAYMENT_STATUSES } from './dlocal.schemas';

const text = (max: number) => z.string().check(z.minLength(1), z.maxLength(max));
const url = z.string().check(z.regex(/^https?:\/\/\S+$/, 'must be a URL'), z.maxLength(2000));
/** A positive amount in major units with at most 2 decimals (dLocal's "Positive Float"). */
const amount = z.number().check(
  z.positive(),
  z.refine((n) => Math.abs(Math.round(n * 100) - n * 100) < 1e-6, 'at most 2 decimals'),
);

/**
 * Our order_id of a card payment attempt: `dc` + 32 hex derived from the payment id (dlocal.card-transformers.ts),
 * and for the second and later attempts `a` + the attempt number (DESIGN.md 9.2, `<ref>a2`): letters and digits only.
 */
export const CARD_ORDER_ID = /^dc[0-9a-f]{32}(?:a(?:[2-9]|[1-9]\d))?$/;
export const cardOrderIdSchema = z.string().check(z.regex(CARD_ORDER_ID, 'must be one of our card order ids'));

export const cardSchema = z.strictObject({
  holder_name: text(100),
  number: z.string().check(z.regex(/^\d{13,19}$/, 'must be 13-19 digits')),
  cvv: z.string().check(z.regex(/^\d{3,4}$/, 'must be 3 or 4 digits')),
  expiration_month: z.number().check(z.int(), z.gte(1), z.lte(12)),
  expiration_year: z.number().check(z.int(), z.gte(2000), z.lte(2099)),
  /** A String in dLocal's card object; sent only for more than one installment (dLocal's default is 1). */
  installments: z.optional(z.string().check(z.regex(/^([2-9]|1[0-2])$/, 'must be 2-12'))),
  /** Always true: we never ask for an authorization to capture later (an AUTHORIZED payment would hold money). */
  capture: z.literal(true),
});

/** POST /secure_payments with the card's own data. */
export const cardPaymentRequestSchema = z.strictObject({
  amount,
  currency: z.string().check(z.regex(/^[A-Z]{3}$/, 'must be an ISO 4217 code')),
  country: z.string().check(z.regex(/^[A-Z]{2}$/, 'must be ISO 3166-1 alpha-2')),
  payment_method_id: z.literal('CARD'),
  payment_method_flow: z.literal('DIRECT'),
  payer: z.strictObject({
    name: text(100),
    email: z.string().check(z.email()),
    document: z.string().check(z.regex(/^[0-9A-Za-z-]{5,20}$/, 'must be a document number')),
    /** "Unique user id at the merchant side", for dLocal's fraud prevention: our digest of the shopper, no PII. */
    user_reference: z.optional(text(100)),
  }),
  card: cardSchema,
  order_id: cardOrderIdSchema,
  /** Our notification route; without it dLocal notifies the URL set in its merchant panel. */
  notification_url: z.optional(url),
  /** Where the shopper's browser comes back after 3-D Secure. */
  callback_url: url,
});
export type CardPaymentRequest = z.infer<typeof cardPaymentRequestSchema>;

/** The 3-D Secure object of a PENDING (101) card payment: where the shopper authenticates. */
export const threeDSecureSchema = z.looseObject({ redirect_url: z.optional(z.string()) });

/** A card payment as dLocal answers it (the create, GET /payments/{id}, the cancel): the payment object and its 3DS. */
export const cardPaymentSchema = z.extend(paymentSchema, {
  three_dsecure: z.optional(threeDSecureSchema),
  /** The card as dLocal echoes it: never the number, only what identifies it. */
  card: z.optional(z.looseObject({ brand: z.optional(z.string()), last4: z.optional(z.string()), holder_name: z.optional(z.string()) })),
});
export type DlocalCardPayment = z.infer<typeof cardPaymentSchema>;

export { orderSchema as cardOrderSchema, PAYMENT_STATUSES };

/**
 * A chargeback as dLocal notifies it to the merchant's chargeback notification URL (docs/chargebacks,
 * reference/chargeback-asynchronous-notification: id, payment_id, amount, currency, status, status_code (an
 * Integer there, a String on the older page), status_detail, created_date, notification_url, order_id; the newer
 * reference adds the reason's code and the acquirer's reference, which we keep only as `reason_code`).
 */
export const CHARGEBACK_STATUSES = [
  'PENDING',
  'DISPUTE_RECEIVED',
  'COMPLETED',
  'IN_DISPUTE',
  'DISPUTE_LOST',
  'REVERSAL',
  'INQUIRY',
  'CANCELLED',
] as const;
export type ChargebackStatus = (typeof CHARGEBACK_STATUSES)[number];

export const chargebackSchema = z.looseObject({
  id: text(100),
  payment_id: text(100),
  amount: z.number().check(z.positive()),
  currency: z.string().check(z.regex(/^[A-Z]{3}$/)),
  status: z.enum(CHARGEBACK_STATUSES),
  status_code: z.optional(z.union([z.string(), z.number()])),
  created_date: z.optional(z.string()),
  order_id: z.optional(z.string()),
  reason_code: z.optional(z.union([z.string(), z.number()])),
});
export type DlocalChargeback = z.infer<typeof chargebackSchema>;
