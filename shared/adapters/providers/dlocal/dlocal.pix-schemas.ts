/**
 * Our schema of the one dLocal payouts v3 request the Brazilian PIX payouts send (the rest of the v3 wire, the
 * token and the payout object, is dlocal.schemas.ts). Written from dLocal's pages, not copied, and only the subset
 * we send:
 * - docs.dlocal.com/docs/brazil-payouts-v3 ("Brazil", read up to its mandatory-parameters table): country BR,
 *   currency BRL, amount with 2 decimals, beneficiary.document.type CPF or CNPJ with beneficiary.document.id of 11
 *   to 14 digits ("Full CPF validation"; CPF 11 numeric and CNPJ 14 numeric, each with two check digits); the
 *   mandatory parameters external_id, payment_method_id, flow_type, purpose, country, amount, currency,
 *   beneficiary.first_name, ...; its payment methods "Bank transfers" and "Pix transfers".
 * - reference/notification-parameters-payouts-v3: a Brazilian payout object (country BR, BRL) with
 *   payment_method_id BANK_TRANSFER.
 * UNCONFIRMED (the stored copy of the Brazil page ends before its "Pix transfers" table): where the key goes and
 * how its type is spelled. Assumed here: `beneficiary.bank_account.pix_key` and `beneficiary.bank_account
 * .pix_key_type` with the central bank's DICT names (CPF, CNPJ, EMAIL, PHONE, EVP), under payment_method_id
 * BANK_TRANSFER. A wrong guess is refused by dLocal with a 3xxx validation error (nothing created, the payout
 * fails and is credited back): confirm against the page or the sandbox before going live; only this file and
 * PIX_KEY_TYPES in dlocal.pix-transformers.ts change then.
 * A payout to a Brazilian bank account (branch, account, type) is not sent: the page's bank-transfer rows were not
 * readable past bank_code, and our beneficiary (SPEC.md 2.6) carries no branch.
 * Requests are strict: a field we do not mean to send is a mismatch the fake dLocal fails a test on.
 */
import * as z from '../../../domain/zod';

const text = (max: number) => z.string().check(z.minLength(1), z.maxLength(max));
/** A positive amount in reais with at most 2 decimals (the page's "amount decimals 2"). */
const amount = z.number().check(
  z.positive(),
  z.refine((n) => Math.abs(Math.round(n * 100) - n * 100) < 1e-6, 'at most 2 decimals'),
);
const url = z.string().check(z.regex(/^https?:\/\/\S+$/, 'must be a URL'), z.maxLength(2000));

/**
 * Our external_id of a PIX payout: `do` + 32 hex (derived from the payout id, as the bank payouts' is), and for a
 * later attempt at this provider the attempt suffix `a<n>` (DESIGN.md 9.2: `<ref>a2`). dLocal allows up to 100.
 */
export const PIX_EXTERNAL_ID = /^do[0-9a-f]{32}(?:a[2-9]|a[1-9]\d{1,2})?$/;
export const pixExternalIdSchema = z.string().check(z.regex(PIX_EXTERNAL_ID, 'must be one of our external ids'));

/** The PIX key types as sent (UNCONFIRMED spelling, see above): the DICT's own names. */
export const DLOCAL_PIX_KEY_TYPES = ['CPF', 'CNPJ', 'EMAIL', 'PHONE', 'EVP'] as const;
export type DlocalPixKeyType = (typeof DLOCAL_PIX_KEY_TYPES)[number];

export const pixPayoutRequestSchema = z.strictObject({
  external_id: pixExternalIdSchema,
  country: z.literal('BR'),
  payment_method_id: z.literal('BANK_TRANSFER'),
  amount,
  currency: z.literal('BRL'),
  purpose: z.enum(['REMITTANCES', 'PAYROLL', 'SUPPLIER_PAYMENT', 'REFUND', 'OTHER']),
  /** B2C to a person (CPF), B2B to a company (CNPJ): two of the page's flow columns. */
  flow_type: z.enum(['B2C', 'B2B']),
  description: z.optional(text(100)),
  notification_url: url,
  beneficiary: z.strictObject({
    first_name: text(50),
    last_name: text(50),
    document: z.strictObject({
      type: z.enum(['CPF', 'CNPJ']),
      /** Digits only: CPF 11, CNPJ 14 (the page's validation table: numeric). */
      id: z.string().check(z.regex(/^(?:\d{11}|\d{14})$/, 'must be a CPF (11 digits) or a CNPJ (14 digits)')),
    }),
    bank_account: z.strictObject({
      /** The key as the DICT holds it: a CPF or CNPJ (digits), an email, a phone (+55...), a random key (UUID). */
      pix_key: text(77),
      pix_key_type: z.enum(DLOCAL_PIX_KEY_TYPES),
    }),
  }),
});
export type PixPayoutRequest = z.infer<typeof pixPayoutRequestSchema>;
