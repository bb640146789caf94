/**
 * Argentina's CBU (Clave Bancaria Uniforme, BCRA) and CVU (Clave Virtual Uniforme, for
 * payment-service-provider accounts): 22 digits in two blocks, each with a check digit.
 *
 *   block 1 (8 digits):  bank (3) + branch (4) + check digit; weights 7,1,3,9,7,1,3
 *   block 2 (14 digits): account (13) + check digit;         weights 3,9,7,1,3,9,7,1,3,9,7,1,3
 *   check digit = (10 - Σ digit·weight mod 10) mod 10
 *
 * A CVU uses the same algorithm; its "bank" is 000 and the next 4 digits identify the PSP.
 * Bank and branch codes are not checked against BCRA's lists.
 */

const BLOCK1_WEIGHTS = [7, 1, 3, 9, 7, 1, 3] as const;
const BLOCK2_WEIGHTS = [3, 9, 7, 1, 3, 9, 7, 1, 3, 9, 7, 1, 3] as const;

function checkDigit(digits: string, weights: readonly number[]): string {
  let sum = 0;
  for (let i = 0; i < weights.length; i++) sum += Number(digits[i]) * weights[i]!;
  return String((10 - (sum % 10)) % 10);
}

/** Check digit of block 1 from its first 7 digits (bank 3 + branch 4). */
export function cbuBlock1CheckDigit(first7: string): string {
  if (!/^\d{7}$/.test(first7)) throw new RangeError('CBU block 1 check digit needs exactly 7 digits');
  return checkDigit(first7, BLOCK1_WEIGHTS);
}

/** Check digit of block 2 from its first 13 digits (the account). */
export function cbuBlock2CheckDigit(first13: string): string {
  if (!/^\d{13}$/.test(first13)) throw new RangeError('CBU block 2 check digit needs exactly 13 digits');
  return checkDigit(first13, BLOCK2_WEIGHTS);
}

/** 22 digits whose two check digits match. True for CVUs too (same algorithm). */
export function isValidCbu(value: unknown): boolean {
  return (
    typeof value === 'string' &&
    /^\d{22}$/.test(value) &&
    cbuBlock1CheckDigit(value.slice(0, 7)) === value[7] &&
    cbuBlock2CheckDigit(value.slice(8, 21)) === value[21]
  );
}

/** A valid CBU-algorithm key whose entity code is 000 (a PSP's virtual account). */
export function isValidCvu(value: unknown): boolean {
  return isValidCbu(value) && (value as string).startsWith('000');
}

export function buildCbu(bank3: string, branch4: string, account13: string): string {
  if (!/^\d{3}$/.test(bank3)) throw new RangeError('bank code must be 3 digits');
  if (!/^\d{4}$/.test(branch4)) throw new RangeError('branch code must be 4 digits');
  if (!/^\d{13}$/.test(account13)) throw new RangeError('account must be 13 digits');
  const block1 = bank3 + branch4;
  return block1 + cbuBlock1CheckDigit(block1) + account13 + cbuBlock2CheckDigit(account13);
}

/** A CVU: entity 000, the PSP's 4-digit code, then the 13-digit account. */
export function buildCvu(psp4: string, account13: string): string {
  return buildCbu('000', psp4, account13);
}
