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

/** Smallest installment, in major units of the currency. */
const MIN_INSTALLMENT: Readonly<Record<CurrencyCode, number>> = { BRL: 5, MXN: 100, ARS: 1000, COP: 10_000, CLP: 5000, PEN: 10, USD: 5, USDT: 5 };

export interface InstallmentOption {
  readonly count: number;
  /** Each installment, rounded up to the minor unit. */
  readonly perInstallmentMinor: number;
}

export function installmentPlan(country: CountryCode, amountMinor: number, currency: CurrencyCode): InstallmentOption[] {
  const min = MIN_INSTALLMENT[currency] * 10 ** CURRENCY_DECIMALS[currency];
  return COUNTS[country]
    .map((count) => ({ count, perInstallmentMinor: Math.ceil(amountMinor / count) }))
    .filter((o) => o.count === 1 || o.perInstallmentMinor >= min);
}

export const allowedInstallments = (country: CountryCode, amountMinor: number, currency: CurrencyCode) =>
  installmentPlan(country, amountMinor, currency).map((o) => o.count);

export const isAllowedInstallments = (country: CountryCode, amountMinor: number, currency: CurrencyCode, n: number) =>
  allowedInstallments(country, amountMinor, currency).includes(n);
