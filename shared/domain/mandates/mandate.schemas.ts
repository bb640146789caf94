/** zod schemas of the mandate endpoints (DESIGN.md 9.3); types inferred from them. */
import * as z from '../zod';
import { COUNTRY_CODES } from '../geo';
import { CHARGE_CURRENCIES, customerSchema, httpUrl, metadataSchema } from '../payments/payment.schemas';
import { isoDate } from '../payouts/payout.schemas';
import { MANDATE_FREQUENCIES, MANDATE_METHODS, MANDATE_RETRY_POLICIES, MANDATE_STATUSES, SANDBOX_MANDATE_OUTCOMES } from './mandate';

const text = (max: number) => z.string().check(z.trim(), z.minLength(1), z.maxLength(max));
const calendarDate = z.string().check(
  z.regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a date (YYYY-MM-DD)'),
  z.refine(
    (d) => !Number.isNaN(Date.parse(`${d}T00:00:00Z`)) && new Date(`${d}T00:00:00Z`).toISOString().startsWith(d),
    'is not a calendar date',
  ),
);
const money = z.number().check(z.positive(), z.lte(10_000_000));

export const mandateIdSchema = z.string().check(z.regex(/^md_[A-Za-z0-9_-]{22,64}$/, 'must be a mandate id (md_...)'));
export const mandatePath = z.object({ mandate_id: mandateIdSchema });

/** A PIX push request's target: the payer's bank by its ISPB (8 digits), and optionally the account. */
export const payerSchema = z.strictObject({
  bank_ispb: z.string().check(z.regex(/^\d{8}$/, 'must be the bank’s ISPB: 8 digits')),
  agency: z.optional(z.string().check(z.regex(/^\d{1,4}$/, 'must be 1-4 digits'))),
  account: z.optional(z.string().check(z.regex(/^\d{1,20}$/, 'must be 1-20 digits'))),
});

export const createMandateBody = z
  .strictObject({
    country: z.enum(COUNTRY_CODES),
    currency: z.enum(CHARGE_CURRENCIES),
    method: z.enum(MANDATE_METHODS),
    customer: customerSchema,
    description: text(140),
    frequency: z.enum(MANDATE_FREQUENCIES),
    amount: z.optional(money),
    max_amount: z.optional(money),
    start_date: calendarDate,
    end_date: z.optional(calendarDate),
    retry_policy: z._default(z.enum(MANDATE_RETRY_POLICIES), 'none'),
    payer: z.optional(payerSchema),
    success_url: z.optional(httpUrl),
    cancel_url: z.optional(httpUrl),
    notification_url: z.optional(httpUrl),
    reference_id: z.optional(text(100)),
    metadata: metadataSchema,
  })
  .check(
    z.superRefine((v, ctx) => {
      if ((v.amount === undefined) === (v.max_amount === undefined)) {
        const message = 'give exactly one of amount (fixed) and max_amount (variable)';
        ctx.addIssue({ code: 'custom', path: [v.amount === undefined ? 'amount' : 'max_amount'], message });
      }
      if (v.end_date && v.end_date < v.start_date)
        ctx.addIssue({ code: 'custom', path: ['end_date'], message: 'must not be before start_date' });
      if (v.payer && v.method !== 'pix_automatico')
        ctx.addIssue({ code: 'custom', path: ['payer'], message: 'is only for pix_automatico (a push request to the payer’s bank)' });
    }),
  );
export type CreateMandateInput = z.infer<typeof createMandateBody>;

export const createMandateChargeBody = z.strictObject({
  amount: money,
  due_date: calendarDate,
  description: z.optional(text(140)),
  reference_id: z.optional(text(100)),
  notification_url: z.optional(httpUrl),
  metadata: metadataSchema,
});
export type CreateMandateChargeInput = z.infer<typeof createMandateChargeBody>;

/** POST /api/v1/sandbox/mandates/{mandate_id}/simulate (test keys only). */
export const simulateMandateBody = z.strictObject({ outcome: z.enum(SANDBOX_MANDATE_OUTCOMES) });
export type SimulateMandateInput = z.infer<typeof simulateMandateBody>;

export const listMandatesQuery = z
  .object({
    status: z.optional(z.enum(MANDATE_STATUSES)),
    from_date: z.optional(isoDate),
    to_date: z.optional(isoDate),
    limit: z._default(z.coerce.number().check(z.int(), z.gte(1), z.lte(100)), 20),
    offset: z._default(z.coerce.number().check(z.int(), z.gte(0), z.lte(100_000)), 0),
    starting_after: z.optional(mandateIdSchema),
  })
  .check(
    z.refine((q) => !q.from_date || !q.to_date || Date.parse(q.from_date) <= Date.parse(q.to_date), {
      path: ['from_date'],
      message: 'must be before to_date',
    }),
  );
export type ListMandatesQuery = z.infer<typeof listMandatesQuery>;

/** Our hosted approval page of a card mandate: its form (the card, and the browser facts its script adds for 3-D Secure). */
const digitsOf = (min: number, max: number) => z.optional(z.coerce.number().check(z.int(), z.gte(min), z.lte(max)));
export const approveCardForm = z.object({
  number: z.string().check(z.trim(), z.regex(/^\d{13,19}$/, 'must be 13-19 digits without spaces')),
  holder_name: text(100),
  expiry_month: z.string().check(z.regex(/^(0[1-9]|1[0-2])$/, 'must be MM (01-12)')),
  expiry_year: z.string().check(z.regex(/^\d{4}$/, 'must be YYYY')),
  cvv: z.string().check(z.regex(/^\d{3,4}$/, 'must be 3 or 4 digits')),
  screen_width: digitsOf(1, 100_000),
  screen_height: digitsOf(1, 100_000),
  color_depth: digitsOf(1, 64),
  time_zone_offset: digitsOf(-1000, 1000),
  language: z.optional(z.string().check(z.maxLength(35))),
});
export type ApproveCardForm = z.infer<typeof approveCardForm>;
/** The page takes any id: a payer with a broken link gets a page, not a JSON error. */
export const mandatePagePath = z.object({ mandate_id: z.string().check(z.maxLength(200)) });
