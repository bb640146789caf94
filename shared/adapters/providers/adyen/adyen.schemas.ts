/**
 * Our schemas of the subset of Adyen's Checkout API v71 we use (Adyen/adyen-openapi json/CheckoutService-v71.json):
 * the card payment we request and its answer (a card stored for later charges, a charge on a stored card), the 3-D
 * Secure details call, refunds, the technical cancel by our reference, stored payment methods (list, delete), the
 * error body, and the standard notification. Written from the spec's field rules, not copied.
 * Requests are strict (an unknown field is a mismatch the fake Adyen fails a test on); answers are loose
 * (Adyen adds fields).
 */
import * as z from '../../../domain/zod';

const text = (max: number) => z.string().check(z.minLength(1), z.maxLength(max));

/** Amount in minor units (an integer), ISO 4217 currency. */
export const amountSchema = z.strictObject({
  currency: z.string().check(z.regex(/^[A-Z]{3}$/, 'must be an ISO 4217 code')),
  value: z.number().check(z.int(), z.gte(0)),
});
export type AdyenAmount = z.infer<typeof amountSchema>;

/**
 * Our merchant reference: `pi`/`re`/`md` + 32 hex (derived from our ids; `md`: a card mandate's approval); a
 * payment's second and later attempts (routing, DESIGN.md 9.2) append `a` and the attempt number (`a2` .. `a99`).
 */
export const ourReferenceSchema = z
  .string()
  .check(z.regex(/^(pi[0-9a-f]{32}(a([2-9]|[1-9]\d))?|(re|md)[0-9a-f]{32})$/, 'must be one of our references'));

/** Raw card fields (PCI scope: never logged, never stored). */
export const cardDetailsSchema = z.strictObject({
  type: z.literal('scheme'),
  number: z.string().check(z.regex(/^\d{12,19}$/, 'must be 12 to 19 digits')),
  expiryMonth: z.string().check(z.regex(/^(0[1-9]|1[0-2])$/, 'must be MM')),
  expiryYear: z.string().check(z.regex(/^\d{4}$/, 'must be YYYY')),
  cvc: z.string().check(z.regex(/^\d{3,4}$/, 'must be 3 or 4 digits')),
  holderName: text(200),
});

/** A card stored at Adyen (a token), charged without the shopper: no card data, no CVC. */
export const storedCardDetailsSchema = z.strictObject({
  type: z.literal('scheme'),
  storedPaymentMethodId: z.string().check(z.minLength(1), z.maxLength(64)),
});

export const boletoDetailsSchema = z.strictObject({ type: z.literal('boletobancario') });
export const oxxoDetailsSchema = z.strictObject({ type: z.literal('oxxo') });

export const browserInfoSchema = z.strictObject({
  acceptHeader: text(2048),
  colorDepth: z.number().check(z.int()),
  javaEnabled: z.boolean(),
  javaScriptEnabled: z.optional(z.boolean()),
  language: text(35),
  screenHeight: z.number().check(z.int()),
  screenWidth: z.number().check(z.int()),
  timeZoneOffset: z.number().check(z.int()),
  userAgent: text(2048),
});
export type AdyenBrowserInfo = z.infer<typeof browserInfoSchema>;

export const RECURRING_PROCESSING_MODELS = ['CardOnFile', 'Subscription', 'UnscheduledCardOnFile'] as const;

export const paymentRequestSchema = z.strictObject({
  merchantAccount: text(256),
  reference: ourReferenceSchema,
  amount: amountSchema,
  paymentMethod: z.union([cardDetailsSchema, storedCardDetailsSchema, boletoDetailsSchema, oxxoDetailsSchema]),
  returnUrl: z.string().check(z.regex(/^https?:\/\/\S+$/, 'must be a URL'), z.maxLength(8000)),
  channel: z.optional(z.literal('Web')),
  /** Ecommerce: the shopper is present (3-D Secure possible); ContAuth: a charge on a stored card, shopper absent. */
  shopperInteraction: z.optional(z.enum(['Ecommerce', 'ContAuth'])),
  /** With shopperReference and recurringProcessingModel: the card is stored (a token) when the payment is authorised. */
  storePaymentMethod: z.optional(z.boolean()),
  /** Required when storing a card or paying with a stored one. */
  recurringProcessingModel: z.optional(z.enum(RECURRING_PROCESSING_MODELS)),
  /** 3-D Secure: `always` forces authentication (overrides Dynamic 3D Secure rules). */
  authenticationData: z.optional(z.strictObject({ attemptAuthentication: z.optional(z.enum(['always', 'never'])) })),
  countryCode: z.optional(z.string().check(z.regex(/^[A-Z]{2}$/, 'must be ISO 3166-1 alpha-2'))),
  shopperReference: z.optional(z.string().check(z.minLength(3), z.maxLength(256))),
  shopperEmail: z.optional(z.string().check(z.email())),
  shopperName: z.optional(z.strictObject({ firstName: text(80), lastName: text(80) })),
  socialSecurityNumber: z.optional(z.string().check(z.regex(/^\d{11}(\d{3})?$/, 'must be a CPF or CNPJ (digits)'))),
  installments: z.optional(z.strictObject({ value: z.number().check(z.int(), z.gte(1), z.lte(24)) })),
  browserInfo: z.optional(browserInfoSchema),
  billingAddress: z.optional(
    z.strictObject({
      street: text(3000),
      houseNumberOrName: text(3000),
      postalCode: z.string().check(z.regex(/^\d{8}$/, 'must be a Brazilian CEP (8 digits)')),
      city: text(3000),
      stateOrProvince: z.string().check(z.regex(/^[A-Z]{2}$/, 'must be a 2-letter state code')),
      country: z.string().check(z.regex(/^[A-Z]{2}$/, 'must be ISO 3166-1 alpha-2')),
    }),
  ),
  /** A boleto's due date (ISO 8601). */
  deliveryDate: z.optional(z.string().check(z.regex(/^\d{4}-\d{2}-\d{2}T/, 'must be an ISO 8601 date-time'))),
});
export type PaymentRequest = z.infer<typeof paymentRequestSchema>;

export const RESULT_CODES = [
  'AuthenticationFinished',
  'AuthenticationNotRequired',
  'Authorised',
  'Cancelled',
  'ChallengeShopper',
  'Error',
  'IdentifyShopper',
  'PartiallyAuthorised',
  'Pending',
  'PresentToShopper',
  'Received',
  'RedirectShopper',
  'Refused',
  'Success',
] as const;
export type ResultCode = (typeof RESULT_CODES)[number];

/** The actions we forward the shopper to: a redirect (3DS2 by redirect) or a voucher (boleto, OXXO). Others are kept loose. */
export const redirectActionSchema = z.looseObject({
  type: z.literal('redirect'),
  url: z.string().check(z.regex(/^https?:\/\/\S+$/, 'must be a URL')),
  method: z.optional(z.string()),
  data: z.optional(z.record(z.string(), z.string())),
  paymentMethodType: z.optional(z.string()),
});
export const voucherActionSchema = z.looseObject({
  type: z.literal('voucher'),
  paymentMethodType: z.optional(z.string()),
  reference: z.optional(z.string()),
  alternativeReference: z.optional(z.string()),
  downloadUrl: z.optional(z.string()),
  expiresAt: z.optional(z.string()),
  instructionsUrl: z.optional(z.string()),
  url: z.optional(z.string()),
});
export const actionSchema = z.looseObject({ type: z.string() });

export const paymentResponseSchema = z.looseObject({
  resultCode: z.enum(RESULT_CODES),
  pspReference: z.optional(z.string().check(z.maxLength(64))),
  merchantReference: z.optional(z.string()),
  refusalReason: z.optional(z.string()),
  refusalReasonCode: z.optional(z.string()),
  action: z.optional(actionSchema),
  amount: z.optional(z.looseObject({ currency: z.string(), value: z.number() })),
  additionalData: z.optional(z.record(z.string(), z.string())),
  /** The method used (v69+: only with resultCode Authorised); a card's brand is Adyen's variant (visa, mc, amex, elo, ...). */
  paymentMethod: z.optional(z.looseObject({ brand: z.optional(z.string()), type: z.optional(z.string()) })),
});
export type PaymentResponse = z.infer<typeof paymentResponseSchema>;

export const paymentDetailsRequestSchema = z.strictObject({
  details: z.strictObject({ redirectResult: z.string().check(z.minLength(1), z.maxLength(20_000)) }),
});
export type PaymentDetailsRequest = z.infer<typeof paymentDetailsRequestSchema>;

export const refundRequestSchema = z.strictObject({
  merchantAccount: text(256),
  amount: amountSchema,
  reference: ourReferenceSchema,
});
export type RefundRequest = z.infer<typeof refundRequestSchema>;

export const refundResponseSchema = z.looseObject({
  merchantAccount: z.string(),
  paymentPspReference: z.string(),
  pspReference: z.string(),
  reference: z.optional(z.string()),
  status: z.literal('received'),
  amount: z.looseObject({ currency: z.string(), value: z.number() }),
});

export const cancelRequestSchema = z.strictObject({
  merchantAccount: text(256),
  paymentReference: ourReferenceSchema,
  reference: z.optional(ourReferenceSchema),
});
export type CancelRequest = z.infer<typeof cancelRequestSchema>;

export const cancelResponseSchema = z.looseObject({
  merchantAccount: z.string(),
  paymentReference: z.string(),
  pspReference: z.string(),
  status: z.literal('received'),
});

/** A stored payment method (StoredPaymentMethodResource): the token's id and a summary of the card, never its number. */
export const storedPaymentMethodSchema = z.looseObject({
  id: z.string().check(z.minLength(1), z.maxLength(64)),
  brand: z.optional(z.string()),
  lastFour: z.optional(z.string()),
  expiryMonth: z.optional(z.string()),
  expiryYear: z.optional(z.string()),
  holderName: z.optional(z.string()),
  shopperReference: z.optional(z.string()),
  supportedRecurringProcessingModels: z.optional(z.array(z.string())),
});

/** GET /storedPaymentMethods (ListStoredPaymentMethodsResponse). */
export const storedPaymentMethodsResponseSchema = z.looseObject({
  merchantAccount: z.optional(z.string()),
  shopperReference: z.optional(z.string()),
  storedPaymentMethods: z.optional(z.array(storedPaymentMethodSchema)),
});

/** The query of GET and DELETE /storedPaymentMethods: the shopper (3 to 256 characters, no personal data) and our account. */
export const storedPaymentMethodsQuerySchema = z.strictObject({
  shopperReference: z.string().check(z.minLength(3), z.maxLength(256)),
  merchantAccount: text(256),
});

/** Adyen's error body (ServiceError). */
export const serviceErrorSchema = z.looseObject({
  status: z.optional(z.number()),
  errorCode: z.optional(z.string()),
  errorType: z.optional(z.string()),
  message: z.optional(z.string()),
  pspReference: z.optional(z.string()),
});

/** The pspReference in a path: Adyen's are 16 alphanumerics. */
export const pspReferenceSchema = z.string().check(z.regex(/^[A-Za-z0-9]{16}$/, 'must be 16 letters or digits'));

/** A standard notification item. `success` travels as the string "true" or "false". */
export const notificationItemSchema = z.looseObject({
  eventCode: z.string().check(z.minLength(1), z.maxLength(64)),
  success: z.enum(['true', 'false']),
  pspReference: z.string().check(z.minLength(1), z.maxLength(64)),
  originalReference: z.optional(z.string().check(z.maxLength(64))),
  merchantAccountCode: z.string(),
  merchantReference: z.string().check(z.maxLength(256)),
  amount: z.looseObject({ currency: z.string(), value: z.number().check(z.int()) }),
  eventDate: z.optional(z.string()),
  reason: z.optional(z.string()),
  paymentMethod: z.optional(z.string()),
  additionalData: z.optional(z.record(z.string(), z.string())),
});
export type NotificationItem = z.infer<typeof notificationItemSchema>;

export const notificationRequestSchema = z.looseObject({
  live: z.optional(z.string()),
  notificationItems: z.array(z.looseObject({ NotificationRequestItem: z.unknown() })).check(z.minLength(1), z.maxLength(100)),
});
