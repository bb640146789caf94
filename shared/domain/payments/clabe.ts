/**
 * CLABE (Clave Bancaria Estandarizada, Mexico/SPEI; SPEC.md 2.6, DESIGN.md 6): 18 digits =
 * bank (3) + branch/plaza (3) + account (11) + check digit (1).
 */

const WEIGHTS = [3, 7, 1] as const;

/** Check digit of the first 17 digits: weights 3,7,1 repeating, each product mod 10, then (10 - Σ mod 10) mod 10. */
export function clabeCheckDigit(first17: string): string {
  if (!/^\d{17}$/.test(first17)) throw new RangeError('CLABE check digit needs exactly 17 digits');
  let sum = 0;
  for (let i = 0; i < 17; i++) sum += (Number(first17[i]) * WEIGHTS[i % 3]!) % 10;
  return String((10 - (sum % 10)) % 10);
}

/** 18 digits with a matching check digit (bank and plaza codes are not checked against Banxico's lists). */
export function isValidClabe(clabe: string): boolean {
  return typeof clabe === 'string' && /^\d{18}$/.test(clabe) && clabeCheckDigit(clabe.slice(0, 17)) === clabe[17];
}

export function buildClabe(bankCode3: string, branch3: string, account11: string): string {
  if (!/^\d{3}$/.test(bankCode3)) throw new RangeError('bank code must be 3 digits');
  if (!/^\d{3}$/.test(branch3)) throw new RangeError('branch (plaza) code must be 3 digits');
  if (!/^\d{11}$/.test(account11)) throw new RangeError('account must be 11 digits');
  const first17 = bankCode3 + branch3 + account11;
  return first17 + clabeCheckDigit(first17);
}
