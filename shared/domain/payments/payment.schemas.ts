/** zod schemas of the pay-in endpoints (SPEC.md 2.1-2.4, 4.1, 4.2); types inferred from them. */
import { BR_STATES } from '../geo';
import * as z from '../zod';
import { COUNTRIES, COUNTRY_CODES } from '../geo';
import { toMinor } from '../money';
import { SESSION_EXPIRY_MINUTES } from './session';
import { WALLET_CHOICES } from './methods';
import { PAYMENT_METHODS } from './payment';

/** Currencies an amount can be charged in (SPEC.md 2.1). */
export const CHARGE_CURRENCIES = ['BRL', 'PEN', 'COP', 'CLP', 'MXN', 'USD', 'ARS'] as const;

const text = (max: number) => z.string().check(z.trim(), z.minLength(1), z.maxLength(max));
export const httpUrl = z.string().check(
  z.maxLength(2048),
  z.url(),
  z.refine((u) => /^https?:\/\//i.test(u), 'must be an http(s) URL'),
);

export const metadataSchema = z._default(
  z
    .record(
      z.string().check(z.minLength(1), z.maxLength(40)),
      z.union([z.string().check(z.maxLength(500)), z.number(), z.boolean(), z.null()]),
    )
    .check(z.refine((m) => Object.keys(m).length <= 50, 'at most 50 keys')),
  {},
);

const prefill = z.optional(
  z.object({
    name: z.optional(z.string().check(z.maxLength(200))),
    email: z.optional(z.string().check(z.maxLength(254), z.email())),
    document: z.optional(z.string().check(z.maxLength(30))),
    phone: z.optional(z.string().check(z.maxLength(30))),
  }),
);

/** Amount/currency/country consistency shared by sessions and direct payments. */
function checkMoney(v: { amount: number; currency: string; country: string }, ctx: z.core.$RefinementCtx) {
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
    amount: z.number().check(z.positive()),
    currency: z.enum(CHARGE_CURRENCIES),
    country: z.enum(COUNTRY_CODES),
    success_url: httpUrl,
    cancel_url: httpUrl,
    notification_url: z.optional(httpUrl),
    description: z.optional(z.string().check(z.maxLength(500))),
    expires_in_minutes: z._default(
      z.number().check(z.int(), z.gte(SESSION_EXPIRY_MINUTES.min), z.lte(SESSION_EXPIRY_MINUTES.max)),
      SESSION_EXPIRY_MINUTES.default,
    ),
    customer: prefill,
    order_number: z.optional(text(100)),
    reference_id: z.optional(text(100)),
    metadata: metadataSchema,
    environment: z.optional(z.enum(['sandbox', 'production'])),
  })
  .check(z.superRefine(checkMoney));
export type CreateSessionInput = z.infer<typeof createSessionBody>;

export const sessionIdSchema = z.string().check(z.regex(/^cs_[A-Za-z0-9_-]{22,64}$/, 'must be a checkout session id (cs_...)'));
export const paymentIdSchema = z.string().check(z.regex(/^pi_[A-Za-z0-9_-]{22,64}$/, 'must be a payment id (pi_...)'));
export const sessionPath = z.object({ session_id: sessionIdSchema });
/** Back from a provider's 3-D Secure: a payment's (pi_) or a card mandate's approval (md_). */
export const heldReturnPath = z.object({
  payment_id: z
    .string()
    .check(z.regex(/^(pi|md)_[A-Za-z0-9_-]{22,64}$/, 'must be a payment id (pi_...) or a mandate id (md_...)'))
    .clone()
    .register(z.globalRegistry, { example: 'pi_A1b2C3d4E5f6G7h8I9j0Kl' }),
});
/** Back from a live card's 3-D Secure: the provider's opaque result token. */
/**
 * Back from the provider's 3-D Secure. Without a result (a reload, a bookmark) the shopper is only sent on: the
 * notification or the reconciliation job decides. 8,000 characters fits the API's 10 KB request line.
 */
export const threeDsReturnQuery = z.object({ redirectResult: z.optional(z.string().check(z.minLength(1), z.maxLength(8_000))) });
/** The hosted page takes any id: a shopper with a broken link gets a page, not a JSON error. */
export const checkoutPagePath = z.object({ session_id: z.string().check(z.maxLength(200)) });
export const checkoutPageQuery = z.object({ locale: z.optional(z.string().check(z.maxLength(35))) });

export const customerSchema = z.object({
  name: text(200).check(z.refine((n) => n.length >= 2, 'must be at least 2 characters')),
  email: z.string().check(z.trim(), z.maxLength(254), z.email()),
  document: text(30),
  phone: z.optional(z.string().check(z.trim(), z.maxLength(30), z.regex(/^\+?[0-9 ()-]{6,30}$/, 'must be a phone number'))),
});
export type CustomerInput = z.infer<typeof customerSchema>;

const cardFields = {
  number: z.string().check(z.regex(/^\d{13,19}$/, 'must be 13-19 digits without spaces')),
  holder_name: text(100),
  expiry_month: z.string().check(z.regex(/^(0[1-9]|1[0-2])$/, 'must be MM (01-12)')),
  expiry_year: z.string().check(z.regex(/^\d{4}$/, 'must be YYYY')),
  cvv: z.string().check(z.regex(/^\d{3,4}$/, 'must be 3 or 4 digits')),
};
/** Checkout cards may carry installments; which counts a session allows depends on its country and amount (installments.ts). */
export const processCardSchema = z.object({ ...cardFields, installments: z.optional(z.number().check(z.int(), z.gte(1), z.lte(12))) });
export const directCardSchema = z.object({ ...cardFields, installments: z._default(z.number().check(z.int(), z.gte(1), z.lte(12)), 1) });
export type CardInput = z.infer<typeof processCardSchema>;

/** Every payment kind can be processed by the hosted page's request (where the session's country offers it). */
export const PROCESS_METHODS = PAYMENT_METHODS;

const requireCard = (v: { payment_method: string; card?: unknown }, ctx: z.core.$RefinementCtx) => {
  if (v.payment_method === 'card' && !v.card) ctx.addIssue({ code: 'custom', path: ['card'], message: 'is required for card payments' });
};

/**
 * What the hosted page reads of the shopper's browser for a card's 3-D Secure 2 (the issuer sizes its challenge to
 * it); the user agent and Accept header come from the request itself. Optional: a page without it still pays.
 */
export const browserInfoSchema = z.strictObject({
  color_depth: z.number().check(z.int(), z.gte(1), z.lte(48)),
  screen_height: z.number().check(z.int(), z.gte(0), z.lte(100_000)),
  screen_width: z.number().check(z.int(), z.gte(0), z.lte(100_000)),
  time_zone_offset: z.number().check(z.int(), z.gte(-840), z.lte(840)),
  java_enabled: z.boolean(),
  language: z.string().check(z.regex(/^[A-Za-z]{2,8}(-[A-Za-z0-9]{1,8})*$/, 'must be a BCP 47 language tag'), z.maxLength(35)),
});
export type BrowserInfoInput = z.infer<typeof browserInfoSchema>;

/**
 * The payer's address: a registered boleto carries it (FEBRABAN's registration), so a live boleto needs it; the
 * sandbox ignores it. Brazil only: CEP (8 digits, with or without its dash), street, number, city and state.
 */
export const billingAddressSchema = z.strictObject({
  postal_code: z.pipe(
    z.string().check(z.regex(/^\d{5}-?\d{3}$/, 'must be a CEP: 8 digits')),
    z.transform((v: string) => v.replace('-', '')),
  ),
  street: z.string().check(z.trim(), z.minLength(2), z.maxLength(100)),
  number: z.string().check(z.trim(), z.minLength(1), z.maxLength(10)),
  city: z.string().check(z.trim(), z.minLength(2), z.maxLength(60)),
  state: z.enum(BR_STATES),
});
export type BillingAddress = z.infer<typeof billingAddressSchema>;

export const processBody = z
  .object({
    session_id: sessionIdSchema,
    payment_method: z.enum(PROCESS_METHODS),
    customer: customerSchema,
    card: z.optional(processCardSchema),
    browser_info: z.optional(browserInfoSchema),
    billing_address: z.optional(billingAddressSchema),
    /** One of the session's offered method codes, when two share a kind in its country (Bre-B and PSE). */
    method_code: z.optional(z.string().check(z.regex(/^svc-mt-\d{1,3}$/, 'must be a method code such as svc-mt-17'))),
    /** Brazil's wallets (svc-mt-9): which one the shopper pays with; default the first the session offers. */
    wallet: z.optional(z.enum(WALLET_CHOICES)),
  })
  .check(z.superRefine(requireCard));
export type ProcessInput = z.infer<typeof processBody>;

export const directPaymentBody = z
  .object({
    payment_method: z.enum(['pix', 'card']),
    amount: z.number().check(z.positive()),
    currency: z.enum(CHARGE_CURRENCIES),
    country: z.enum(COUNTRY_CODES),
    customer: customerSchema,
    description: z.optional(z.string().check(z.maxLength(500))),
    notification_url: z.optional(httpUrl),
    return_url: z.optional(httpUrl),
    reference_id: z.optional(text(100)),
    metadata: metadataSchema,
    card: z.optional(directCardSchema),
  })
  .check(
    z.superRefine((v, ctx) => {
      checkMoney(v, ctx);
      requireCard(v, ctx);
    }),
  );
export type DirectPaymentInput = z.infer<typeof directPaymentBody>;

export const paymentStatusPath = z.object({
  merchant_id: z.string().check(z.regex(/^mch_[A-Za-z0-9_-]{22,64}$/, 'must be a merchant id (mch_...)')),
  payment_id: paymentIdSchema,
});

export const simulateBody = z.object({ outcome: z.enum(['success', 'failed']) });
export const paymentPath = z.object({ payment_id: paymentIdSchema });

/** The sandbox pages: a test payment's (3ds, wallet, pay) by its pi_ id, or a test mandate's approval (mandate) by its md_ id. */
export const sandboxPagePath = z
  .object({
    kind: z.enum(['3ds', 'wallet', 'pay', 'mandate']),
    payment_id: z
      .string()
      .check(z.regex(/^(pi|md)_[A-Za-z0-9_-]{22,64}$/, 'must be a payment id (pi_...) or, for kind mandate, a mandate id (md_...)'))
      .clone()
      .register(z.globalRegistry, { example: 'pi_A1b2C3d4E5f6G7h8I9j0Kl' }),
  })
  .check(
    z.refine((p) => (p.kind === 'mandate') === p.payment_id.startsWith('md_'), {
      path: ['payment_id'],
      message: 'must be a mandate id (md_...) for kind mandate, a payment id (pi_...) otherwise',
    }),
  );
