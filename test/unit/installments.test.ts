/** Card installments offered by the hosted checkout and accepted by POST /checkout/process. */
import { COUNTRIES, COUNTRY_CODES, type CountryCode, type CurrencyCode } from '../../shared/domain/geo';
import {
  allowedInstallments,
  installmentPlan,
  isAllowedInstallments,
  minInstallmentMinor,
} from '../../shared/domain/payments/installments';

const range = (a: number, b: number) => Array.from({ length: b - a + 1 }, (_, i) => a + i);
const COUNTS: Record<CountryCode, number[]> = {
  BRA: range(1, 12),
  MEX: [1, 3, 6, 9, 12],
  ARG: [1, 3, 6, 12],
  COL: range(1, 12),
  CHL: range(1, 12),
  PER: range(1, 12),
  ECU: [1, 3, 6, 12],
};
/** The minimums of the brief, written in minor units by hand. */
const MIN_MINOR: Record<Exclude<CurrencyCode, 'USDT'>, number> = {
  BRL: 500,
  MXN: 10_000,
  ARS: 100_000,
  COP: 1_000_000,
  CLP: 5000,
  PEN: 1000,
  USD: 500,
};

describe('installmentPlan', () => {
  it('offers every count of the country when the amount is large', () => {
    for (const country of COUNTRY_CODES) {
      const { currency } = COUNTRIES[country];
      const amount = 12 * minInstallmentMinor(currency) * 10;
      expect([country, allowedInstallments(country, amount, currency)]).toEqual([country, COUNTS[country]]);
    }
  });

  it('uses the minimum of each currency in its minor unit', () => {
    for (const [currency, min] of Object.entries(MIN_MINOR) as [Exclude<CurrencyCode, 'USDT'>, number][]) {
      expect([currency, minInstallmentMinor(currency)]).toEqual([currency, min]);
    }
  });

  it('offers a count exactly when each installment (rounded up) reaches the minimum', () => {
    for (const country of COUNTRY_CODES) {
      const { currency } = COUNTRIES[country];
      const min = MIN_MINOR[currency as keyof typeof MIN_MINOR];
      for (const count of COUNTS[country].filter((c) => c > 1)) {
        // Smallest amount whose ceil(amount / count) is the minimum: (min - 1) * count + 1.
        const edge = (min - 1) * count + 1;
        expect(isAllowedInstallments(country, edge, currency, count)).toBe(true);
        expect(isAllowedInstallments(country, edge - 1, currency, count)).toBe(false);
        expect(installmentPlan(country, edge, currency).find((o) => o.count === count)?.perInstallmentMinor).toBe(min);
      }
    }
  });

  it('always offers a single payment, even below the minimum or for zero', () => {
    for (const country of COUNTRY_CODES) {
      const { currency } = COUNTRIES[country];
      for (const amount of [0, 1, minInstallmentMinor(currency) - 1]) {
        expect(installmentPlan(country, amount, currency)).toEqual([{ count: 1, perInstallmentMinor: amount }]);
        expect(isAllowedInstallments(country, amount, currency, 1)).toBe(true);
        expect(isAllowedInstallments(country, amount, currency, 2)).toBe(false);
      }
    }
  });

  it('rounds each installment up to the minor unit, and never charges less than the amount', () => {
    expect(installmentPlan('BRA', 10_000, 'BRL').find((o) => o.count === 3)).toEqual({ count: 3, perInstallmentMinor: 3334 });
    expect(installmentPlan('CHL', 100_000, 'CLP').find((o) => o.count === 7)).toEqual({ count: 7, perInstallmentMinor: 14_286 });
    for (const country of COUNTRY_CODES) {
      const { currency } = COUNTRIES[country];
      for (const amount of [99_999, 1_234_567, 50_000_001, 987_654_321]) {
        for (const o of installmentPlan(country, amount, currency)) {
          expect(o.perInstallmentMinor * o.count).toBeGreaterThanOrEqual(amount);
          expect(o.perInstallmentMinor * o.count - amount).toBeLessThan(o.count);
          expect(Number.isInteger(o.perInstallmentMinor)).toBe(true);
        }
      }
    }
  });

  it('worked examples per country', () => {
    expect(allowedInstallments('BRA', 2000, 'BRL')).toEqual([1, 2, 3, 4]); // R$ 20.00: R$ 5.00 × 4
    expect(allowedInstallments('MEX', 60_000, 'MXN')).toEqual([1, 3, 6]); // MXN 600
    expect(allowedInstallments('ARG', 1_200_000, 'ARS')).toEqual([1, 3, 6, 12]); // ARS 12 000
    expect(allowedInstallments('ARG', 1_199_989, 'ARS')).toEqual([1, 3, 6, 12]); // rounded up: 12 × ARS 1000.00
    expect(allowedInstallments('ARG', 1_199_988, 'ARS')).toEqual([1, 3, 6]);
    expect(allowedInstallments('COL', 5_000_000, 'COP')).toEqual([1, 2, 3, 4, 5]); // COP 50 000
    expect(allowedInstallments('CHL', 15_000, 'CLP')).toEqual([1, 2, 3]); // CLP has no decimals
    expect(allowedInstallments('PER', 5000, 'PEN')).toEqual([1, 2, 3, 4, 5]);
    expect(allowedInstallments('ECU', 3000, 'USD')).toEqual([1, 3, 6]);
  });

  it('rejects counts the country does not sell', () => {
    expect(isAllowedInstallments('MEX', 10_000_000, 'MXN', 2)).toBe(false);
    expect(isAllowedInstallments('ARG', 10_000_000, 'ARS', 9)).toBe(false);
    expect(isAllowedInstallments('BRA', 10_000_000, 'BRL', 13)).toBe(false);
    expect(isAllowedInstallments('BRA', 10_000_000, 'BRL', 0)).toBe(false);
    expect(isAllowedInstallments('BRA', 10_000_000, 'BRL', 2.5)).toBe(false);
  });

  it('throws RangeError for an amount that is not a non-negative integer', () => {
    for (const bad of [-1, 1.5, Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(() => installmentPlan('BRA', bad, 'BRL')).toThrow(RangeError);
    }
  });
});
