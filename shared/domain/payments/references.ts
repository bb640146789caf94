/**
 * Payment reference generators (DESIGN.md 6: CIP code, cash voucher, bank transfer reference, PIX txid).
 * Randomness is injected (`random(n)` returns n random bytes) so tests are deterministic.
 */
export type RandomBytes = (bytes: number) => Buffer;

export const DIGITS = '0123456789';
export const UPPER_ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
export const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** `length` characters drawn uniformly from `alphabet` (rejection sampling, no modulo bias). */
export function randomChars(random: RandomBytes, alphabet: string, length: number): string {
  if (alphabet.length < 2 || alphabet.length > 256) throw new RangeError('alphabet must have 2 to 256 characters');
  const limit = 256 - (256 % alphabet.length);
  let out = '';
  for (let round = 0; out.length < length; round++) {
    if (round > 64) throw new Error('random source keeps returning out-of-range bytes');
    for (const byte of random(length - out.length + 8)) {
      if (byte < limit) out += alphabet[byte % alphabet.length];
      if (out.length === length) break;
    }
  }
  return out;
}

/** The Luhn (mod 10) digit that makes `payload + digit` pass the Luhn check. */
export function luhnCheckDigit(payload: string): string {
  if (!/^\d*$/.test(payload)) throw new RangeError('Luhn payload must be digits');
  let sum = 0;
  for (let i = 0; i < payload.length; i++) {
    // Rightmost payload digit is doubled (it becomes second from the right once the check digit is appended).
    let d = Number(payload[payload.length - 1 - i]);
    if (i % 2 === 0) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return String((10 - (sum % 10)) % 10);
}

/** PagoEfectivo-style CIP: 8 digits, never starting with 0 (so it survives being read as a number). */
export const cipCode = (random: RandomBytes): string => randomChars(random, '123456789', 1) + randomChars(random, DIGITS, 7);

/** Cash voucher reference: 13 random digits plus a Luhn check digit (14), catching mistyped digits at the till. */
export function cashVoucherReference(random: RandomBytes): string {
  const payload = randomChars(random, '123456789', 1) + randomChars(random, DIGITS, 12);
  return payload + luhnCheckDigit(payload);
}

/** Bank transfer reference the payer writes in the transfer: 10 uppercase letters or digits. */
export const bankTransferReference = (random: RandomBytes): string => randomChars(random, UPPER_ALNUM, 10);

/** PIX transaction id: 25 alphanumeric characters, the BR Code maximum for field 62-05. */
export const pixTxid = (random: RandomBytes): string => randomChars(random, ALNUM, 25);
