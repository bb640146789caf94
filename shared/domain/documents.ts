/**
 * Identity documents of the countries we serve (SPEC.md 2.2, 2.6): format rules and check digits.
 * Pure functions; `normalized` is the value uppercased without spaces, dots, dashes and slashes.
 */
export type DocumentType = 'CPF' | 'CNPJ' | 'DNI' | 'RUT' | 'CURP' | 'CC' | 'CE' | 'RUC' | 'CUIT' | 'CI';
export const DOCUMENT_TYPES: readonly DocumentType[] = ['CPF', 'CNPJ', 'DNI', 'RUT', 'CURP', 'CC', 'CE', 'RUC', 'CUIT', 'CI'];
export type DocumentCountry = 'BRA' | 'PER' | 'COL' | 'CHL' | 'MEX' | 'ECU' | 'ARG';

export interface DocumentCheck {
  valid: boolean;
  normalized: string;
  message?: string;
}
export interface CustomerDocumentCheck extends DocumentCheck {
  type?: DocumentType;
}

export const normalizeDocument = (value: string): string => value.replace(/[\s.\-/]/g, '').toUpperCase();

const digits = (s: string) => [...s].map(Number);
const allSame = (s: string) => /^(.)\1*$/.test(s);
/** Σ value(c_i)·w_i over the characters of s (value = char code - 48, so '0'-'9' → 0-9 and 'A'-'Z' → 17-42). */
const weighted = (s: string, weights: readonly number[]) =>
  [...s].reduce((sum, c, i) => sum + (c.charCodeAt(0) - 48) * (weights[i] ?? 0), 0);
/** The usual "11 - r, with 10 and 11 → 0" modulo-11 digit of CPF and CNPJ. */
const mod11Digit = (sum: number) => {
  const r = sum % 11;
  return r < 2 ? 0 : 11 - r;
};

export function cpfCheckDigits(first9: string): string {
  const d1 = mod11Digit(weighted(first9, [10, 9, 8, 7, 6, 5, 4, 3, 2]));
  const d2 = mod11Digit(weighted(first9 + d1, [11, 10, 9, 8, 7, 6, 5, 4, 3, 2]));
  return `${d1}${d2}`;
}

/** CNPJ, numeric or the alphanumeric form of RFB Nota Técnica 49/2024 (12 of [0-9A-Z], 2 numeric check digits). */
export function cnpjCheckDigits(first12: string): string {
  const w1 = [5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2];
  const d1 = mod11Digit(weighted(first12, w1));
  const d2 = mod11Digit(weighted(first12 + d1, [6, ...w1]));
  return `${d1}${d2}`;
}

/** Chile RUT/RUN verifier: weights 2..7 from the right, 11 - Σ mod 11, 11 → '0', 10 → 'K'. */
export function rutVerifier(body: string): string {
  const sum = [...body].reverse().reduce((s, c, i) => s + Number(c) * ((i % 6) + 2), 0);
  const v = 11 - (sum % 11);
  return v === 11 ? '0' : v === 10 ? 'K' : String(v);
}

/** Peru RUC and Argentina CUIT/CUIL share the weights 5,4,3,2,7,6,5,4,3,2 and 11 - Σ mod 11. */
const w5432 = [5, 4, 3, 2, 7, 6, 5, 4, 3, 2];
const rucDigit = (first10: string) => (11 - (weighted(first10, w5432) % 11)) % 10; // 10 → 0, 11 → 1
const cuitDigit = (first10: string) => {
  const v = 11 - (weighted(first10, w5432) % 11);
  return v === 11 ? 0 : v;
}; // 10: never issued
/** Argentina: 20/23/24/25/26/27 people, 30/33/34 companies, 50/51/55 foreign ("CUIT país"). */
const CUIT_PREFIXES = new Set(['20', '23', '24', '25', '26', '27', '30', '33', '34', '50', '51', '55']);

/** The 32 state codes of a CURP (and NE, born abroad). */
const CURP_STATES = 'AS|B[CS]|C[CLMSH]|D[FG]|G[TR]|HG|JC|M[CNS]|N[ETL]|OC|PL|Q[TR]|S[PLR]|T[CSL]|VZ|YN|ZS|NE';
const CURP_RE = new RegExp(
  '^[A-Z][AEIOUX][A-Z]{2}' + // initials
    '\\d{2}(0[1-9]|1[0-2])(0[1-9]|[12]\\d|3[01])' + // birth date YYMMDD
    `[HMX](${CURP_STATES})` + // sex, state
    '[B-DF-HJ-NP-TV-Z]{3}[A-Z\\d]\\d$', // inner consonants, homonym digit, check digit
);
const CURP_ALPHABET = '0123456789ABCDEFGHIJKLMNÑOPQRSTUVWXYZ';
/** RENAPO: Σ value·(18 - i) over the first 17 characters, digit = (10 - Σ mod 10) mod 10. */
export function curpCheckDigit(first17: string): string {
  const sum = [...first17].reduce((s, c, i) => s + CURP_ALPHABET.indexOf(c) * (18 - i), 0);
  return String((10 - (sum % 10)) % 10);
}
/** Birth date encoded in a CURP; the 17th character is a digit for 19xx births and a letter for 20xx. */
function curpDateValid(curp: string): boolean {
  const century = /\d/.test(curp[16] ?? '') ? 1900 : 2000;
  const [y, m, d] = [century + Number(curp.slice(4, 6)), Number(curp.slice(6, 8)), Number(curp.slice(8, 10))];
  const date = new Date(Date.UTC(y, m - 1, d));
  return date.getUTCFullYear() === y && date.getUTCMonth() === m - 1 && date.getUTCDate() === d;
}

/** Ecuador cédula: province 01-24 or 30, third digit < 6, coefficients 2,1,2,... (products > 9 minus 9), mod 10. */
export function ecuadorCiCheckDigit(first9: string): number {
  const sum = digits(first9).reduce((s, d, i) => {
    const p = d * (i % 2 === 0 ? 2 : 1);
    return s + (p > 9 ? p - 9 : p);
  }, 0);
  return (10 - (sum % 10)) % 10;
}

const ok = (normalized: string): DocumentCheck => ({ valid: true, normalized });
const bad = (normalized: string, message: string): DocumentCheck => ({ valid: false, normalized, message });

/**
 * Validates a document of the given type. `country` only matters for 'DNI': Peru's has exactly 8 digits,
 * Argentina's 7 or 8 (the default, without a country, accepts both).
 */
export function validateDocument(type: DocumentType, value: string, country?: DocumentCountry): DocumentCheck {
  const raw = typeof value === 'string' ? value.trim() : '';
  const n = normalizeDocument(raw);
  if (n === '') return bad(n, `Enter the ${type} number.`);
  switch (type) {
    case 'CPF':
      if (!/^\d{11}$/.test(n)) return bad(n, 'A CPF has 11 digits.');
      if (allSame(n) || cpfCheckDigits(n.slice(0, 9)) !== n.slice(9)) return bad(n, 'This CPF is not valid: please check the number.');
      return ok(n);
    case 'CNPJ':
      if (!/^[\dA-Z]{12}\d{2}$/.test(n)) return bad(n, 'A CNPJ has 14 characters (the last 2 are digits).');
      if (allSame(n) || cnpjCheckDigits(n.slice(0, 12)) !== n.slice(12)) return bad(n, 'This CNPJ is not valid: please check the number.');
      return ok(n);
    case 'RUT': {
      // 12.345.678-5, 12345678-5 or 123456785; body of 6 to 8 digits without leading zero, verifier 0-9 or K.
      if (!/^[1-9]\d{0,2}(\.?\d{3}){1,2}-?[\dkK]$/.test(raw) || !/^[1-9]\d{5,7}[\dK]$/.test(n)) {
        return bad(n, 'A RUT looks like 12.345.678-5: 6 to 8 digits and a verifier (0-9 or K).');
      }
      return rutVerifier(n.slice(0, -1)) === n.slice(-1) ? ok(n) : bad(n, 'This RUT is not valid: the verifier digit does not match.');
    }
    case 'DNI': {
      const re = country === 'PER' ? /^\d{8}$/ : /^\d{7,8}$/;
      return re.test(n) ? ok(n) : bad(n, country === 'PER' ? 'A DNI has 8 digits.' : 'A DNI has 7 or 8 digits.');
    }
    case 'RUC':
      if (!/^(10|15|17|20)\d{9}$/.test(n)) return bad(n, 'A RUC has 11 digits and starts with 10, 15, 17 or 20.');
      return rucDigit(n.slice(0, 10)) === Number(n[10]) ? ok(n) : bad(n, 'This RUC is not valid: please check the number.');
    case 'CUIT':
      if (!/^\d{11}$/.test(n) || !CUIT_PREFIXES.has(n.slice(0, 2))) return bad(n, 'A CUIT/CUIL has 11 digits, like 20-12345678-6.');
      return cuitDigit(n.slice(0, 10)) === Number(n[10]) ? ok(n) : bad(n, 'This CUIT/CUIL is not valid: please check the number.');
    case 'CURP':
      if (!CURP_RE.test(n) || !curpDateValid(n)) return bad(n, 'A CURP has 18 characters, like BOXW310820HNERXN09.');
      return curpCheckDigit(n.slice(0, 17)) === n[17] ? ok(n) : bad(n, 'This CURP is not valid: please check the last character.');
    case 'CC':
      return /^[1-9]\d{5,9}$/.test(n) ? ok(n) : bad(n, 'A cédula de ciudadanía has 6 to 10 digits.');
    case 'CE':
      // Colombia's cédula de extranjería: historically 6-7 digits; newer Migración Colombia documents are longer
      // and some carry letters, so we accept 6 to 12 letters or digits with at least one digit.
      return /^(?=.*\d)[A-Z\d]{6,12}$/.test(n) ? ok(n) : bad(n, 'A cédula de extranjería has 6 to 12 letters or digits.');
    case 'CI':
      if (!/^\d{10}$/.test(n)) return bad(n, 'A cédula has 10 digits.');
      {
        const province = Number(n.slice(0, 2));
        if (!((province >= 1 && province <= 24) || province === 30) || Number(n[2]) >= 6) {
          return bad(n, 'This cédula is not valid: please check the number.');
        }
      }
      return ecuadorCiCheckDigit(n.slice(0, 9)) === Number(n[9]) ? ok(n) : bad(n, 'This cédula is not valid: please check the number.');
    default:
      return bad(n, `Unsupported document type ${String(type)}.`);
  }
}

/** Which document types a customer of each country may give, and how to tell them apart by shape. */
const CUSTOMER_RULES: Record<DocumentCountry, { pick: (n: string) => DocumentType | undefined; hint: string }> = {
  BRA: {
    pick: (n) => (n.length === 11 ? 'CPF' : n.length === 14 ? 'CNPJ' : undefined),
    hint: 'Enter a CPF (11 digits) or a CNPJ (14 characters).',
  },
  PER: {
    pick: (n) => (n.length === 8 ? 'DNI' : n.length === 11 ? 'RUC' : undefined),
    hint: 'Enter a DNI (8 digits) or a RUC (11 digits).',
  },
  COL: {
    pick: (n) => (/^\d{6,10}$/.test(n) ? 'CC' : /^[\dA-Z]{6,12}$/.test(n) ? 'CE' : undefined),
    hint: 'Enter a cédula de ciudadanía (6 to 10 digits) or de extranjería.',
  },
  CHL: { pick: () => 'RUT', hint: 'Enter a RUT, like 12.345.678-5.' },
  MEX: { pick: () => 'CURP', hint: 'Enter a CURP (18 characters).' },
  ECU: { pick: () => 'CI', hint: 'Enter a cédula (10 digits).' },
  ARG: {
    pick: (n) => (n.length === 7 || n.length === 8 ? 'DNI' : n.length === 11 ? 'CUIT' : undefined),
    hint: 'Enter a DNI (7 or 8 digits) or a CUIT/CUIL (11 digits).',
  },
};

/**
 * Validates a customer's document for the country, choosing the type by its shape (e.g. 11 digits in
 * Brazil is a CPF, 14 a CNPJ). `type` is set whenever the shape identifies one, even if the check fails.
 */
export function validateCustomerDocument(country: DocumentCountry, value: string): CustomerDocumentCheck {
  const rule = CUSTOMER_RULES[country];
  const n = normalizeDocument(typeof value === 'string' ? value : '');
  if (!rule) return { valid: false, normalized: n, message: `Unsupported country ${String(country)}.` };
  const type = n === '' ? undefined : rule.pick(n);
  if (!type) return { valid: false, normalized: n, message: rule.hint };
  // COL: a purely numeric value that fails as a CC may still be a valid CE.
  const check = validateDocument(type, value, country);
  if (!check.valid && country === 'COL' && type === 'CC') {
    const ce = validateDocument('CE', value, country);
    if (ce.valid) return { ...ce, type: 'CE' };
  }
  return { ...check, type };
}

/** '***' + the last 3 characters of the normalized document; just '***' when it has fewer than 5. */
export function maskDocument(value: string): string {
  const n = normalizeDocument(typeof value === 'string' ? value : '');
  return n.length < 5 ? '***' : `***${n.slice(-3)}`;
}
