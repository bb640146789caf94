/** Response schemas of the mandate views (DESIGN.md 9.3). */
import * as z from 'zod';
import { MANDATE_FREQUENCIES, MANDATE_METHODS, MANDATE_RETRY_POLICIES, MANDATE_STATUSES } from '../../domain/mandates/mandate';
import { amount, country, currency, idOf, livemode, metadata, timestamp, url } from './wire.schemas';

export const mandateId = idOf('md', 'Mandate id.');
const date = z.string().meta({ description: 'YYYY-MM-DD.', example: '2026-12-05' });

export const mandateApproval = z
  .union([
    z.object({
      type: z.literal('pix_qr'),
      pix_code: z.string().meta({ description: 'The recurrence QR (Pix Automático Jornada 2) as copy-and-paste text.' }),
      pix_qr_code_base64: z
        .string()
        .optional()
        .meta({ description: 'The same QR as a PNG data URI, while the mandate is pending (not in lists: retrieve the mandate).' }),
    }),
    z.object({ type: z.literal('pix_request').meta({ description: 'A request pushed to the payer’s bank app (Jornada 1).' }) }),
    z.object({ type: z.literal('redirect'), url: url.meta({ description: 'Our hosted page where the payer approves with a card.' }) }),
  ])
  .nullable()
  .meta({ id: 'MandateApproval', description: 'What the payer approves; null while a live provider has not answered yet.' });

export const mandateResource = z
  .object({
    success: z.literal(true),
    mandate_id: mandateId,
    status: z.enum(MANDATE_STATUSES).meta({ example: 'pending_approval' }),
    method: z.enum(MANDATE_METHODS),
    country,
    currency,
    description: z.string(),
    frequency: z.enum(MANDATE_FREQUENCIES),
    amount: amount.nullable().meta({ description: 'A fixed amount per charge, or null (variable up to max_amount).' }),
    max_amount: amount.nullable(),
    start_date: date,
    end_date: date.nullable(),
    retry_policy: z.enum(MANDATE_RETRY_POLICIES),
    card: z.object({ brand: z.string(), last_four: z.string() }).nullable(),
    reference_id: z.string().nullable(),
    approved_at: timestamp.nullable(),
    ended_at: timestamp.nullable(),
    cancelled_by: z.optional(z.enum(['merchant', 'payer', 'provider'])),
    failure_code: z.optional(z.string()),
    livemode,
    metadata,
    customer: z.object({ name: z.string(), email: z.string(), document: z.string().nullable().meta({ description: 'Masked.' }) }),
    payer: z.object({ bank_ispb: z.string(), agency: z.string().nullable(), account_masked: z.string().nullable() }).nullable(),
    approval: mandateApproval,
    approval_expires_at: timestamp,
    success_url: url.nullable(),
    cancel_url: url.nullable(),
    charges_count: z.number().int(),
    created_at: timestamp,
    updated_at: timestamp,
  })
  .meta({ id: 'Mandate' });

export const mandateList = z.object({
  success: z.literal(true),
  data: z.array(mandateResource.omit({ success: true })),
  pagination: z.object({ total: z.number().int(), limit: z.number().int(), offset: z.number().int() }),
  has_more: z.boolean(),
  next_cursor: mandateId.nullable().meta({ description: 'Pass as starting_after for the next page.' }),
});
