/**
 * Card installments a checkout offers: which counts each country's issuers sell
 * (parcelas, meses sin intereses, cuotas), without interest in the sandbox, and
 * only while each installment stays above a minimum amount in the currency.
 */
import { CURRENCY_DECIMALS, type CountryCode, type CurrencyCode } from '../geo';

const COUNTS: Readonly<Record<CountryCode, readonly number[]>> = {
  BRA: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12],
  MEX: [1, 3, 6, 9, 12],
  ARG: [1, 3, 6, 12],
  COL: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12],
  CHL: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12],
  PER: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12],
  ECU: [1, 3, 6, 12],
};

/** Smallest installment, in major units of the currency (USDT, never a checkout currency, as USD). */
const MIN_INSTALLMENT: Readonly<Record<CurrencyCode, number>> = {
  BRL: 5,
  MXN: 100,
  ARS: 1000,
  COP: 10_000,
  CLP: 5000,
  PEN: 10,
  USD: 5,
  USDT: 5,
};

/** Smallest installment of each currency in its minor unit (CURRENCY_DECIMALS), e.g. BRL 5.00 → 500. */
export const minInstallmentMinor = (currency: CurrencyCode): number => MIN_INSTALLMENT[currency] * 10 ** CURRENCY_DECIMALS[currency];

export interface InstallmentOption {
  readonly count: number;
  /** Each installment, Math.ceil(amountMinor / count): count × it may exceed the amount by up to count - 1. */
  readonly perInstallmentMinor: number;
}

/**
 * The counts the country offers, in increasing order, with the amount of each installment; a count above 1
 * only while each installment is at least the currency minimum. 1 is always offered. No interest.
 * Throws RangeError unless amountMinor is a non-negative safe integer.
 */
export function installmentPlan(country: CountryCode, amountMinor: number, currency: CurrencyCode): InstallmentOption[] {
  if (!Number.isSafeInteger(amountMinor) || amountMinor < 0) throw new RangeError('amountMinor must be a non-negative integer');
  const min = minInstallmentMinor(currency);
  return COUNTS[country]
    .map((count) => ({ count, perInstallmentMinor: Math.ceil(amountMinor / count) }))
    .filter((o) => o.count === 1 || o.perInstallmentMinor >= min);
}

/** The installment counts installmentPlan offers. */
export const allowedInstallments = (country: CountryCode, amountMinor: number, currency: CurrencyCode): number[] =>
  installmentPlan(country, amountMinor, currency).map((o) => o.count);

export const isAllowedInstallments = (country: CountryCode, amountMinor: number, currency: CurrencyCode, n: number): boolean =>
  allowedInstallments(country, amountMinor, currency).includes(n);
