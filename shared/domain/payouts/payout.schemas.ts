/** zod schemas of the payout endpoints (SPEC.md 2.6, 4.4). */
import * as z from 'zod';
import { methodCodeSchema } from '../catalog/discovery.schemas';
import { metadataSchema, httpUrl } from '../payments/payment.schemas';
import { PAYOUT_STATUSES } from './payout';

export const PAYOUT_CURRENCIES = ['BRL', 'PEN', 'MXN', 'ARS', 'COP'] as const;
export const PAYOUT_COUNTRIES = ['BRA', 'MEX', 'ARG', 'PER', 'COL'] as const;

const str = (max: number) => z.string().trim().min(1).max(max);

export const beneficiarySchema = z.object({
  name: str(100),
  document: str(30),
  document_type: z.enum(['CPF', 'CNPJ', 'DNI', 'RUT', 'CURP', 'CC', 'CE', 'RUC', 'CUIT']),
  instant_transfer_key: str(77).optional(),
  instant_transfer_type: z.enum(['email', 'cpf', 'cnpj', 'phone', 'random', 'clabe', 'cvu', 'cbu']).optional(),
  bank_code: str(10).optional(),
  account_number: str(34).optional(),
  account_type: z.enum(['checking', 'savings']).optional(),
  wallet_id: str(64).optional(),
});
export type BeneficiaryInput = z.infer<typeof beneficiarySchema>;

export const createPayoutBody = z.object({
  method_code: methodCodeSchema,
  amount: z.number().positive(),
  currency: z.enum(PAYOUT_CURRENCIES),
  beneficiary: beneficiarySchema,
  description: z.string().max(500).optional(),
  notification_url: httpUrl.optional(),
  metadata: metadataSchema,
});
export type CreatePayoutInput = z.infer<typeof createPayoutBody>;

export const payoutPath = z.object({ payout_id: z.string().regex(/^po_[A-Za-z0-9_-]{22,64}$/, 'must be a payout id (po_...)') });

export const isoDate = z
  .string()
  .max(40)
  .refine(
    (v) => /^\d{4}-\d{2}-\d{2}([T ][\d:.]+(Z|[+-]\d{2}:?\d{2})?)?$/.test(v) && !Number.isNaN(Date.parse(v)),
    'must be an ISO 8601 date or date-time',
  );

export const listPayoutsQuery = z
  .object({
    status: z.enum(PAYOUT_STATUSES).optional(),
    from_date: isoDate.optional(),
    to_date: isoDate.optional(),
    limit: z.coerce.number().int().min(1).max(100).default(20),
    offset: z.coerce.number().int().min(0).max(100_000).default(0),
    starting_after: z
      .string()
      .regex(/^po_[A-Za-z0-9_-]{22,64}$/, 'must be a payout id (po_...)')
      .optional(),
  })
  .refine((q) => !q.from_date || !q.to_date || Date.parse(q.from_date) <= Date.parse(q.to_date), {
    path: ['from_date'],
    message: 'must be before to_date',
  });

export const availablePayoutMethodsQuery = z.object({
  country: z.enum(PAYOUT_COUNTRIES).optional(),
  currency: z.enum(PAYOUT_CURRENCIES).optional(),
});

export const validateBeneficiaryBody = z.object({
  method_code: methodCodeSchema,
  beneficiary: z.record(z.string(), z.unknown()),
});

export const topUpBody = z.object({
  currency: z.enum(['BRL', 'PEN', 'COP', 'CLP', 'MXN', 'USD', 'ARS']),
  amount: z.number().positive().max(10_000_000),
});
