/**
 * Which collection method code serves a pay-in method kind in a country, how
 * long its artefact stays payable, and what a session offers (SPEC.md 2.1 available_methods).
 */
import { findMethod, type Enablement } from '../catalog/payment-methods';
import type { RequiredFieldInfo } from '../catalog/required-fields';
import type { CountryCode, CurrencyCode } from '../geo';
import { fromMinor } from '../money';
import type { PaymentMethod } from './payment';

const CODES: Readonly<Record<PaymentMethod, Partial<Record<CountryCode, string>>>> = {
  pix: { BRA: 'svc-mt-1' },
  card: { BRA: 'svc-mt-2', PER: 'svc-mt-2', COL: 'svc-mt-2', CHL: 'svc-mt-2', MEX: 'svc-mt-2', ECU: 'svc-mt-2', ARG: 'svc-mt-2' },
  boleto: { BRA: 'svc-mt-8' },
  bank_transfer: {
    BRA: 'svc-mt-7',
    PER: 'svc-mt-11',
    COL: 'svc-mt-17',
    CHL: 'svc-mt-18',
    MEX: 'svc-mt-23',
    ECU: 'svc-mt-26',
    ARG: 'svc-mt-25',
  },
  spei: { MEX: 'svc-mt-23' },
  cip: { PER: 'svc-mt-12' },
  // PSE, Colombia's online debit from the shopper's bank (a redirect); svc-mt-17 is the transfer to an account shown.
  pse: { COL: 'svc-mt-14' },
  // Peru's online banking (svc-mt-3, SPEC's payment_type `payin`): paid from the bank's online banking (a redirect);
  // svc-mt-11 is Peru's bank transfer.
  payin: { PER: 'svc-mt-3' },
  cash: { COL: 'svc-mt-16', CHL: 'svc-mt-19', MEX: 'svc-mt-24' },
  wallet: { BRA: 'svc-mt-9', PER: 'svc-mt-13', COL: 'svc-mt-15' },
  // USDT (svc-mt-4, a global method): offered in every country, priced by the provider's own quote.
  crypto: { BRA: 'svc-mt-4', PER: 'svc-mt-4', COL: 'svc-mt-4', CHL: 'svc-mt-4', MEX: 'svc-mt-4', ECU: 'svc-mt-4', ARG: 'svc-mt-4' },
};

export const methodCodeFor = (kind: PaymentMethod, country: CountryCode): string | null => CODES[kind][country] ?? null;

/** Every (kind, country) a method code collects (svc-mt-23 is both SPEI and MEX bank transfer). */
export const placesOfCode = (code: string): Array<{ kind: PaymentMethod; country: CountryCode }> =>
  (Object.keys(CODES) as PaymentMethod[]).flatMap((kind) =>
    (Object.entries(CODES[kind]) as Array<[CountryCode, string]>).filter(([, c]) => c === code).map(([country]) => ({ kind, country })),
  );

/** The method kinds a method code serves in some country. */
export const kindsOfCode = (code: string): PaymentMethod[] =>
  (Object.keys(CODES) as PaymentMethod[]).filter((kind) => Object.values(CODES[kind]).includes(code));

/** How long each kind stays payable (seconds); PIX from PIX_EXPIRY_SECONDS (default 30 minutes). */
export function payableForSeconds(kind: PaymentMethod): number {
  switch (kind) {
    case 'pix':
      return Number(process.env.PIX_EXPIRY_SECONDS ?? 1800);
    case 'boleto':
      return 3 * 86400;
    case 'cash':
      return 2 * 86400;
    case 'cip':
    case 'spei':
    case 'bank_transfer':
    case 'pse': // a bank transfer too: the bank may confirm it after the shopper leaves its page
    case 'payin': // Peru's online banking, as PSE
      return 86400;
    case 'wallet':
    case 'card':
    case 'crypto': // a crypto order is payable at most an hour at the provider; ours, as a wallet's
      return 1800;
  }
}

export interface AvailableMethod {
  readonly id: PaymentMethod;
  readonly type: string;
  readonly name: string;
  readonly method_code: string;
  readonly enabled: boolean;
  readonly flow_type: 'embedded' | 'redirect';
  readonly required_fields: RequiredFieldInfo[];
  /** The wallets a shopper may choose under this method (Brazil's svc-mt-9), when more than one serves it. */
  readonly wallets?: readonly string[];
}

/**
 * Kinds paid on the page their redirect opens, as a wallet's approval: PSE and Peru's online banking (`payin`) at the
 * shopper's bank. One connector (the wallet's) starts them; they have no artefact to pay elsewhere.
 */
export const REDIRECT_KINDS: readonly PaymentMethod[] = ['wallet', 'pse', 'payin'];
export const paidOnRedirect = (kind: PaymentMethod) => REDIRECT_KINDS.includes(kind);

const KINDS: readonly PaymentMethod[] = [
  'pix',
  'card',
  'boleto',
  'spei',
  'pse',
  'payin',
  'bank_transfer',
  'cip',
  'cash',
  'wallet',
  'crypto',
];

/**
 * Whether an amount in the session's currency fits a method's bounds. A crypto method's bounds are in USDT and the
 * provider prices the order (never a rate of ours), so only the provider can refuse its amount.
 */
const fits = (info: { currency: string; min_amount: number; max_amount: number }, amount: number, currency: CurrencyCode) =>
  info.currency !== currency && info.currency === 'USDT' ? true : amount >= info.min_amount && amount <= info.max_amount;

/** The methods a session in `country` can show; enabled when the merchant has them and the amount fits. */
export function availableMethods(
  country: CountryCode,
  currency: CurrencyCode,
  amountMinor: number,
  enabled: Enablement & { readonly wallets?: readonly string[] },
): AvailableMethod[] {
  const amount = fromMinor(amountMinor, currency);
  const out: AvailableMethod[] = [];
  for (const kind of KINDS) {
    const code = methodCodeFor(kind, country);
    if (!code || (kind === 'bank_transfer' && country === 'MEX')) continue; // MEX bank transfer is SPEI
    const info = findMethod(code, { methods: [code], countries: [country] }, country);
    if (!info) continue;
    const usable = enabled.methods.includes(code) && enabled.countries.includes(country);
    out.push({
      id: kind,
      type: info.payment_type,
      name: info.name,
      method_code: code,
      enabled: usable && fits(info, amount, currency),
      flow_type: info.flow_type,
      required_fields: info.required_fields,
      ...(kind === 'wallet' && code === WALLET_CHOICE_CODE && enabled.wallets?.length ? { wallets: enabled.wallets } : {}),
    });
  }
  return out;
}

/** Amount bounds of a method code in a country, in the country's currency (null: the provider prices it, crypto). */
export function boundsOf(code: string, country: CountryCode): { min: number; max: number } | null {
  const info = findMethod(code, { methods: [code], countries: [country] }, country);
  if (!info || info.currency === 'USDT') return null;
  return { min: info.min_amount, max: info.max_amount };
}

/** The method code whose wallet a shopper may choose by name (Brazil's wallets: Mercado Pago, PicPay, NuPay). */
export const WALLET_CHOICE_CODE = 'svc-mt-9';
/** Wallets a shopper may name for that method (`wallet` on POST /api/v1/checkout/process). */
export const WALLET_CHOICES = ['mercado_pago', 'picpay', 'nupay'] as const;
export type WalletChoice = (typeof WALLET_CHOICES)[number];
