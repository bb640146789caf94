/**
 * Our schemas of the subset of dLocal's APIs we use, written from dLocal's published pages (not copied):
 * - create payment, payment object, payment_method_flow DIRECT/REDIRECT, ticket, redirect_url: docs.dlocal.com
 *   "Payments" (api-documentation/payins-api-reference/payments), "Bank transfer payment" (docs/bank-transfer-payment)
 *   and the country pages docs/peru, docs/colombia, docs/chile, docs/argentina, docs/ecuador (examples of EF, EY, SP);
 * - statuses and rejection codes: reference/payment-status-codes ("Payment status codes", "Rejection status");
 * - errors `{code, message, param}` and their codes (3001, 4000, 5000..5013, 5009 "Order ID is duplicated"):
 *   reference/http-errors-payments ("Payments HTTP Errors");
 * - read-back by our order_id: reference/the-order-object ("The Order Object": payments retrievable by order_id);
 * - refunds: docs/refunds ("Refunds": POST /refunds, GET /refunds/{refund_id}, the notification's refund object with
 *   the payment's order_id), reference/make-a-refund (payment_id, amount, currency, notification_url, order_refund_id
 *   "ID given by the merchant", 125 characters), reference/the-refund-object, reference/refund-status-codes (PENDING
 *   100, SUCCESS 200, REJECTED 300, CANCELLED 400: "the refund period has expired");
 * - notifications (the payment object, signed like a request): docs/receive-notifications; callback_url (where the
 *   payer's browser returns from a REDIRECT flow): docs/configure-callback-url;
 * - payouts v3: reference/security-payouts-v3 (POST /oauth/token, client_credentials, expires_in 180),
 *   reference/requesting-payout-v3 ("Submit a payout"), reference/get-payout-v3 (GET /payouts/v3 by payout_id or
 *   external_id, external_id <= 100 characters), reference/payout-status-v3 (PENDING 100 .. ON_HOLD_BY_COMPLIANCE
 *   700), reference/notification-parameters-payouts-v3 (the notification body is the payout object),
 *   reference/error-codes (511 "External ID already used", 512..515, 800.. rejection reasons); the request body's
 *   beneficiary fields (first_name, last_name, document.type, document.id, bank_account.account, bank_account.type,
 *   bank_account.code) from the v3 country pages docs/peru-payouts-v3, docs/colombia-payouts-v3 and
 *   docs/argentina-payouts-v3 ("Mandatory parameters"); bank_account.type's spelling (SAVINGS) from the payout object
 *   of reference/notification-parameters-payouts-v3 (CHECKING by analogy: to confirm with dLocal before going live).
 *   That page says nothing of a signature on payout notifications: we check one when it is there (the pay-ins
 *   scheme) and otherwise only read the payout back.
 * Requests are strict (a field we do not mean to send is a mismatch the fake dLocal fails a test on); answers
 * are loose (dLocal adds fields).
 */
import * as z from '../../../domain/zod';

const text = (max: number) => z.string().check(z.minLength(1), z.maxLength(max));
const alpha2 = z.string().check(z.regex(/^[A-Z]{2}$/, 'must be ISO 3166-1 alpha-2'));
const currency = z.string().check(z.regex(/^[A-Z]{3}$/, 'must be an ISO 4217 code'));
/** A positive amount in major units with at most 2 decimals (dLocal's "Positive Float"). */
const amount = z.number().check(
  z.positive(),
  z.refine((n) => Math.abs(Math.round(n * 100) - n * 100) < 1e-6, 'at most 2 decimals'),
);
const url = z.string().check(z.regex(/^https?:\/\/\S+$/, 'must be a URL'), z.maxLength(2000));

/** Our order_id of a payment: `dp` + 32 hex (derived from the payment id); refunds `dr`, payouts `do`. */
export const orderIdSchema = z.string().check(z.regex(/^dp[0-9a-f]{32}$/, 'must be one of our order ids'));
export const externalIdSchema = z.string().check(z.regex(/^do[0-9a-f]{32}$/, 'must be one of our external ids'));

/** The APM ids we send (country pages, LIVE_METHODS in dlocal.transformers.ts); cards are not routed to dLocal. */
export const PAYMENT_METHOD_IDS = ['EF', 'IO', 'YP', 'PC', 'QP', 'EY', 'WP', 'SP', 'BC', 'OF', 'MP', 'PP', 'NU', 'BQ'] as const;
export type DlocalMethodId = (typeof PAYMENT_METHOD_IDS)[number];

export const createPaymentRequestSchema = z.strictObject({
  amount,
  currency,
  country: alpha2,
  payment_method_id: z.enum(PAYMENT_METHOD_IDS),
  payment_method_flow: z.enum(['DIRECT', 'REDIRECT']),
  payer: z.strictObject({
    name: text(100),
    email: z.string().check(z.email()),
    document: z.string().check(z.regex(/^[0-9A-Za-z-]{5,20}$/, 'must be a document number')),
  }),
  order_id: orderIdSchema,
  description: z.optional(text(100)),
  notification_url: url,
  /** Where the payer's browser returns after a REDIRECT flow. */
  callback_url: z.optional(url),
});
export type CreatePaymentRequest = z.infer<typeof createPaymentRequestSchema>;

/** Payment status (status_code 100, 200, 300, 400, 600, 700; EXPIRED listed on the Payments page). */
export const PAYMENT_STATUSES = ['PENDING', 'PAID', 'REJECTED', 'CANCELLED', 'EXPIRED', 'AUTHORIZED', 'VERIFIED'] as const;
export type PaymentStatus = (typeof PAYMENT_STATUSES)[number];

/** dLocal writes status_code as a string in its examples; accepted as a number too. */
const statusCode = z.pipe(
  z.union([z.string().check(z.regex(/^\d{1,4}$/)), z.number().check(z.int())]),
  z.transform((v) => String(v)),
);

/**
 * The ticket of a DIRECT payment: a cash or CIP voucher (number, barcode, due date, image), or a QR to scan (Bre-B:
 * its EMVCo content in `qr_code`, or in `number`, with `expiration_date` and the QR's `image_url`).
 */
export const ticketSchema = z.looseObject({
  number: z.optional(z.string()),
  qr_code: z.optional(z.string()),
  id: z.optional(z.string()),
  expiration_date: z.optional(z.string()),
  barcode: z.optional(z.string()),
  reference: z.optional(z.string()),
  image_url: z.optional(z.string()),
  provider_name: z.optional(z.string()),
  company_name: z.optional(z.string()),
});

export const paymentSchema = z.looseObject({
  id: text(100),
  amount: z.number(),
  currency,
  country: z.optional(alpha2),
  payment_method_id: z.optional(z.string()),
  payment_method_type: z.optional(z.string()),
  payment_method_flow: z.optional(z.string()),
  status: z.enum(PAYMENT_STATUSES),
  status_code: z.optional(statusCode),
  status_detail: z.optional(z.string()),
  order_id: z.optional(z.string()),
  created_date: z.optional(z.string()),
  approved_date: z.optional(z.string()),
  redirect_url: z.optional(z.string()),
  ticket: z.optional(ticketSchema),
});
export type DlocalPayment = z.infer<typeof paymentSchema>;

/** GET /orders/{order_id}: the payment of one of our order ids. */
export const orderSchema = z.looseObject({
  order_id: z.string(),
  payment_id: text(100),
  amount: z.optional(z.number()),
  currency: z.optional(currency),
  status: z.enum(PAYMENT_STATUSES),
  status_code: z.optional(statusCode),
  created_date: z.optional(z.string()),
  approved_date: z.optional(z.string()),
});

export const errorSchema = z.looseObject({
  code: z.number().check(z.int()),
  message: z.optional(z.string()),
  param: z.optional(z.string()),
});

export const createRefundRequestSchema = z.strictObject({
  payment_id: text(100),
  amount,
  currency,
  notification_url: url,
  /** "ID given by the merchant in their system" (reference/make-a-refund, up to 125 characters): our refund reference. */
  order_refund_id: z.string().check(z.regex(/^dr[0-9a-f]{32}$/, 'must be one of our refund references')),
});

export const REFUND_STATUSES = ['PENDING', 'SUCCESS', 'REJECTED', 'CANCELLED'] as const;

export const refundSchema = z.looseObject({
  id: text(100),
  payment_id: text(100),
  status: z.enum(REFUND_STATUSES),
  status_code: z.optional(statusCode),
  amount: z.optional(z.number()),
  currency: z.optional(currency),
  created_date: z.optional(z.string()),
  /** Our refund reference, as sent in the request; dLocal's refund object page does not list it (see dlocal.refunds.ts). */
  order_refund_id: z.optional(z.string()),
  /** The payment's order_id (our payment), as the refund notification example of docs/refunds carries it. */
  order_id: z.optional(z.string()),
});
export type DlocalRefund = z.infer<typeof refundSchema>;

/**
 * GET /orders/{order_refund_id}: a refund read back by our reference. dLocal's reference "Retrieve an order" of its
 * Refunds section (reference/retrieve-order-refund): "Refunds can include an order_refund_id ... Merchants can
 * retrieve refunds based on this ID", with the warning that the order ID given must be the refund's, not the
 * payment's; the orders read is GET /orders/{order_id} (reference/the-order-object). Its answer is read as the refund
 * object (reference/the-refund-object: id, payment_id, status); which of our ids it echoes is to confirm in the sandbox.
 */
export const refundOrderSchema = z.looseObject({
  id: z.optional(text(100)),
  payment_id: text(100),
  status: z.enum(REFUND_STATUSES),
  status_code: z.optional(statusCode),
  amount: z.optional(z.number()),
  currency: z.optional(currency),
  order_refund_id: z.optional(z.string()),
});

// --- Payouts v3 ------------------------------------------------------------------------------------------

export const tokenRequestSchema = z.strictObject({
  grant_type: z.literal('client_credentials'),
  client_id: text(256),
  client_secret: text(1024),
});

export const tokenAnswerSchema = z.looseObject({
  access_token: text(8192),
  expires_in: z.number().check(z.int(), z.positive()),
  token_type: z.string().check(z.regex(/^bearer$/i, 'must be Bearer')),
  scope: z.optional(z.string()),
});

export const PAYOUT_STATUSES = ['PENDING', 'PAID', 'REJECTED', 'CANCELLED', 'DELIVERED', 'ON_HOLD', 'ON_HOLD_BY_COMPLIANCE'] as const;
export type PayoutStatus = (typeof PAYOUT_STATUSES)[number];

export const createPayoutRequestSchema = z.strictObject({
  external_id: externalIdSchema,
  country: alpha2,
  payment_method_id: z.literal('BANK_TRANSFER'),
  amount,
  currency,
  purpose: z.enum(['REMITTANCES', 'PAYROLL', 'SUPPLIER_PAYMENT', 'REFUND', 'OTHER']),
  flow_type: z.enum(['B2C', 'B2B', 'P2P']),
  description: z.optional(text(100)),
  notification_url: url,
  beneficiary: z.strictObject({
    first_name: text(50),
    last_name: text(50),
    document: z.strictObject({
      /** The country pages' document names: DNI, RUC, CE, PASS (Peru), CC, NIT, CE, PASS, PEP (Colombia), CUIT, CUIL (Argentina). */
      type: z.enum(['DNI', 'RUC', 'CE', 'PASS', 'CC', 'NIT', 'PEP', 'CUIT', 'CUIL']),
      id: z.string().check(z.regex(/^[0-9A-Za-z]{4,15}$/, 'must be a document number (letters and digits)')),
    }),
    bank_account: z.strictObject({
      /** The account number: Peru's CCI (20 digits), a Colombian account number, Argentina's CBU or CVU (22 digits). */
      account: z.string().check(z.regex(/^\d{5,22}$/, 'must be an account number (digits)')),
      /** As dLocal's v3 payout object writes it (reference/notification-parameters-payouts-v3: "SAVINGS"). */
      type: z.enum(['CHECKING', 'SAVINGS']),
      /** The bank's code (Peru, Colombia); Argentina's CBU/CVU carries its own. */
      code: z.optional(z.string().check(z.regex(/^\d{1,5}$/, 'must be a bank code'))),
    }),
  }),
});
export type CreatePayoutRequest = z.infer<typeof createPayoutRequestSchema>;

export const payoutSchema = z.looseObject({
  id: text(100),
  external_id: z.string(),
  status: z.enum(PAYOUT_STATUSES),
  status_code: z.optional(statusCode),
  status_detail: z.optional(z.string()),
  /** A rejection's reason where dLocal gives one (v2 named it status_reason, e.g. ERROR_ACCOUNT_INCORRECT). */
  status_reason: z.optional(z.string()),
  created_date: z.optional(z.string()),
  last_updated: z.optional(z.string()),
  amount: z.optional(z.number()),
  currency: z.optional(currency),
  country: z.optional(alpha2),
});
export type DlocalPayout = z.infer<typeof payoutSchema>;

/**
 * The account's methods in a country (GET /payments-methods?country=, reference/payment-method-object "The Payment
 * Method Object": id, type, name, country, logo, allowed_flows): what `providers check` compares our ids against.
 */
export const paymentMethodListSchema = z.array(
  z.looseObject({
    id: z.string(),
    type: z.optional(z.string()),
    name: z.optional(z.string()),
    allowed_flows: z.optional(z.array(z.string())),
  }),
);
export type DlocalMethodListing = z.infer<typeof paymentMethodListSchema>[number];
