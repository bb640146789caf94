/**
 * Input masks of the hosted page, applied as the shopper types. Pure string functions (no DOM).
 * Document masks only add the punctuation the document shows on paper (dots, dashes, slash) and
 * drop what it cannot contain, so normalizeDocument(formatDocument(c, x)) is what the shopper typed
 * (normalized) for every document validateCustomerDocument accepts.
 */
import type { CountryCode } from '../../../../domain/geo';
import { cardBrand, type CardBrand } from '../../../../domain/payments/card';

const onlyDigits = (v: string) => v.replace(/\D/g, '');
const alnum = (v: string) => v.toUpperCase().replace(/[^0-9A-Z]/g, '');

/** Lays `chars` over a shape where 9 is a slot, stopping after the last typed character. */
function pattern(chars: string, shape: string): string {
  let out = '';
  let i = 0;
  for (const c of shape) {
    if (i >= chars.length) break;
    out += c === '9' ? chars[i++] : c;
  }
  return out;
}

/** Brazil: CPF (11 digits) or CNPJ (14; the first 12 may be letters, RFB NT 49/2024, the last 2 are digits). */
function brazil(raw: string): string {
  let v = '';
  for (const c of alnum(raw)) {
    if (v.length === 14) break;
    if (/\d/.test(c) || v.length < 12) v += c;
  }
  return v.length <= 11 && /^\d*$/.test(v) ? pattern(v, '999.999.999-99') : pattern(v, '99.999.999/9999-99');
}

/** Chile RUT: body of up to 8 digits grouped by thousands, a dash, then the verifier (0-9 or K, last only). */
function chile(raw: string): string {
  const v = raw
    .toUpperCase()
    .replace(/[^0-9K]/g, '')
    .replace(/K(?!$)/g, '')
    .slice(0, 9);
  if (v.length < 2) return v;
  return `${v.slice(0, -1).replace(/\B(?=(\d{3})+(?!\d))/g, '.')}-${v.slice(-1)}`;
}

/**
 * The customer document as typed, punctuated the way it is written:
 * BRA 000.000.000-00 / 00.000.000/0000-00, CHL 12.345.678-K, ARG DNI plain, CUIT 20-12345678-6 (more than
 * 8 digits), MEX CURP uppercase, COL cédula (letters too: cédula de extranjería), PER DNI/RUC and ECU digits.
 */
export function formatDocument(country: CountryCode, raw: string): string {
  switch (country) {
    case 'BRA':
      return brazil(raw);
    case 'CHL':
      return chile(raw);
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

const PLACEHOLDERS: Readonly<Record<CountryCode, string>> = {
  BRA: '000.000.000-00',
  CHL: '00.000.000-0',
  ARG: '00-00000000-0',
  MEX: 'AAAA000000AAAAAA00',
  COL: '0000000000',
  PER: '00000000',
  ECU: '0000000000',
};

/** The shape of the country's usual document, as formatDocument writes it (0 a digit, A a letter), for a placeholder. */
export const documentPlaceholder = (country: CountryCode): string => PLACEHOLDERS[country];

/** Card number grouped as printed: 4-6-5 for American Express (15 digits), else 4-4-4-4-3 (up to 19). */
export function formatCardNumber(raw: string): string {
  const d = onlyDigits(raw).slice(0, 19);
  // cardBrand needs 6 digits; padding lets the Amex grouping start from the second digit typed.
  if (cardBrand(d.padEnd(6, '0')) === 'amex') return pattern(d.slice(0, 15), '9999 999999 99999');
  return d.replace(/(\d{4})(?=\d)/g, '$1 ');
}

/**
 * MM/YY as typed: "1" → "1", "12" → "12/", "123" → "12/3"; a first digit 2-9 is a month "0d/", as is
 * "1" followed by 3-9 ("13" → "01/3") or a single digit followed by "/" ("1/" → "01/"); "12/2030" → "12/30".
 * Pass the field's `previous` value to keep backspace working: when the input got shorter (a deletion),
 * the trailing slash is not added back ("12/" deleted to "12" stays "12").
 */
export function formatExpiry(raw: string, previous?: string): string {
  const full = /^\s*(\d{1,2})\s*\/\s*\d{2}(\d{2})\s*$/.exec(raw); // a pasted or autofilled MM/YYYY
  let d = full ? full[1]! + full[2]! : onlyDigits(raw);
  if (/^\d\//.test(raw.trim()) || /^[2-9]/.test(d) || /^1[3-9]/.test(d)) d = `0${d}`;
  d = d.slice(0, 4);
  if (d.length < 2) return d;
  const deleting = previous !== undefined && raw.length < previous.length;
  if (d.length === 2 && deleting && !raw.includes('/')) return d;
  return `${d.slice(0, 2)}/${d.slice(2)}`;
}

/** MM and the four-digit year (20YY) of an MM/YY (or MM/YYYY) value, or null when it is not one. */
export function parseExpiry(value: string): { month: string; year: string } | null {
  const m = /^\s*(0[1-9]|1[0-2])\s*\/\s*(\d{2}|\d{4})\s*$/.exec(value);
  if (!m) return null;
  return { month: m[1]!, year: m[2]!.length === 2 ? `20${m[2]}` : m[2]! };
}

/** CVV digits: 4 for American Express, else 3. */
export const cvvLength = (brand: CardBrand | null): number => (brand === 'amex' ? 4 : 3);
