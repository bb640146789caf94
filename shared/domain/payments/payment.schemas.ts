/** zod schemas of the pay-in endpoints (SPEC.md 2.1-2.4, 4.1, 4.2); types inferred from them. */
import * as z from 'zod';
import { COUNTRIES, COUNTRY_CODES } from '../geo';
import { toMinor } from '../money';
import { SESSION_EXPIRY_MINUTES } from './session';

/** Currencies an amount can be charged in (SPEC.md 2.1). */
export const CHARGE_CURRENCIES = ['BRL', 'PEN', 'COP', 'CLP', 'MXN', 'USD', 'ARS'] as const;

const text = (max: number) => z.string().trim().min(1).max(max);
export const httpUrl = z
  .string()
  .max(2048)
  .url()
  .refine((u) => /^https?:\/\//i.test(u), 'must be an http(s) URL');

export const metadataSchema = z
  .record(z.string().min(1).max(40), z.union([z.string().max(500), z.number(), z.boolean(), z.null()]))
  .refine((m) => Object.keys(m).length <= 50, 'at most 50 keys')
  .default({});

const prefill = z
  .object({
    name: z.string().max(200).optional(),
    email: z.string().max(254).email().optional(),
    document: z.string().max(30).optional(),
    phone: z.string().max(30).optional(),
  })
  .optional();

/** Amount/currency/country consistency shared by sessions and direct payments. */
function checkMoney(v: { amount: number; currency: string; country: string }, ctx: z.RefinementCtx) {
  const expected = COUNTRIES[v.country as keyof typeof COUNTRIES]?.currency;
  if (expected && v.currency !== expected) {
    ctx.addIssue({ code: 'custom', path: ['currency'], message: `must be ${expected} for ${v.country}` });
  }
  if (toMinor(v.amount, v.currency as (typeof CHARGE_CURRENCIES)[number]) === null) {
    ctx.addIssue({ code: 'custom', path: ['amount'], message: `must be greater than 0 with at most the decimals of ${v.currency}` });
  }
}

export const createSessionBody = z
  .object({
    amount: z.number().positive(),
    currency: z.enum(CHARGE_CURRENCIES),
    country: z.enum(COUNTRY_CODES),
    success_url: httpUrl,
    cancel_url: httpUrl,
    notification_url: httpUrl.optional(),
    description: z.string().max(500).optional(),
    expires_in_minutes: z
      .number()
      .int()
      .min(SESSION_EXPIRY_MINUTES.min)
      .max(SESSION_EXPIRY_MINUTES.max)
      .default(SESSION_EXPIRY_MINUTES.default),
    customer: prefill,
    order_number: text(100).optional(),
    reference_id: text(100).optional(),
    metadata: metadataSchema,
    environment: z.enum(['sandbox', 'production']).optional(),
  })
  .superRefine(checkMoney);
export type CreateSessionInput = z.infer<typeof createSessionBody>;

export const sessionIdSchema = z.string().regex(/^cs_[A-Za-z0-9_-]{22,64}$/, 'must be a checkout session id (cs_...)');
export const paymentIdSchema = z.string().regex(/^pi_[A-Za-z0-9_-]{22,64}$/, 'must be a payment id (pi_...)');
export const sessionPath = z.object({ session_id: sessionIdSchema });
/** The hosted page takes any id: a shopper with a broken link gets a page, not a JSON error. */
export const checkoutPagePath = z.object({ session_id: z.string().max(200) });
export const checkoutPageQuery = z.object({ locale: z.string().max(35).optional() });

export const customerSchema = z.object({
  name: text(200).refine((n) => n.length >= 2, 'must be at least 2 characters'),
  email: z.string().trim().max(254).email(),
  document: text(30),
  phone: z
    .string()
    .trim()
    .max(30)
    .regex(/^\+?[0-9 ()-]{6,30}$/, 'must be a phone number')
    .optional(),
});
export type CustomerInput = z.infer<typeof customerSchema>;

const cardFields = {
  number: z.string().regex(/^\d{13,19}$/, 'must be 13-19 digits without spaces'),
  holder_name: text(100),
  expiry_month: z.string().regex(/^(0[1-9]|1[0-2])$/, 'must be MM (01-12)'),
  expiry_year: z.string().regex(/^\d{4}$/, 'must be YYYY'),
  cvv: z.string().regex(/^\d{3,4}$/, 'must be 3 or 4 digits'),
};
/** Checkout cards may carry installments; which counts a session allows depends on its country and amount (installments.ts). */
export const processCardSchema = z.object({ ...cardFields, installments: z.number().int().min(1).max(12).optional() });
export const directCardSchema = z.object({ ...cardFields, installments: z.number().int().min(1).max(12).default(1) });
export type CardInput = z.infer<typeof processCardSchema>;

export const PROCESS_METHODS = ['pix', 'card', 'boleto', 'bank_transfer', 'cash', 'wallet', 'spei', 'cip'] as const;

const requireCard = (v: { payment_method: string; card?: unknown }, ctx: z.RefinementCtx) => {
  if (v.payment_method === 'card' && !v.card) ctx.addIssue({ code: 'custom', path: ['card'], message: 'is required for card payments' });
};

export const processBody = z
  .object({
    session_id: sessionIdSchema,
    payment_method: z.enum(PROCESS_METHODS),
    customer: customerSchema,
    card: processCardSchema.optional(),
  })
  .superRefine(requireCard);
export type ProcessInput = z.infer<typeof processBody>;

export const directPaymentBody = z
  .object({
    payment_method: z.enum(['pix', 'card']),
    amount: z.number().positive(),
    currency: z.enum(CHARGE_CURRENCIES),
    country: z.enum(COUNTRY_CODES),
    customer: customerSchema,
    description: z.string().max(500).optional(),
    notification_url: httpUrl.optional(),
    return_url: httpUrl.optional(),
    reference_id: text(100).optional(),
    metadata: metadataSchema,
    card: directCardSchema.optional(),
  })
  .superRefine((v, ctx) => {
    checkMoney(v, ctx);
    requireCard(v, ctx);
  });
export type DirectPaymentInput = z.infer<typeof directPaymentBody>;

export const paymentStatusPath = z.object({
  merchant_id: z.string().regex(/^mch_[A-Za-z0-9_-]{22,64}$/, 'must be a merchant id (mch_...)'),
  payment_id: paymentIdSchema,
});

export const simulateBody = z.object({ outcome: z.enum(['success', 'failed']) });
export const paymentPath = z.object({ payment_id: paymentIdSchema });

export const sandboxPagePath = z.object({ kind: z.enum(['3ds', 'wallet', 'pay']), payment_id: paymentIdSchema });
