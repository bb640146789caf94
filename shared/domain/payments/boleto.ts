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
export interface Boleto { barcode: string; typeableLine: string }

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

/** 47-digit typeable line → 44-digit barcode (check digits of the line are dropped, not checked). */
export function typeableLineToBarcode(line: string): string {
  const l = line.replace(/[\s.]/g, '');
  if (!/^\d{47}$/.test(l)) throw new RangeError('typeable line must be 47 digits');
  return l.slice(0, 4) + l[32] + l.slice(33, 47) + l.slice(4, 9) + l.slice(10, 20) + l.slice(21, 31);
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
  if (typeof line !== 'string') return false;
  const l = line.replace(/[\s.]/g, '');
  if (!/^\d{47}$/.test(l)) return false;
  const fieldsOk = [[0, 9], [10, 20], [21, 31]].every(([a, b]) => mod10(l.slice(a, b)) === l[b!]);
  if (!fieldsOk) return false;
  const barcode = typeableLineToBarcode(l);
  return barcodeDv(barcode.slice(0, 4) + barcode.slice(5)) === barcode[4];
}

/** The usual display form: AAABC.CCCCX DDDDD.DDDDDY EEEEE.EEEEEZ K UUUUVVVVVVVVVV. */
export function formatTypeableLine(line: string): string {
  const l = line.replace(/[\s.]/g, '');
  return `${l.slice(0, 5)}.${l.slice(5, 10)} ${l.slice(10, 15)}.${l.slice(15, 21)} ${l.slice(21, 26)}.${l.slice(26, 32)} ${l[32]} ${l.slice(33)}`;
}
