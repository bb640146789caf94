/// <reference lib="dom" />
/**
 * Input masks of the hosted page, applied as the shopper types. They only add the
 * punctuation each document or card shows on paper; normalizeDocument strips it
 * again, so what reaches the API is what the shopper typed.
 */
import type { CountryCode } from '../../../../domain/geo';
import { cardBrand, type CardBrand } from '../../../../domain/payments/card';

const onlyDigits = (v: string) => v.replace(/\D/g, '');
const alnum = (v: string) => v.toUpperCase().replace(/[^0-9A-Z]/g, '');

/** Lays `digits` over a pattern where 9 is a digit slot, stopping at the last typed digit. */
function pattern(digits: string, shape: string): string {
  let out = '';
  let i = 0;
  for (const c of shape) {
    if (i >= digits.length) break;
    if (c === '9') out += digits[i++];
    else out += c;
  }
  return out;
}

export function formatDocument(country: CountryCode, raw: string): string {
  switch (country) {
    case 'BRA': {
      const d = onlyDigits(raw).slice(0, 14);
      return d.length <= 11 ? pattern(d, '999.999.999-99') : pattern(d, '99.999.999/9999-99');
    }
    case 'CHL': {
      const v = raw.toUpperCase().replace(/[^0-9K]/g, '').slice(0, 9);
      if (v.length < 2) return v;
      const body = v.slice(0, -1).replace(/K/g, '');
      return `${body.replace(/\B(?=(\d{3})+(?!\d))/g, '.')}-${v.slice(-1)}`;
    }
    case 'ARG': {
      const d = onlyDigits(raw).slice(0, 11);
      return d.length > 8 ? pattern(d, '99-99999999-9') : d;
    }
    case 'MEX':
      return alnum(raw).slice(0, 18);
    case 'COL':
      return alnum(raw).slice(0, 12);
    case 'PER':
      return onlyDigits(raw).slice(0, 11);
    case 'ECU':
      return onlyDigits(raw).slice(0, 10);
  }
}

/** Card number grouped as printed: 4-6-5 for American Express, else groups of four. */
export function formatCardNumber(raw: string): string {
  const d = onlyDigits(raw).slice(0, 19);
  if (cardBrand(d) === 'amex') return pattern(d.slice(0, 15), '9999 999999 99999');
  return d.replace(/(\d{4})(?=\d)/g, '$1 ');
}

/** MM/YY as typed: "12" stays (so backspace works), "123" becomes "12/3", a first digit 2-9 is a month "0d". */
export function formatExpiry(raw: string): string {
  let d = onlyDigits(raw).slice(0, 4);
  if (/^[2-9]/.test(d)) d = `0${d}`.slice(0, 4);
  return d.length <= 2 ? d : `${d.slice(0, 2)}/${d.slice(2)}`;
}

/** MM and the four-digit year of an MM/YY (or MM/YYYY) value, or null when it is not one. */
export function parseExpiry(value: string): { month: string; year: string } | null {
  const m = /^\s*(0[1-9]|1[0-2])\s*\/\s*(\d{2}|\d{4})\s*$/.exec(value);
  if (!m) return null;
  return { month: m[1]!, year: m[2]!.length === 2 ? `20${m[2]}` : m[2]! };
}

export const cvvLength = (brand: CardBrand | null) => (brand === 'amex' ? 4 : 3);
