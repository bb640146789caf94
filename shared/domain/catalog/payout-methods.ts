/**
 * The payout-method catalog of SPEC.md 2.6: the five payout method codes with
 * their rail type, country, currency, amount bounds, the beneficiary fields each
 * one requires and the document / instant-transfer-key types it accepts.
 * Pure data plus the "available payout methods" filter (SPEC.md 4.4 item 5); no AWS.
 */
import type { DocumentType } from '../documents';
import type { CountryCode, CurrencyCode } from '../geo';

/** Payout method codes of SPEC.md 2.6; merchants are enabled for these codes from the start. */
export const PAYOUT_METHOD_CODES = ['svc-mt-5', 'svc-mt-6', 'svc-mt-30', 'svc-mt-31', 'svc-mt-32'] as const;
export type PayoutMethodCode = (typeof PAYOUT_METHOD_CODES)[number];

/** `type` of an available payout method item (SPEC.md 2.6: "e.g. instant_transfer"). */
export const PAYOUT_TYPES = ['instant_transfer', 'bank_transfer'] as const;
export type PayoutType = (typeof PAYOUT_TYPES)[number];

export type PayoutCountry = 'BRA' | 'PER' | 'MEX' | 'ARG' | 'COL';
export type PayoutCurrency = 'BRL' | 'PEN' | 'MXN' | 'ARS' | 'COP';

/** instant_transfer_type values of SPEC.md 2.6 (PIX key types, CLABE, CVU, CBU). */
export const INSTANT_TRANSFER_TYPES = ['cpf', 'cnpj', 'email', 'phone', 'random', 'clabe', 'cvu', 'cbu'] as const;
export type InstantTransferType = (typeof INSTANT_TRANSFER_TYPES)[number];

export const ACCOUNT_TYPES = ['checking', 'savings'] as const;
export type AccountType = (typeof ACCOUNT_TYPES)[number];

/** Field names of the SPEC.md 2.6 beneficiary object. */
export const BENEFICIARY_FIELDS = [
  'name',
  'document',
  'document_type',
  'instant_transfer_key',
  'instant_transfer_type',
  'bank_code',
  'account_number',
  'account_type',
  'wallet_id',
] as const;
export type BeneficiaryField = (typeof BENEFICIARY_FIELDS)[number];

/**
 * A rail money is sent to a beneficiary on, as the beneficiary validator sees it: a payout method, or a rail that
 * only carries refunds (refund.ts) and is no payout method.
 */
export interface BeneficiaryRail {
  readonly name: string;
  readonly type: PayoutType;
  readonly country: CountryCode;
  readonly currency: CurrencyCode;
  /** Beneficiary fields the rail requires, in the order the API lists them. */
  readonly required_fields: readonly BeneficiaryField[];
  /** document_type values accepted for the beneficiary. */
  readonly document_types: readonly DocumentType[];
  /** instant_transfer_type values accepted (empty for traditional bank transfers). */
  readonly instant_transfer_types: readonly InstantTransferType[];
  /** A rail that carries refunds only: never listed, never a payout's method (its messages say refunds). */
  readonly refunds_only?: true;
}

/** One payout method with everything the API and the beneficiary validator need. */
export interface PayoutMethodInfo extends BeneficiaryRail {
  readonly method_code: PayoutMethodCode;
  readonly country: PayoutCountry;
  readonly currency: PayoutCurrency;
  /** Amount bounds, in major units of `currency` (inclusive). */
  readonly min_amount: number;
  readonly max_amount: number;
}

/** SPEC.md 2.6 "available payout method item", as returned by GET /api/v1/payout/methods/available. */
export interface AvailablePayoutMethod {
  readonly method_code: string;
  readonly name: string;
  readonly type: PayoutType;
  readonly country: PayoutCountry;
  readonly currency: PayoutCurrency;
  readonly min_amount: number;
  readonly max_amount: number;
  readonly required_fields: string[];
}

const INSTANT_FIELDS: readonly BeneficiaryField[] = ['name', 'document', 'document_type', 'instant_transfer_key', 'instant_transfer_type'];
/** A traditional bank transfer's fields (SPEC.md 2.6): the beneficiary, their document, the bank and the account. */
export const BANK_FIELDS: readonly BeneficiaryField[] = [
  'name',
  'document',
  'document_type',
  'bank_code',
  'account_number',
  'account_type',
];

/** The catalog, in SPEC.md 2.6 table order. */
export const PAYOUT_METHODS: readonly PayoutMethodInfo[] = [
  {
    method_code: 'svc-mt-5',
    name: 'PIX',
    type: 'instant_transfer',
    country: 'BRA',
    currency: 'BRL',
    min_amount: 1,
    max_amount: 50_000,
    required_fields: INSTANT_FIELDS,
    document_types: ['CPF', 'CNPJ'],
    instant_transfer_types: ['cpf', 'cnpj', 'email', 'phone', 'random'],
  },
  {
    method_code: 'svc-mt-6',
    name: 'Bank transfer',
    type: 'bank_transfer',
    country: 'PER',
    currency: 'PEN',
    min_amount: 10,
    max_amount: 50_000,
    required_fields: BANK_FIELDS,
    document_types: ['DNI', 'RUC', 'CE'],
    instant_transfer_types: [],
  },
  {
    method_code: 'svc-mt-30',
    name: 'SPEI',
    type: 'instant_transfer',
    country: 'MEX',
    currency: 'MXN',
    min_amount: 10,
    max_amount: 500_000,
    required_fields: INSTANT_FIELDS,
    document_types: ['CURP'],
    instant_transfer_types: ['clabe'],
  },
  {
    method_code: 'svc-mt-31',
    name: 'CVU/CBU transfer',
    type: 'instant_transfer',
    country: 'ARG',
    currency: 'ARS',
    min_amount: 100,
    max_amount: 5_000_000,
    required_fields: INSTANT_FIELDS,
    document_types: ['DNI', 'CUIT'],
    instant_transfer_types: ['cvu', 'cbu'],
  },
  {
    method_code: 'svc-mt-32',
    name: 'Bank transfer',
    type: 'bank_transfer',
    country: 'COL',
    currency: 'COP',
    min_amount: 10_000,
    max_amount: 50_000_000,
    required_fields: BANK_FIELDS,
    document_types: ['CC', 'CE'],
    instant_transfer_types: [],
  },
];

/** The catalog entry of a payout method code, or null when the code is not a payout method. */
export function findPayoutMethod(code: string): PayoutMethodInfo | null {
  return PAYOUT_METHODS.find((m) => m.method_code === code) ?? null;
}

export interface PayoutMethodFilters {
  readonly country?: string;
  readonly currency?: string;
}

const toItem = (m: PayoutMethodInfo): AvailablePayoutMethod => ({
  method_code: m.method_code,
  name: m.name,
  type: m.type,
  country: m.country,
  currency: m.currency,
  min_amount: m.min_amount,
  max_amount: m.max_amount,
  required_fields: [...m.required_fields],
});

/**
 * GET /api/v1/payout/methods/available: the payout methods the merchant has enabled
 * (`enabledCodes`, which may also hold collection codes) matching the filters, as
 * SPEC.md 2.6 items, in catalog order. Fresh objects: callers may mutate them.
 */
export function listPayoutMethods(filters: PayoutMethodFilters, enabledCodes: readonly string[]): AvailablePayoutMethod[] {
  return PAYOUT_METHODS.filter(
    (m) =>
      enabledCodes.includes(m.method_code) &&
      (filters.country === undefined || m.country === filters.country) &&
      (filters.currency === undefined || m.currency === filters.currency),
  ).map(toItem);
}
