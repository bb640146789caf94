/** Card checks of the sandbox (SPEC.md 2.3, DESIGN.md 6). */
import { authorizationCode, cardBrand, lastFour, luhnValid, validateCard, type CardInput } from '../../shared/domain/payments/card';
import { luhnCheckDigit } from '../../shared/domain/payments/references';

const NOW = new Date('2026-05-15T12:00:00Z');
const card = (over: Partial<CardInput> = {}): CardInput => ({
  number: '4242424242424242',
  holder_name: 'Maria Silva',
  expiry_month: '12',
  expiry_year: '2030',
  cvv: '123',
  ...over,
});
const fields = (c: CardInput, now = NOW) => validateCard(c, now).map((e) => e.field);

/** Independent Luhn: double every second digit from the right. */
const luhnOracle = (n: string) =>
  [...n].reverse().reduce((s, c, i) => s + (i % 2 ? [0, 2, 4, 6, 8, 1, 3, 5, 7, 9][Number(c)]! : Number(c)), 0) % 10 === 0;

describe('luhn', () => {
  it('agrees with an independent implementation and with the check digit generator', () => {
    for (let i = 0; i < 2000; i++) {
      const n = String(4_000_000_000_000_000n + BigInt(i) * 7_919_111n);
      expect(luhnValid(n)).toBe(luhnOracle(n));
      const payload = n.slice(0, 15);
      expect(luhnOracle(payload + luhnCheckDigit(payload))).toBe(true);
    }
    expect(luhnValid('')).toBe(false);
    expect(luhnValid('4242 4242 4242 4242')).toBe(false);
  });
});

describe('card brand', () => {
  it.each([
    ['4242424242424242', 'visa'],
    ['5555555555554444', 'mastercard'],
    ['4000000000003220', 'visa'],
    ['4000000000000002', 'visa'],
    ['4000000000009995', 'visa'],
    ['4000000000000069', 'visa'],
    ['4000000000000127', 'visa'],
  ] as const)('DESIGN.md test card %s is Luhn-valid %s and passes validation', (number, brand) => {
    expect(luhnValid(number)).toBe(true);
    expect(cardBrand(number)).toBe(brand);
    expect(validateCard(card({ number }), NOW)).toEqual([]);
  });

  it('recognises Amex, Mastercard 2-series, Elo and Hipercard', () => {
    expect(cardBrand('378282246310005')).toBe('amex');
    expect(cardBrand('371449635398431')).toBe('amex');
    expect(cardBrand('2223003122003222')).toBe('mastercard');
    expect(cardBrand('2221000000000009')).toBe('mastercard');
    expect(cardBrand('2720990000000007')).toBe('mastercard');
    expect(cardBrand('2220990000000000')).toBeNull();
    expect(cardBrand('2721000000000000')).toBeNull();
    expect(cardBrand('6362970000457013')).toBe('elo');
    expect(cardBrand('6062825624254001')).toBe('hipercard');
    for (const n of ['6362970000457013', '6062825624254001', '2223003122003222']) {
      expect(luhnValid(n)).toBe(true);
      expect(validateCard(card({ number: n }), NOW)).toEqual([]);
    }
  });

  it('checks Elo and Hipercard BINs before Visa and Mastercard', () => {
    // Elo BINs that look like Visa (4...) and in ranges; Hipercard 3841xx.
    for (const bin of ['401178', '438935', '457632', '506699', '506778', '509000', '509999', '650031', '650598', '655058']) {
      expect([bin, cardBrand(`${bin}0000000000`)]).toEqual([bin, 'elo']);
    }
    for (const bin of ['650034', '650719', '655020', '506779', '401180']) {
      expect([bin, cardBrand(`${bin}0000000000`)]).not.toEqual([bin, 'elo']);
    }
    for (const bin of ['606282', '384100', '384140', '384160', '637095', '637568', '637599', '637609', '637612']) {
      expect([bin, cardBrand(`${bin}0000000000`)]).toEqual([bin, 'hipercard']);
    }
    expect(cardBrand('4011790000000000')).toBe('elo');
    expect(cardBrand('4011770000000000')).toBe('visa');
    expect(cardBrand('6011000000000004')).toBeNull(); // Discover: not accepted
  });
});

describe('validateCard', () => {
  it('Amex needs a 4-digit CVV, others 3', () => {
    const amex = card({ number: '378282246310005' });
    expect(fields({ ...amex, cvv: '123' })).toEqual(['card.cvv']);
    expect(validateCard({ ...amex, cvv: '1234' }, NOW)).toEqual([]);
    expect(fields(card({ cvv: '1234' }))).toEqual(['card.cvv']);
  });

  it.each([
    ['12-digit number', { number: '424242424242' }, 'card.number'],
    ['20-digit number', { number: '42424242424242424242' }, 'card.number'],
    ['number with spaces', { number: '4242 4242 4242 4242' }, 'card.number'],
    ['Luhn failure', { number: '4242424242424241' }, 'card.number'],
    ['unknown brand', { number: '6011000000000004' }, 'card.number'],
    ['Amex with 16 digits', { number: '3782822463100005' }, 'card.number'],
    ['2-digit CVV', { cvv: '12' }, 'card.cvv'],
    ['5-digit CVV', { cvv: '12345' }, 'card.cvv'],
    ['month 13', { expiry_month: '13' }, 'card.expiry_month'],
    ['month 00', { expiry_month: '00' }, 'card.expiry_month'],
    ['1-digit month', { expiry_month: '5' }, 'card.expiry_month'],
    ['2-digit year', { expiry_year: '30' }, 'card.expiry_year'],
    ['expired last year', { expiry_year: '2025' }, 'card.expiry_year'],
    ['expired last month', { expiry_year: '2026', expiry_month: '04' }, 'card.expiry_month'],
    ['more than 20 years ahead', { expiry_year: '2047' }, 'card.expiry_year'],
    ['1-letter holder name', { holder_name: 'M' }, 'card.holder_name'],
    ['blank holder name', { holder_name: '   ' }, 'card.holder_name'],
    ['101-letter holder name', { holder_name: 'M'.repeat(101) }, 'card.holder_name'],
  ] as const)('rejects a %s naming the field', (_label, over, field) => {
    const errors = validateCard(card(over), NOW);
    expect(errors.map((e) => e.field)).toEqual([field]);
    expect(errors[0]!.message).not.toContain('4242424242');
  });

  it('a card is valid through the end of its expiry month, and up to 20 years ahead', () => {
    expect(fields(card({ expiry_year: '2026', expiry_month: '05' }), new Date('2026-05-31T23:59:59Z'))).toEqual([]);
    expect(fields(card({ expiry_year: '2026', expiry_month: '05' }), new Date('2026-06-01T00:00:00Z'))).toEqual(['card.expiry_month']);
    expect(fields(card({ expiry_year: '2046', expiry_month: '12' }))).toEqual([]);
  });

  it('reports every bad field at once and survives missing fields', () => {
    expect(fields({ number: '1', holder_name: '', expiry_month: '', expiry_year: '', cvv: '' })).toEqual([
      'card.number',
      'card.expiry_month',
      'card.expiry_year',
      'card.cvv',
      'card.holder_name',
    ]);
    expect(fields({} as CardInput)).toHaveLength(5);
  });
});

describe('lastFour and authorizationCode', () => {
  it('lastFour', () => {
    expect(lastFour('4242424242424242')).toBe('4242');
    expect(lastFour('378282246310005')).toBe('0005');
  });

  it('authorizationCode is 6 uppercase alphanumerics, deterministic in its random source', () => {
    let counter = 0;
    const random = (n: number) => Buffer.from(Array.from({ length: n }, () => (counter++ * 37) % 256));
    const a = authorizationCode(random);
    expect(a).toMatch(/^[A-Z0-9]{6}$/);
    counter = 0;
    expect(authorizationCode(random)).toBe(a);
    expect(authorizationCode(() => Buffer.alloc(16, 0))).toBe('AAAAAA');
  });
});
