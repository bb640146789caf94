/**
 * The collection-method catalog of SPEC.md 2.5: every method code with its
 * display data, customer fields and amount bounds. Pure data plus the discovery
 * filter; no AWS.
 */
import { COUNTRIES, type CountryCode, type CurrencyCode } from '../geo';
import { requiredFields, type FieldSet, type RequiredFieldInfo } from './required-fields';

export const PAYMENT_TYPES = ['pix', 'card', 'bank_transfer', 'wallet', 'crypto', 'boleto', 'cash', 'payin'] as const;
export type PaymentType = (typeof PAYMENT_TYPES)[number];
/** payment_type values the list filter accepts (SPEC.md 4.3). */
export const FILTERABLE_PAYMENT_TYPES = ['pix', 'card', 'bank_transfer', 'wallet', 'crypto'] as const;

export type FlowType = 'embedded' | 'redirect';

/** SPEC.md 2.5 PaymentMethodInfo, as returned by the API. */
export interface PaymentMethodInfo {
  readonly method_code: string;
  readonly name: string;
  readonly description: string;
  readonly payment_type: PaymentType;
  readonly country: CountryCode | 'GLOBAL';
  readonly currency: CurrencyCode;
  readonly flow_type: FlowType;
  readonly required_fields: RequiredFieldInfo[];
  readonly min_amount: number;
  readonly max_amount: number;
}

interface LocalMethod {
  readonly code: string;
  readonly country: CountryCode;
  readonly type: PaymentType;
  readonly name: string;
  readonly description: string;
  readonly flow: FlowType;
  readonly fields: FieldSet;
  readonly min: number;
  readonly max: number;
}

/** Country-bound methods; the amount bounds are in the country's currency. */
const LOCAL_METHODS: readonly LocalMethod[] = [
  {
    code: 'svc-mt-1',
    country: 'BRA',
    type: 'pix',
    name: 'PIX',
    description: 'Instant payment by PIX QR code or copy-paste code.',
    flow: 'embedded',
    fields: 'basic',
    min: 1,
    max: 100_000,
  },
  {
    code: 'svc-mt-7',
    country: 'BRA',
    type: 'bank_transfer',
    name: 'Bank transfer (TED)',
    description: 'Transfer to the account and reference shown after checkout.',
    flow: 'embedded',
    fields: 'basic',
    min: 10,
    max: 250_000,
  },
  {
    code: 'svc-mt-8',
    country: 'BRA',
    type: 'boleto',
    name: 'Boleto bancário',
    description: 'Bank slip payable at banks, lotteries and internet banking; clears in 1-3 business days.',
    flow: 'embedded',
    fields: 'basic',
    min: 5,
    max: 50_000,
  },
  {
    code: 'svc-mt-9',
    country: 'BRA',
    type: 'wallet',
    name: 'Digital wallet',
    description: 'Approve the payment in your wallet app.',
    flow: 'redirect',
    fields: 'wallet',
    min: 1,
    max: 20_000,
  },
  {
    code: 'svc-mt-3',
    country: 'PER',
    type: 'payin',
    name: 'Online banking',
    description: 'Pay from your bank’s online banking.',
    flow: 'redirect',
    fields: 'basic',
    min: 1,
    max: 30_000,
  },
  {
    code: 'svc-mt-11',
    country: 'PER',
    type: 'bank_transfer',
    name: 'Bank transfer',
    description: 'Interbank transfer to the account shown after checkout.',
    flow: 'embedded',
    fields: 'basic',
    min: 5,
    max: 50_000,
  },
  {
    code: 'svc-mt-12',
    country: 'PER',
    type: 'bank_transfer',
    name: 'CIP payment code',
    description: 'Pay the CIP code at a bank, agent or online banking.',
    flow: 'embedded',
    fields: 'basic',
    min: 1,
    max: 30_000,
  },
  {
    code: 'svc-mt-13',
    country: 'PER',
    type: 'wallet',
    name: 'Mobile wallet',
    description: 'Approve the payment in your wallet app.',
    flow: 'redirect',
    fields: 'wallet',
    min: 1,
    max: 2_000,
  },
  {
    code: 'svc-mt-14',
    country: 'COL',
    type: 'bank_transfer',
    name: 'PSE',
    description: 'Pay from your bank account through PSE.',
    flow: 'redirect',
    fields: 'basic',
    min: 1_000,
    max: 50_000_000,
  },
  {
    code: 'svc-mt-15',
    country: 'COL',
    type: 'wallet',
    name: 'Mobile wallet',
    description: 'Approve the payment in your wallet app.',
    flow: 'redirect',
    fields: 'wallet',
    min: 1_000,
    max: 10_000_000,
  },
  {
    code: 'svc-mt-16',
    country: 'COL',
    type: 'cash',
    name: 'Cash payment',
    description: 'Pay the voucher in cash at a partner location.',
    flow: 'embedded',
    fields: 'basic',
    min: 5_000,
    max: 5_000_000,
  },
  {
    code: 'svc-mt-17',
    country: 'COL',
    type: 'bank_transfer',
    name: 'Bre-B',
    description: 'Instant transfer by Bre-B: scan the QR with your bank app.',
    flow: 'embedded',
    fields: 'basic',
    min: 10_000,
    max: 100_000_000,
  },
  {
    code: 'svc-mt-18',
    country: 'CHL',
    type: 'bank_transfer',
    name: 'Bank transfer',
    description: 'Pay from your bank account.',
    flow: 'redirect',
    fields: 'basic',
    min: 100,
    max: 10_000_000,
  },
  {
    code: 'svc-mt-19',
    country: 'CHL',
    type: 'cash',
    name: 'Cash payment',
    description: 'Pay the voucher in cash at a partner location.',
    flow: 'embedded',
    fields: 'basic',
    min: 1_000,
    max: 1_000_000,
  },
  {
    code: 'svc-mt-23',
    country: 'MEX',
    type: 'bank_transfer',
    name: 'SPEI',
    description: 'Transfer by SPEI to the reference CLABE shown after checkout.',
    flow: 'embedded',
    fields: 'basic',
    min: 1,
    max: 500_000,
  },
  {
    code: 'svc-mt-24',
    country: 'MEX',
    type: 'cash',
    name: 'Cash payment',
    description: 'Pay the voucher in cash at a convenience store.',
    flow: 'embedded',
    fields: 'basic',
    min: 10,
    max: 10_000,
  },
  // SPEC.md's market table promises a bank transfer in Ecuador and Argentina; its collection table names no code
  // there, so these two are ours (the next free codes), shaped as the other countries' bank transfers.
  {
    code: 'svc-mt-25',
    country: 'ARG',
    type: 'bank_transfer',
    name: 'Bank transfer',
    description: 'Transfer to the account shown after checkout.',
    flow: 'embedded',
    fields: 'basic',
    min: 1_000,
    max: 20_000_000,
  },
  {
    code: 'svc-mt-26',
    country: 'ECU',
    type: 'bank_transfer',
    name: 'Bank transfer',
    description: 'Transfer to the account shown after checkout.',
    flow: 'embedded',
    fields: 'basic',
    min: 5,
    max: 20_000,
  },
];

/** Card bounds per country currency; card is offered in every country, priced in its currency. */
const CARD_BOUNDS: Readonly<Record<CountryCode, readonly [number, number]>> = {
  BRA: [1, 50_000],
  PER: [1, 20_000],
  COL: [1_000, 20_000_000],
  CHL: [100, 5_000_000],
  MEX: [10, 100_000],
  ECU: [1, 10_000],
  ARG: [100, 10_000_000],
};

const CARD = {
  code: 'svc-mt-2',
  type: 'card' as const,
  name: 'Credit or debit card',
  description: 'Visa, Mastercard, American Express, Elo and Hipercard; 3-D Secure when the issuer asks for it.',
};
const CRYPTO = {
  code: 'svc-mt-4',
  type: 'crypto' as const,
  name: 'USDT',
  description: 'Pay in USDT (Tether) stablecoin.',
  min: 10,
  max: 100_000,
};

export const GLOBAL_METHOD_CODES = [CARD.code, CRYPTO.code] as const;
export const COLLECTION_METHOD_CODES: readonly string[] = [...LOCAL_METHODS.map((m) => m.code), ...GLOBAL_METHOD_CODES];

function localInfo(m: LocalMethod): PaymentMethodInfo {
  return {
    method_code: m.code,
    name: m.name,
    description: m.description,
    payment_type: m.type,
    country: m.country,
    currency: COUNTRIES[m.country].currency,
    flow_type: m.flow,
    required_fields: requiredFields(m.country, m.fields),
    min_amount: m.min,
    max_amount: m.max,
  };
}

function cardInfo(country: CountryCode | null): PaymentMethodInfo {
  const [min, max] = country ? CARD_BOUNDS[country] : CARD_BOUNDS.ECU;
  return {
    method_code: CARD.code,
    name: CARD.name,
    description: CARD.description,
    payment_type: CARD.type,
    country: country ?? 'GLOBAL',
    currency: country ? COUNTRIES[country].currency : 'USD',
    flow_type: 'embedded',
    required_fields: requiredFields(country, 'card'),
    min_amount: min,
    max_amount: max,
  };
}

function cryptoInfo(country: CountryCode | null): PaymentMethodInfo {
  return {
    method_code: CRYPTO.code,
    name: CRYPTO.name,
    description: CRYPTO.description,
    payment_type: CRYPTO.type,
    country: country ?? 'GLOBAL',
    currency: 'USDT',
    flow_type: 'embedded',
    required_fields: requiredFields(null, 'crypto'),
    min_amount: CRYPTO.min,
    max_amount: CRYPTO.max,
  };
}

/**
 * Every offering: each local method in its country, and each global method
 * (card, crypto) once per country, card priced in that country's currency.
 */
export function allOfferings(): PaymentMethodInfo[] {
  const countries = Object.keys(COUNTRIES) as CountryCode[];
  return countries.flatMap((country) => [
    ...LOCAL_METHODS.filter((m) => m.country === country).map(localInfo),
    cardInfo(country),
    cryptoInfo(country),
  ]);
}

export interface MethodFilters {
  readonly country?: CountryCode;
  readonly currency?: CurrencyCode;
  readonly payment_type?: PaymentType;
}

/** What a merchant has switched on: method codes and countries. */
export interface Enablement {
  readonly methods: readonly string[];
  readonly countries: readonly CountryCode[];
}

const OFFERINGS = allOfferings();

/** GET /api/v1/methods: the offerings matching the filters that the merchant has enabled. */
export function listMethods(filters: MethodFilters, enabled: Enablement): PaymentMethodInfo[] {
  return OFFERINGS.filter(
    (o) =>
      enabled.methods.includes(o.method_code) &&
      enabled.countries.includes(o.country as CountryCode) &&
      (filters.country === undefined || o.country === filters.country) &&
      (filters.currency === undefined || o.currency === filters.currency) &&
      (filters.payment_type === undefined || o.payment_type === filters.payment_type),
  );
}

/**
 * GET /api/v1/methods/{code}: a local method in its country; a global method
 * localised to `country` when given, else its GLOBAL descriptor (card in USD).
 * Null when the code is unknown or not enabled for the merchant.
 */
export function findMethod(code: string, enabled: Enablement, country?: CountryCode): PaymentMethodInfo | null {
  if (!enabled.methods.includes(code)) return null;
  const local = LOCAL_METHODS.find((m) => m.code === code);
  if (local) {
    if (!enabled.countries.includes(local.country)) return null;
    if (country && country !== local.country) return null;
    return localInfo(local);
  }
  if (country && !enabled.countries.includes(country)) return null;
  if (code === CARD.code) return cardInfo(country ?? null);
  if (code === CRYPTO.code) return cryptoInfo(country ?? null);
  return null;
}
