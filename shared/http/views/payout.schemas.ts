/** Response schemas of the payout and balance views. */
import * as z from 'zod';
import { LEDGER_TYPES } from '../../domain/ledger';
import { PAYOUT_STATUSES } from '../../domain/payouts/payout';
import { PAYOUT_COUNTRIES, PAYOUT_CURRENCIES } from '../../domain/payouts/payout.schemas';
import { amount, currency, fieldErrors, livemode, metadata, payoutId, timestamp } from './wire.schemas';

const masked = z.string().nullable();

/** A beneficiary as stored and shown: document and account masked to their last four. */
export const maskedBeneficiary = z
  .object({
    name: z.string().meta({ example: 'Maria Silva' }),
    document: z.string().meta({ description: 'Masked; last four shown.', example: '*******0001' }),
    document_type: z.string().meta({ example: 'CPF' }),
    instant_transfer_key: masked,
    instant_transfer_type: z.string().nullable(),
    bank_code: z.string().nullable(),
    account_number: masked,
    account_type: z.string().nullable(),
    wallet_id: z.string().nullable(),
  })
  .meta({ id: 'MaskedBeneficiary' });

export const payoutStatus = z.enum(PAYOUT_STATUSES).meta({ example: 'processing' });

/** GET /api/v1/payout/{payout_id}, 200 (SPEC.md 2.6). */
export const payoutRecord = z
  .object({
    success: z.literal(true),
    payout_id: payoutId,
    status: payoutStatus,
    amount,
    currency,
    method_code: z.string().meta({ example: 'svc-mt-5' }),
    beneficiary: maskedBeneficiary,
    description: z.string().nullable(),
    metadata,
    failure_reason: z.string().nullable(),
    created_at: timestamp,
    completed_at: timestamp.nullable(),
  })
  .meta({ id: 'Payout' });

/** POST /api/v1/payout, 200. */
export const createdPayout = z.object({
  success: z.literal(true),
  payout_id: payoutId,
  status: payoutStatus,
  created_at: timestamp,
  message: z.string(),
});

/** POST /api/v1/payouts/batch, 200: one result per request, in request order. */
export const payoutBatch = z.object({
  success: z.literal(true),
  batch_id: z.string().meta({ example: 'pb_x7Jm1wqT3S8c2Q0aPz9d4w' }),
  accepted: z.number().meta({ description: 'Payouts made (each then its own object, webhooks and settlement).', example: 99 }),
  rejected: z.number().meta({ description: 'Requests that made no payout, or whose payout the provider refused.', example: 1 }),
  results: z.array(
    z.object({
      index: z.number().meta({ description: 'The request’s place in `payouts`.', example: 0 }),
      success: z.boolean(),
      payout_id: payoutId.optional(),
      status: payoutStatus.optional(),
      created_at: timestamp.optional(),
      message: z.string().optional(),
      error: z
        .object({ code: z.string().meta({ example: 'INVALID_BENEFICIARY' }), message: z.string(), details: fieldErrors.optional() })
        .optional()
        .meta({ description: 'Why this request made no payout (or, with a payout_id, what its provider answered).' }),
    }),
  ),
});

/** POST /api/v1/payout/{payout_id}/cancel, 200. */
export const cancelledPayout = z.object({ success: z.literal(true), payout_id: payoutId, status: payoutStatus, message: z.string() });

/** GET /api/v1/payout, 200. */
export const payoutList = z.object({
  success: z.literal(true),
  data: z.array(
    z.object({ payout_id: payoutId, status: payoutStatus, amount, currency, beneficiary_name: z.string(), created_at: timestamp }),
  ),
  pagination: z.object({ total: z.number().int(), limit: z.number().int(), offset: z.number().int() }),
  has_more: z.boolean(),
  next_cursor: payoutId.nullable().meta({ description: 'Pass as starting_after for the next page.' }),
});

/** GET /api/v1/payout/methods/available, 200. */
export const payoutMethods = z.object({
  success: z.literal(true),
  methods: z.array(
    z.object({
      method_code: z.string().meta({ example: 'svc-mt-5' }),
      name: z.string(),
      type: z.string(),
      country: z.enum(PAYOUT_COUNTRIES),
      currency: z.enum(PAYOUT_CURRENCIES),
      min_amount: z.number(),
      max_amount: z.number(),
      required_fields: z.array(z.string()),
    }),
  ),
});

/** POST /api/v1/payout/validate-beneficiary, 200 either way. */
export const beneficiaryCheck = z.union([
  z.object({
    success: z.literal(true),
    valid: z.literal(true),
    beneficiary: z.object({ name: z.string(), document_valid: z.boolean(), key_valid: z.boolean().nullable() }),
  }),
  z.object({
    success: z.literal(true),
    valid: z.literal(false),
    errors: z.array(z.object({ field: z.string(), message: z.string() })),
  }),
]);

/** GET /api/v1/balance and POST /api/v1/sandbox/balance/top-up, 200. */
export const balances = z.object({
  success: z.literal(true),
  livemode,
  balances: z.array(z.object({ currency, available: amount, updated_at: timestamp })),
});

/** GET /api/v1/balance/transactions, 200. */
export const balanceTransactions = z.object({
  success: z.literal(true),
  data: z.array(
    z.object({
      id: z.string().meta({ example: 'le_A1b2C3d4E5f6G7h8I9j0Kl' }),
      type: z.enum(LEDGER_TYPES).meta({
        description:
          'What moved the balance. chargeback / chargeback_reversal: a card dispute; pix_fraud_return: a live PIX payment ' +
          "returned to its payer by the central bank's special return mechanism (MED) for fraud, the payment's dispute lost.",
      }),
      amount: amount.meta({ description: 'Signed: credits positive, debits negative.' }),
      currency,
      balance_after: amount,
      source_id: z.string().meta({ description: 'The payment, refund or payout that moved the balance.' }),
      description: z.string(),
      created_at: timestamp,
    }),
  ),
  has_more: z.boolean(),
  next_cursor: z.string().nullable(),
});
