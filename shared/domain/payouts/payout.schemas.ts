/** zod schemas of the payout endpoints (SPEC.md 2.6, 4.4). */
import * as z from '../zod';
import { methodCodeSchema } from '../catalog/discovery.schemas';
import { metadataSchema, httpUrl } from '../payments/payment.schemas';
import { PAYOUT_STATUSES } from './payout';

export const PAYOUT_CURRENCIES = ['BRL', 'PEN', 'MXN', 'ARS', 'COP'] as const;
export const PAYOUT_COUNTRIES = ['BRA', 'MEX', 'ARG', 'PER', 'COL'] as const;

const str = (max: number) => z.string().check(z.trim(), z.minLength(1), z.maxLength(max));

export const beneficiarySchema = z.object({
  name: str(100),
  document: str(30),
  // SPEC.md 2.6's types, plus Argentina's CUIT and Ecuador's cédula (CI, the document of an Ecuadorian refund's account).
  document_type: z.enum(['CPF', 'CNPJ', 'DNI', 'RUT', 'CURP', 'CC', 'CE', 'RUC', 'CUIT', 'CI']),
  instant_transfer_key: z.optional(str(77)),
  instant_transfer_type: z.optional(z.enum(['email', 'cpf', 'cnpj', 'phone', 'random', 'clabe', 'cvu', 'cbu'])),
  bank_code: z.optional(str(10)),
  account_number: z.optional(str(34)),
  account_type: z.optional(z.enum(['checking', 'savings'])),
  wallet_id: z.optional(str(64)),
});
export type BeneficiaryInput = z.infer<typeof beneficiarySchema>;

export const createPayoutBody = z.object({
  method_code: methodCodeSchema,
  amount: z.number().check(z.positive()),
  currency: z.enum(PAYOUT_CURRENCIES),
  beneficiary: beneficiarySchema,
  description: z.optional(z.string().check(z.maxLength(500))),
  notification_url: z.optional(httpUrl),
  metadata: metadataSchema,
});
export type CreatePayoutInput = z.infer<typeof createPayoutBody>;

/**
 * POST /api/v1/payouts/batch: 1 to 100 payout requests. Each is checked on its own against createPayoutBody by
 * the use case (a bad one is answered in its own result, never a 400 for the batch); only the envelope is here.
 */
export const MAX_BATCH_PAYOUTS = 100;
export const createPayoutBatchBody = z.object({
  payouts: z.array(z.unknown()).check(z.minLength(1), z.maxLength(MAX_BATCH_PAYOUTS)),
});
export type CreatePayoutBatchInput = z.infer<typeof createPayoutBatchBody>;

export const payoutPath = z.object({
  payout_id: z.string().check(z.regex(/^po_[A-Za-z0-9_-]{22,64}$/, 'must be a payout id (po_...)')),
});

export const isoDate = z.string().check(
  z.maxLength(40),
  z.refine(
    (v) => /^\d{4}-\d{2}-\d{2}([T ][\d:.]+(Z|[+-]\d{2}:?\d{2})?)?$/.test(v) && !Number.isNaN(Date.parse(v)),
    'must be an ISO 8601 date or date-time',
  ),
);

export const listPayoutsQuery = z
  .object({
    status: z.optional(z.enum(PAYOUT_STATUSES)),
    from_date: z.optional(isoDate),
    to_date: z.optional(isoDate),
    limit: z._default(z.coerce.number().check(z.int(), z.gte(1), z.lte(100)), 20),
    offset: z._default(z.coerce.number().check(z.int(), z.gte(0), z.lte(100_000)), 0),
    starting_after: z.optional(z.string().check(z.regex(/^po_[A-Za-z0-9_-]{22,64}$/, 'must be a payout id (po_...)'))),
  })
  .check(
    z.refine((q) => !q.from_date || !q.to_date || Date.parse(q.from_date) <= Date.parse(q.to_date), {
      path: ['from_date'],
      message: 'must be before to_date',
    }),
  );

export const availablePayoutMethodsQuery = z.object({
  country: z.optional(z.enum(PAYOUT_COUNTRIES)),
  currency: z.optional(z.enum(PAYOUT_CURRENCIES)),
});

export const validateBeneficiaryBody = z.object({
  method_code: methodCodeSchema,
  beneficiary: z.record(z.string(), z.unknown()),
});

export const topUpBody = z.object({
  currency: z.enum(['BRL', 'PEN', 'COP', 'CLP', 'MXN', 'USD', 'ARS']),
  amount: z.number().check(z.positive(), z.lte(10_000_000)),
});
