/**
 * Our schemas of the subset of Binance Pay's merchant API we use, written from its pages (not copied):
 * - developers.binance.com/docs/binance-pay/api-common: every answer `{status: "SUCCESS"|"FAIL", code, data,
 *   errorMessage}` (the FAQ shows a signature refusal as `{code, msg}`: both are read);
 * - api-order-create-v3 (POST /binancepay/openapi/v3/order): env.terminalType, merchantTradeNo (letters or digits,
 *   at most 32), orderAmount + currency (crypto) or fiatAmount + fiatCurrency ("we will convert this fiat amount to
 *   order amount based on market currency rate"; the order currency is then USDT), description (mandatory since
 *   v3, changelog 2023-06), goodsDetails, returnUrl / cancelUrl / webhookUrl (at most 256), orderExpireTime (ms, at
 *   most one hour ahead), passThroughInfo (at most 512, "returned as-is in query order API and payment webhook");
 *   the answer's prepayId, expireTime, qrcodeLink, qrContent, checkoutUrl, deeplink, universalUrl (api-order-create
 *   and api-order-create-v2 list them; currency/totalFee are read when present);
 * - api-order-query-v2 (POST /binancepay/openapi/v2/order/query, by merchantTradeNo or prepayId): statuses INITIAL,
 *   PENDING, PAID, CANCELED, ERROR, REFUNDING, REFUNDED, FULL_REFUNDED, EXPIRED; currency, orderAmount,
 *   passThroughInfo, transactTime, createTime;
 * - api-order-close (POST /binancepay/openapi/order/close): data true when the close is accepted;
 * - api-order-refund (POST /binancepay/openapi/order/refund: refundRequestId at most 64, prepayId, refundAmount,
 *   webhookUrl) and api-order-refund-query (POST /binancepay/openapi/order/refund/query): refundId, orderAmount,
 *   refundedAmount, refundAmount, remainingAttempts, duplicateRequest Y/N, refundStatus REFUND_SUCCESS /
 *   REFUND_FAIL / REFUND_PENDING;
 * - webhook-query-certificate (POST /binancepay/openapi/certificates): [{certSerial, certPublic}];
 * - order-notification and refund-order-notification: {bizType PAY|PAY_REFUND, bizId, bizIdStr, bizStatus
 *   PAY_SUCCESS|PAY_CLOSED|REFUND_SUCCESS|REFUND_REJECTED, data: a JSON string with merchantTradeNo (and refundInfo)}.
 * Requests are strict (a field we do not mean to send fails the fake's check); answers are loose (Binance adds
 * fields). Amounts are read as a number or a decimal string.
 */
import * as z from '../../../domain/zod';

const text = (max: number) => z.string().check(z.minLength(1), z.maxLength(max));
const url256 = z.string().check(z.regex(/^https?:\/\/\S+$/, 'must be an http(s) URL'), z.maxLength(256));
/** A positive amount with at most 8 decimals (decimal(.8)), as a JSON number. */
const amount8 = z.number().check(
  z.positive(),
  z.refine((n) => /^\d+(\.\d{1,8})?$/.test(String(n)), 'at most 8 decimals, no exponent'),
);
/** An amount in an answer: a number or a decimal string, kept as its decimal string. */
export const decimalOut = z.pipe(
  z.union([z.string().check(z.regex(/^\d+(\.\d+)?$/)), z.number().check(z.nonnegative())]),
  z.transform((v) => (typeof v === 'number' ? v.toFixed(8) : v)),
);
/**
 * An id Binance types `long`: as a string, or a number (which beyond 2^53 has lost digits in JSON.parse: such an id
 * is never compared, only kept; prepayId is compared from its string forms, and a webhook's bizIdStr is used).
 */
const idOut = z.pipe(
  z.union([z.string().check(z.minLength(1), z.maxLength(64)), z.number()]),
  z.transform((v) => (typeof v === 'number' ? v.toFixed(0) : v)),
);
const millis = z.pipe(
  z.union([z.number().check(z.int()), z.string().check(z.regex(/^\d{1,16}$/))]),
  z.transform((v) => Number(v)),
);

/** Our merchantTradeNo: `bp` + 25 base-36 characters (transformers.ts), within "letter or digit, at most 32". */
export const merchantTradeNoSchema = z.string().check(z.regex(/^bp[0-9a-z]{25}$/, 'must be one of our merchantTradeNos'));
/** Our refundRequestId: `br` + 32 hex (at most 64 on the page). */
export const refundRequestIdSchema = z.string().check(z.regex(/^br[0-9a-f]{32}$/, 'must be one of our refundRequestIds'));
const prepayId = z.string().check(z.regex(/^[0-9A-Za-z]{1,32}$/, 'must be a prepayId'));

/** Fiat currencies we send as fiatCurrency (transformers.ts FIAT_CURRENCIES). */
export const fiatCurrencySchema = z.enum(['BRL', 'PEN', 'COP', 'CLP', 'MXN', 'USD', 'ARS']);

const goodsDetail = z.strictObject({
  /** 01 tangible, 02 virtual goods. */
  goodsType: z.enum(['01', '02']),
  /** Z000: Others (the category table of the create order pages). */
  goodsCategory: z.string().check(z.regex(/^[0-9A-Z]000$/, 'must be a goods category')),
  referenceGoodsId: text(64),
  goodsName: text(256),
  goodsDetail: z.optional(text(256)),
});

export const createOrderRequestSchema = z.strictObject({
  env: z.strictObject({ terminalType: z.literal('WEB') }),
  merchantTradeNo: merchantTradeNoSchema,
  /** A crypto-priced order (a USDT session): orderAmount with currency USDT. */
  orderAmount: z.optional(amount8),
  currency: z.optional(z.literal('USDT')),
  /** A fiat-priced order: Binance Pay quotes it in USDT. */
  fiatAmount: z.optional(amount8),
  fiatCurrency: z.optional(fiatCurrencySchema),
  description: text(256),
  goodsDetails: z.array(goodsDetail).check(z.minLength(1), z.maxLength(1)),
  returnUrl: z.optional(url256),
  cancelUrl: z.optional(url256),
  webhookUrl: z.optional(url256),
  orderExpireTime: z.number().check(z.int(), z.positive()),
  passThroughInfo: text(512),
});
export type CreateOrderRequest = z.infer<typeof createOrderRequestSchema>;

export const queryOrderRequestSchema = z.union([z.strictObject({ merchantTradeNo: merchantTradeNoSchema }), z.strictObject({ prepayId })]);
export const closeOrderRequestSchema = z.strictObject({ merchantTradeNo: merchantTradeNoSchema });
export const refundRequestSchema = z.strictObject({
  refundRequestId: refundRequestIdSchema,
  prepayId,
  refundAmount: amount8,
  webhookUrl: z.optional(url256),
});
export type RefundRequest = z.infer<typeof refundRequestSchema>;
export const refundQueryRequestSchema = z.strictObject({ refundRequestId: refundRequestIdSchema });
export const certificatesRequestSchema = z.strictObject({});

/** Every answer's envelope; `data` is parsed per call. */
export const envelopeSchema = z.looseObject({
  status: z.optional(z.string()),
  code: z.pipe(
    z.union([z.string(), z.number()]),
    z.transform((v) => String(v)),
  ),
  data: z.optional(z.unknown()),
});

export const createOrderAnswerSchema = z.looseObject({
  prepayId: idOut,
  expireTime: z.optional(millis),
  qrcodeLink: z.optional(z.string()),
  qrContent: z.string().check(z.minLength(1), z.maxLength(2048)),
  checkoutUrl: z.optional(z.string().check(z.regex(/^https:\/\/\S+$/), z.maxLength(2048))),
  deeplink: z.optional(z.string()),
  universalUrl: z.optional(z.string()),
  currency: z.optional(z.string()),
  totalFee: z.optional(decimalOut),
});
export type CreateOrderAnswer = z.infer<typeof createOrderAnswerSchema>;

export const ORDER_STATUSES = [
  'INITIAL',
  'PENDING',
  'PAID',
  'CANCELED',
  'ERROR',
  'REFUNDING',
  'REFUNDED',
  'FULL_REFUNDED',
  'EXPIRED',
] as const;
export type OrderStatus = (typeof ORDER_STATUSES)[number];

export const queryOrderAnswerSchema = z.looseObject({
  prepayId: idOut,
  transactionId: z.optional(z.nullable(z.string())),
  merchantTradeNo: z.string(),
  status: z.enum(ORDER_STATUSES),
  currency: z.string(),
  orderAmount: decimalOut,
  passThroughInfo: z.optional(z.nullable(z.string())),
  transactTime: z.optional(z.nullable(millis)),
  createTime: z.optional(millis),
  /**
   * How the payer paid (the query page's paymentInfo; its fields are to confirm in Binance's sandbox): an
   * instruction in the order's currency whose amount differs from orderAmount is a payment of another amount.
   */
  paymentInfo: z.optional(
    z.nullable(
      z.looseObject({
        paymentInstructions: z.optional(
          z.array(z.looseObject({ currency: z.string(), amount: decimalOut, price: z.optional(decimalOut) })),
        ),
      }),
    ),
  ),
});
export type QueryOrderAnswer = z.infer<typeof queryOrderAnswerSchema>;

export const closeOrderAnswerSchema = z.boolean();

export const REFUND_STATUSES = ['REFUND_SUCCESS', 'REFUND_FAIL', 'REFUND_PENDING', 'REFUND_REJECTED'] as const;

export const refundAnswerSchema = z.looseObject({
  refundId: z.optional(idOut),
  refundRequestId: z.string(),
  prepayId: idOut,
  orderAmount: decimalOut,
  refundedAmount: decimalOut,
  refundAmount: decimalOut,
  remainingAttempts: z.optional(z.union([z.number(), z.string()])),
  duplicateRequest: z.optional(z.enum(['Y', 'N'])),
  refundStatus: z.optional(z.enum(REFUND_STATUSES)),
});
export type RefundAnswer = z.infer<typeof refundAnswerSchema>;

export const certificatesAnswerSchema = z.array(
  z.looseObject({ certSerial: z.string().check(z.minLength(1), z.maxLength(128)), certPublic: z.string().check(z.minLength(1)) }),
);

/** A webhook's body (order-notification, refund-order-notification). */
export const webhookSchema = z.looseObject({
  bizType: z.string(),
  /** bizId is a long written as a bare number (a 19-digit prepayId loses digits in JSON.parse): bizIdStr is what is read. */
  bizIdStr: z.string().check(z.minLength(1), z.maxLength(32)),
  bizStatus: z.string().check(z.minLength(1), z.maxLength(64)),
  data: z.string(),
});
export const webhookDataSchema = z.looseObject({
  merchantTradeNo: z.optional(z.string()),
  /** The refund notification's refundInfo: an object, or a JSON string of one. */
  refundInfo: z.optional(z.unknown()),
});
export const refundInfoSchema = z.looseObject({ refundRequestId: z.string(), prepayId: z.optional(idOut) });
