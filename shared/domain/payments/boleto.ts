/**
 * Boleto bancário numbering (FEBRABAN "Layout Padrão de Arrecadação/Código de Barras", DESIGN.md 6):
 * the 44-digit barcode and the 47-digit typeable line (linha digitável) with their check digits.
 */
export interface BoletoInput {
  /** 3-digit bank code (e.g. '001', '237', '341'). */
  bankCode: string;
  /** Amount in centavos; at most 10 digits. */
  amountMinor: number;
  /** Due date; its UTC calendar day is used. */
  dueDate: Date;
  /** 25-digit bank-defined free field (campo livre). */
  freeField: string;
}
export interface Boleto {
  barcode: string;
  typeableLine: string;
}

const DAY_MS = 86_400_000;
const FACTOR_BASE = Date.UTC(1997, 9, 7); // factor 0 = 1997-10-07

/**
 * Due factor: days since 1997-10-07. It reached 9999 on 2025-02-21 and restarted at 1000 on
 * 2025-02-22; it cycles every 9000 days through 1000-9999.
 */
export function dueFactor(dueDate: Date): string {
  if (Number.isNaN(dueDate.getTime())) throw new RangeError('invalid due date');
  const day = Date.UTC(dueDate.getUTCFullYear(), dueDate.getUTCMonth(), dueDate.getUTCDate());
  const days = Math.round((day - FACTOR_BASE) / DAY_MS);
  if (days < 1000) throw new RangeError('due date before 2000-07-03 has no due factor');
  const factor = days <= 9999 ? days : ((days - 10_000) % 9000) + 1000;
  return String(factor);
}

/** Module 10 (typeable line fields): weights 2,1,2,... from the right, digits of products summed. */
export function mod10(digits: string): string {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let p = Number(digits[digits.length - 1 - i]) * (i % 2 === 0 ? 2 : 1);
    if (p > 9) p -= 9;
    sum += p;
  }
  return String((10 - (sum % 10)) % 10);
}

/** General barcode DV: module 11, weights 2-9 from the right, 11 - r; results 0, 10 and 11 become 1. */
export function barcodeDv(barcodeWithoutDv: string): string {
  let sum = 0;
  for (let i = 0; i < barcodeWithoutDv.length; i++) {
    sum += Number(barcodeWithoutDv[barcodeWithoutDv.length - 1 - i]) * ((i % 8) + 2);
  }
  const dv = 11 - (sum % 11);
  return dv === 0 || dv === 10 || dv === 11 ? '1' : String(dv);
}

/** 44-digit barcode → 47-digit typeable line (fields AAABC.CCCCX DDDDD.DDDDDY EEEEE.EEEEEZ K UUUUVVVVVVVVVV). */
export function barcodeToTypeableLine(barcode: string): string {
  if (!/^\d{44}$/.test(barcode)) throw new RangeError('barcode must be 44 digits');
  const free = barcode.slice(19);
  const f1 = barcode.slice(0, 4) + free.slice(0, 5);
  const f2 = free.slice(5, 15);
  const f3 = free.slice(15, 25);
  return f1 + mod10(f1) + f2 + mod10(f2) + f3 + mod10(f3) + barcode[4] + barcode.slice(5, 19);
}

/** The line as 47 digits without the usual dots and spaces, or null when it is not one. */
const lineDigits = (line: string): string | null => {
  const l = typeof line === 'string' ? line.replace(/[\s.]/g, '') : '';
  return /^\d{47}$/.test(l) ? l : null;
};

/** Fields 1-3 of the line: [start, end) of the data, the mod10 DV at `end`. */
const FIELDS = [
  [0, 9],
  [10, 20],
  [21, 31],
] as const;

/** Barcode of a 47-digit line, or why it is not a valid one. */
function decodeLine(l: string): { barcode: string } | { error: string } {
  const bad = FIELDS.findIndex(([a, b]) => mod10(l.slice(a, b)) !== l[b]);
  if (bad >= 0) return { error: `typeable line field ${bad + 1} check digit is wrong` };
  const barcode = l.slice(0, 4) + l[32] + l.slice(33, 47) + l.slice(4, 9) + l.slice(10, 20) + l.slice(21, 31);
  if (barcodeDv(barcode.slice(0, 4) + barcode.slice(5)) !== barcode[4]) return { error: 'typeable line general check digit is wrong' };
  return { barcode };
}

/**
 * 47-digit typeable line (digits only, or with the usual dots and spaces) → 44-digit barcode; the inverse of
 * barcodeToTypeableLine. Throws RangeError unless it has 47 digits and its three field DVs and general DV are right.
 */
export function typeableLineToBarcode(line: string): string {
  const l = lineDigits(line);
  if (!l) throw new RangeError('typeable line must be 47 digits');
  const r = decodeLine(l);
  if ('error' in r) throw new RangeError(r.error);
  return r.barcode;
}

export function buildBoleto(input: BoletoInput): Boleto {
  if (!/^\d{3}$/.test(input.bankCode)) throw new RangeError('bankCode must be 3 digits');
  if (!/^\d{25}$/.test(input.freeField)) throw new RangeError('freeField must be 25 digits');
  if (!Number.isSafeInteger(input.amountMinor) || input.amountMinor < 0 || input.amountMinor > 9_999_999_999) {
    throw new RangeError('amountMinor must be an integer from 0 to 9999999999');
  }
  const head = input.bankCode + '9'; // currency 9 = real
  const tail = dueFactor(input.dueDate) + String(input.amountMinor).padStart(10, '0') + input.freeField;
  const barcode = head + barcodeDv(head + tail) + tail;
  return { barcode, typeableLine: barcodeToTypeableLine(barcode) };
}

/** Accepts the line with or without the usual dots and spaces; checks the three field DVs and the general DV. */
export function isValidTypeableLine(line: string): boolean {
  const l = lineDigits(line);
  return l !== null && 'barcode' in decodeLine(l);
}

/**
 * The usual display form AAAAA.AAAAA BBBBB.BBBBBB CCCCC.CCCCCC D EEEEEEEEEEEEEE of a 47-digit line (dots and
 * spaces in the input are ignored; check digits are not verified). Throws RangeError unless it has 47 digits.
 */
export function formatTypeableLine(line: string): string {
  const l = lineDigits(line);
  if (!l) throw new RangeError('typeable line must be 47 digits');
  const field = (a: number, b: number, c: number) => `${l.slice(a, b)}.${l.slice(b, c)}`;
  return `${field(0, 5, 10)} ${field(10, 15, 21)} ${field(21, 26, 32)} ${l[32]} ${l.slice(33)}`;
}
