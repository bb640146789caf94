/**
 * Boleto typeable line ↔ barcode: round trips on random barcodes, @mrmgomes/boleto-utils as an
 * independent oracle for both conversions and the display form, and check digits enforced.
 */
import {
  barcodeDv,
  barcodeToTypeableLine,
  formatTypeableLine,
  isValidTypeableLine,
  mod10,
  typeableLineToBarcode,
} from '../../shared/domain/payments/boleto';

/** @mrmgomes/boleto-utils ships no types (its .d.ts is not wired in package.json): the part we use. */
interface BoletoUtils {
  linhaDigitavel2CodBarras(line: string): string;
  codBarras2LinhaDigitavel(barcode: string, formatted: boolean): string;
  calculaDVCodBarras(code: string, position: number, mod: 10 | 11): number;
  calculaMod10(digits: string): number;
}
// eslint-disable-next-line @typescript-eslint/no-require-imports
const boletoUtils = require('@mrmgomes/boleto-utils') as BoletoUtils;

/** mulberry32: deterministic, so a failure names a reproducible case. */
function prng(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const rand = prng(20250222);
const digits = (n: number) => Array.from({ length: n }, () => String(Math.floor(rand() * 10))).join('');

/**
 * A random bank barcode: bank code (not starting with 8, which boleto-utils reads as a utility bill),
 * currency 9, the general DV from barcodeDv, due factor + amount and a free field.
 */
function randomBarcode(): string {
  const bank = '012345679'[Math.floor(rand() * 9)]! + digits(2);
  const rest = digits(39);
  const head = `${bank}9`;
  return head + barcodeDv(head + rest) + rest;
}
const barcodes = Array.from({ length: 500 }, randomBarcode);
const replaceAt = (s: string, i: number, c: string) => s.slice(0, i) + c + s.slice(i + 1);

describe('typeableLineToBarcode', () => {
  it('is the inverse of barcodeToTypeableLine on 500 random barcodes, and boleto-utils agrees both ways', () => {
    for (const barcode of barcodes) {
      const line = barcodeToTypeableLine(barcode);
      expect(line).toMatch(/^\d{47}$/);
      expect(typeableLineToBarcode(line)).toBe(barcode);
      expect(boletoUtils.linhaDigitavel2CodBarras(line)).toBe(barcode);
      expect(boletoUtils.codBarras2LinhaDigitavel(barcode, false)).toBe(line);
      expect(isValidTypeableLine(line)).toBe(true);
    }
  });

  it('accepts the display form and other dot/space layouts', () => {
    for (const barcode of barcodes.slice(0, 50)) {
      const line = barcodeToTypeableLine(barcode);
      expect(typeableLineToBarcode(formatTypeableLine(line))).toBe(barcode);
      expect(typeableLineToBarcode(` ${line.replace(/(\d{5})/g, '$1 ')}\n`)).toBe(barcode);
      expect(typeableLineToBarcode(line.replace(/(\d{3})/g, '$1.'))).toBe(barcode);
    }
  });

  it('reproduces a published boleto (boleto-utils README, Itaú)', () => {
    expect(typeableLineToBarcode('34192220090000556638551012140003679060000100000')).toBe('34196790600001000002220000005566385101214000');
    expect(typeableLineToBarcode('23790.44809 56168.623793 36011.058009 7 40430000124020')).toBe(
      boletoUtils.linhaDigitavel2CodBarras('23790448095616862379336011058009740430000124020'),
    );
  });

  it('throws RangeError when the line does not have 47 digits', () => {
    const line = barcodeToTypeableLine(barcodes[0]!);
    for (const bad of ['', line.slice(1), `${line}0`, replaceAt(line, 10, 'a'), line.replace(/\d{5}/, (m) => `${m}-`), barcodes[0]!]) {
      expect(() => typeableLineToBarcode(bad)).toThrow(RangeError);
      expect(isValidTypeableLine(bad)).toBe(false);
    }
    expect(() => typeableLineToBarcode(undefined as unknown as string)).toThrow(RangeError);
  });

  it('throws RangeError for every wrong value of each of the four check digits', () => {
    for (const barcode of barcodes.slice(0, 40)) {
      const line = barcodeToTypeableLine(barcode);
      for (const pos of [9, 20, 31, 32]) {
        for (let d = 0; d <= 9; d++) {
          if (String(d) === line[pos]) continue;
          const bad = replaceAt(line, pos, String(d));
          expect(() => typeableLineToBarcode(bad)).toThrow(pos === 32 ? /general check digit/ : /field \d check digit/);
          expect(isValidTypeableLine(bad)).toBe(false);
        }
      }
    }
  });

  it('throws for any single-digit change in the three fields (mod10 catches it)', () => {
    const line = barcodeToTypeableLine(barcodes[1]!);
    for (let pos = 0; pos < 31; pos++) {
      for (let delta = 1; delta <= 9; delta++) {
        const bad = replaceAt(line, pos, String((Number(line[pos]) + delta) % 10));
        expect(() => typeableLineToBarcode(bad)).toThrow(/field \d check digit/);
        expect([pos, delta, isValidTypeableLine(bad)]).toEqual([pos, delta, false]);
      }
    }
  });

  it('due factor and amount changes are caught by the general DV as boleto-utils computes it', () => {
    // boleto-utils maps module-11 remainders 0 and 1 to DV 0, FEBRABAN (and we) to 1, hence the mapping.
    let accepted = 0;
    for (const barcode of barcodes.slice(0, 30)) {
      const line = barcodeToTypeableLine(barcode);
      for (let pos = 33; pos < 47; pos++) {
        for (let delta = 1; delta <= 9; delta++) {
          const bad = replaceAt(line, pos, String((Number(line[pos]) + delta) % 10));
          const libDv = boletoUtils.calculaDVCodBarras(boletoUtils.linhaDigitavel2CodBarras(bad), 4, 11);
          const oracleValid = (libDv === 0 ? '1' : String(libDv)) === bad[32];
          expect([pos, delta, isValidTypeableLine(bad)]).toEqual([pos, delta, oracleValid]);
          if (oracleValid) {
            accepted++;
            expect(boletoUtils.codBarras2LinhaDigitavel(typeableLineToBarcode(bad), false)).toBe(bad);
          } else {
            expect(() => typeableLineToBarcode(bad)).toThrow(/general check digit/);
          }
        }
      }
    }
    // Remainders 0 and 1 share DV 1, so a few changes keep a valid line: FEBRABAN's DV cannot see them.
    expect(accepted).toBeLessThan(30 * 14 * 9 * 0.1);
  });

  it('field DVs agree with boleto-utils module 10', () => {
    for (let i = 0; i < 300; i++) {
      const s = digits(1 + (i % 12));
      expect([s, mod10(s)]).toEqual([s, String(boletoUtils.calculaMod10(s))]);
    }
  });
});

describe('formatTypeableLine', () => {
  it('groups AAAAA.AAAAA BBBBB.BBBBBB CCCCC.CCCCCC D EEEEEEEEEEEEEE, like boleto-utils', () => {
    expect(formatTypeableLine('34192220090000556638551012140003679060000100000')).toBe(
      '34192.22009 00005.566385 51012.140003 6 79060000100000',
    );
    for (const barcode of barcodes.slice(0, 100)) {
      const line = barcodeToTypeableLine(barcode);
      const shown = formatTypeableLine(line);
      expect(shown).toMatch(/^\d{5}\.\d{5} \d{5}\.\d{6} \d{5}\.\d{6} \d \d{14}$/);
      expect(shown).toBe(boletoUtils.codBarras2LinhaDigitavel(barcode, true));
      expect(formatTypeableLine(shown)).toBe(shown);
      expect(shown.replace(/\D/g, '')).toBe(line);
    }
  });

  it('throws RangeError unless the line has 47 digits', () => {
    for (const bad of ['', '123', '1'.repeat(46), '1'.repeat(48), `${'1'.repeat(46)}x`]) {
      expect(() => formatTypeableLine(bad)).toThrow(RangeError);
    }
  });
});
