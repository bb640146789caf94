/** Payment reference generators with injected randomness (DESIGN.md 6). */
import { createHash } from 'node:crypto';
import { luhnValid } from '../../shared/domain/payments/card';
import {
  bankTransferReference,
  cashVoucherReference,
  cipCode,
  luhnCheckDigit,
  pixTxid,
  randomChars,
  UPPER_ALNUM,
} from '../../shared/domain/payments/references';

function seeded(seed: string) {
  let counter = 0;
  return (n: number): Buffer => {
    const chunks: Buffer[] = [];
    for (let len = 0; len < n; len += 32) chunks.push(createHash('sha256').update(`${seed}:${counter++}`).digest());
    return Buffer.concat(chunks).subarray(0, n);
  };
}

describe('reference generators', () => {
  it.each([
    ['cipCode', cipCode, /^[1-9]\d{7}$/],
    ['cashVoucherReference', cashVoucherReference, /^[1-9]\d{13}$/],
    ['bankTransferReference', bankTransferReference, /^[A-Z0-9]{10}$/],
    ['pixTxid', pixTxid, /^[A-Za-z0-9]{25}$/],
  ] as const)('%s has its shape, is deterministic in its random source and varies with it', (_name, gen, shape) => {
    const values = Array.from({ length: 200 }, (_, i) => gen(seeded(`s${i}`)));
    for (const v of values) expect(v).toMatch(shape);
    expect(new Set(values).size).toBe(values.length);
    expect(gen(seeded('s7'))).toBe(values[7]);
  });

  it('cash voucher references carry a Luhn check digit that catches a mistyped digit', () => {
    for (let i = 0; i < 200; i++) {
      const ref = cashVoucherReference(seeded(`v${i}`));
      expect(luhnValid(ref)).toBe(true);
      const pos = i % 14;
      const typo = ref.slice(0, pos) + String((Number(ref[pos]) + 1 + (i % 9)) % 10) + ref.slice(pos + 1);
      expect(luhnValid(typo)).toBe(false);
    }
    expect(luhnCheckDigit('7992739871')).toBe('3'); // the classic Luhn example 79927398713
  });
});

describe('randomChars', () => {
  it('maps each accepted byte value to the alphabet evenly (no modulo bias) and skips the rest', () => {
    const all = Buffer.from([...Array(256).keys()]);
    let served = false;
    const once = (n: number) => {
      if (served) return Buffer.alloc(n, 0);
      served = true;
      return all;
    };
    const s = randomChars(once, UPPER_ALNUM, 252); // 256 - 256 % 36 = 252 accepted byte values
    const counts = new Map<string, number>();
    for (const c of s) counts.set(c, (counts.get(c) ?? 0) + 1);
    expect(counts.size).toBe(36);
    expect([...counts.values()].every((n) => n === 7)).toBe(true);
  });

  it('asks for more bytes when some are rejected, and gives up on a broken source', () => {
    const calls: number[] = [];
    const src = (n: number) => {
      calls.push(n);
      return calls.length === 1 ? Buffer.from([252, 1, ...Array<number>(n - 2).fill(255)]) : Buffer.from([2, 3, 4, 5].slice(0, n));
    };
    expect(randomChars(src, UPPER_ALNUM, 3)).toBe('BCD');
    expect(calls).toEqual([11, 10]);
    expect(() => randomChars((n) => Buffer.alloc(n, 255), UPPER_ALNUM, 3)).toThrow();
  });
});
