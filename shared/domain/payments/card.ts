/**
 * Card checks of the sandbox (SPEC.md 2.3, DESIGN.md 6): Luhn, brand by BIN, expiry, CVV, holder name.
 * Pure; the card number itself is never part of a message.
 */
import { luhnCheckDigit, randomChars, UPPER_ALNUM, type RandomBytes } from './references';

export type CardBrand = 'visa' | 'mastercard' | 'amex' | 'elo' | 'hipercard';

export interface CardInput {
  number: string;
  holder_name: string;
  expiry_month: string;
  expiry_year: string;
  cvv: string;
}
export interface CardFieldError {
  field: string;
  message: string;
}

export const luhnValid = (digits: string): boolean => /^\d{2,}$/.test(digits) && luhnCheckDigit(digits.slice(0, -1)) === digits.slice(-1);

type Range = readonly [number, number];
const r = (from: number, to = from): Range => [from, to];

/** Elo BINs (6 digits). */
const ELO: readonly Range[] = [
  r(401178),
  r(401179),
  r(431274),
  r(438935),
  r(451416),
  r(457393),
  r(457631),
  r(457632),
  r(504175),
  r(506699, 506778),
  r(509000, 509999),
  r(627780),
  r(636297),
  r(636368),
  r(650031, 650033),
  r(650035, 650051),
  r(650405, 650439),
  r(650485, 650538),
  r(650541, 650598),
  r(650700, 650718),
  r(650720, 650727),
  r(650901, 650920),
  r(651652, 651679),
  r(655000, 655019),
  r(655021, 655058),
];
/** Hipercard BINs (6 digits). */
const HIPERCARD: readonly Range[] = [r(606282), r(384100), r(384140), r(384160), r(637095), r(637568), r(637599), r(637609), r(637612)];
const inRanges = (bin: number, ranges: readonly Range[]) => ranges.some(([a, b]) => bin >= a && bin <= b);

/** Valid number lengths per brand. */
export const BRAND_LENGTHS: Readonly<Record<CardBrand, readonly number[]>> = {
  visa: [13, 16, 19],
  mastercard: [16],
  amex: [15],
  elo: [16],
  hipercard: [13, 16, 19],
};

/**
 * Brand by BIN. Elo and Hipercard come first: several of their BINs sit inside the Visa (4...)
 * and Mastercard-looking ranges.
 */
export function cardBrand(number: string): CardBrand | null {
  if (!/^\d{6,19}$/.test(number)) return null;
  const bin = Number(number.slice(0, 6));
  if (inRanges(bin, ELO)) return 'elo';
  if (inRanges(bin, HIPERCARD)) return 'hipercard';
  if (/^3[47]/.test(number)) return 'amex';
  const four = Number(number.slice(0, 4));
  if (/^5[1-5]/.test(number) || (four >= 2221 && four <= 2720)) return 'mastercard';
  if (number.startsWith('4')) return 'visa';
  return null;
}

/** Field errors of a card (empty when it passes), named `card.<field>` as in the API. */
export function validateCard(card: CardInput, now: Date): CardFieldError[] {
  const errors: CardFieldError[] = [];
  const add = (field: keyof CardInput, message: string) => errors.push({ field: `card.${field}`, message });
  const str = (v: unknown) => (typeof v === 'string' ? v : '');
  const number = str(card.number);
  const brand = cardBrand(number);

  const errorsBefore = errors.length;
  if (!/^\d{13,19}$/.test(number)) add('number', 'Card number must be 13 to 19 digits, without spaces.');
  else if (!luhnValid(number)) add('number', 'Card number is not valid: please check it.');
  else if (!brand) add('number', 'Card brand not supported (we accept Visa, Mastercard, American Express, Elo and Hipercard).');
  else if (!BRAND_LENGTHS[brand].includes(number.length)) add('number', 'Card number has the wrong length for its brand.');
  // The CVV length follows the brand only once the number itself is good.
  const knownBrand = errors.length === errorsBefore ? brand : null;

  const month = str(card.expiry_month);
  const year = str(card.expiry_year);
  const monthOk = /^(0[1-9]|1[0-2])$/.test(month);
  const yearOk = /^\d{4}$/.test(year);
  if (!monthOk) add('expiry_month', 'Expiry month must be 2 digits, 01 to 12.');
  if (!yearOk) add('expiry_year', 'Expiry year must be 4 digits (YYYY).');
  if (yearOk) {
    const y = Number(year);
    const nowYear = now.getUTCFullYear();
    const nowMonth = now.getUTCMonth() + 1;
    // A card is valid through the last day of its expiry month.
    if (y < nowYear) add('expiry_year', 'The card has expired.');
    else if (monthOk && y === nowYear && Number(month) < nowMonth) add('expiry_month', 'The card has expired.');
    else if (y > nowYear + 20) add('expiry_year', 'Expiry year is too far in the future.');
  }

  const cvv = str(card.cvv);
  const cvvRe = knownBrand === 'amex' ? /^\d{4}$/ : knownBrand ? /^\d{3}$/ : /^\d{3,4}$/;
  if (!cvvRe.test(cvv)) {
    add(
      'cvv',
      knownBrand === 'amex'
        ? 'CVV must be 4 digits for American Express.'
        : knownBrand
          ? 'CVV must be 3 digits.'
          : 'CVV must be 3 or 4 digits.',
    );
  }

  const holder = str(card.holder_name).trim();
  if (holder.length < 2 || holder.length > 100) add('holder_name', 'Cardholder name must be 2 to 100 characters.');
  return errors;
}

/** Last four digits, the only part of a card number we keep. */
export const lastFour = (number: string): string => number.replace(/\D/g, '').slice(-4);

/** Sandbox authorization code: 6 uppercase letters or digits. */
export const authorizationCode = (random: RandomBytes): string => randomChars(random, UPPER_ALNUM, 6);
