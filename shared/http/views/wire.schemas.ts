/**
 * Building blocks of the response schemas (the published contract, shared/contract): ids, money,
 * timestamps and the three error shapes of SPEC.md section 7. Only the contract and tests import the
 * *.schemas.ts files beside the views; handlers do not, so no function bundle carries them.
 */
import * as z from 'zod';
import { ERRORS, type ErrorCode } from '../../domain/errors';
import { COUNTRY_CODES, CURRENCY_CODES } from '../../domain/geo';

const ID_TAIL = 'A1b2C3d4E5f6G7h8I9j0Kl';

/** An object id: prefix + 22-64 URL-safe characters. */
export const idOf = (prefix: string, description: string) =>
  z
    .string()
    .regex(new RegExp(`^${prefix}_[A-Za-z0-9_-]{22,64}$`))
    .meta({ description, example: `${prefix}_${ID_TAIL}` });

export const paymentId = idOf('pi', 'Payment id.');
export const sessionId = idOf('cs', 'Checkout session id.');
export const payoutId = idOf('po', 'Payout id.');
export const refundId = idOf('re', 'Refund id.');
export const eventId = idOf('evt', 'Event id (also the Webhook-Id header of its deliveries).');
export const merchantId = idOf('mch', 'Merchant id.');

export const timestamp = z.iso.datetime().meta({ description: 'ISO 8601 in UTC.', example: '2026-11-23T14:05:09.120Z' });
export const amount = z.number().meta({ description: 'Major units with the currency’s decimals (10.5 is BRL 10,50).', example: 150.5 });
export const currency = z.enum(CURRENCY_CODES).meta({ description: 'ISO 4217 code (USDT for crypto methods).', example: 'BRL' });
export const country = z.enum(COUNTRY_CODES).meta({ description: 'ISO 3166-1 alpha-3 code.', example: 'BRA' });
export const url = z.string().meta({ format: 'uri', example: 'https://shop.example.com/orders/1001' });
export const metadata = z
  .record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.null()]))
  .meta({ description: 'Echo of the metadata given at creation.', example: { order: '1001' } });
export const livemode = z.boolean().meta({ description: 'false for sk_test_ keys (sandbox), true for live.', example: false });
export const fieldErrors = z
  .array(z.object({ field: z.string(), message: z.string() }))
  .meta({ description: 'One entry per invalid field.' });

/** The checkout family's error body: { success: false, error: { code, message, details?, request_id } }. */
export function checkoutError(codes: readonly ErrorCode[]) {
  return z.object({
    success: z.literal(false),
    error: z.object({
      code: z.enum(codes as [ErrorCode, ...ErrorCode[]]),
      message: z.string().meta({ example: ERRORS[codes[0] ?? 'INTERNAL_ERROR'].message }),
      details: fieldErrors.optional(),
      request_id: z.string().meta({ example: 'a1c3e3c0-8a7b-4c5e-9d0f-2b1e4c8f7a6d' }),
    }),
  });
}

/** The direct family's error body (POST /cashier/cashier/payment, GET status): { detail, error_code, payment_id }. */
export function directError(codes: readonly ErrorCode[]) {
  const direct = [...new Set(codes.map((c) => ERRORS[c].direct))];
  return z.object({
    detail: z.string().meta({ example: ERRORS[codes[0] ?? 'INTERNAL_ERROR'].message }),
    error_code: z.enum(direct as [string, ...string[]]),
    payment_id: paymentId.nullable(),
  });
}

/** The process family's error body (POST /api/v1/checkout/process). */
export function processError(codes: readonly ErrorCode[]) {
  return z.object({
    success: z.literal(false),
    status: z.literal('failed'),
    error_message: z.string().meta({ example: ERRORS[codes[0] ?? 'INTERNAL_ERROR'].message }),
    error_code: z.enum(codes as [ErrorCode, ...ErrorCode[]]),
    details: fieldErrors.optional(),
  });
}
