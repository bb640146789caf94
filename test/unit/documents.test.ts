/** Identity documents: our check digits against independent implementations (cpf-cnpj-validator, rut.js) and published examples. */
import { createHash } from 'node:crypto';
import { cnpj, cpf } from 'cpf-cnpj-validator';
import * as rutjs from 'rut.js';
import {
  cnpjCheckDigits,
  cpfCheckDigits,
  curpCheckDigit,
  ecuadorCiCheckDigit,
  maskDocument,
  rutVerifier,
  validateCustomerDocument,
  validateDocument,
  type DocumentType,
} from '../../shared/domain/documents';

/** Deterministic digit strings. */
function digitsFrom(seed: string, length: number): string {
  const hex = createHash('sha256').update(seed).digest('hex') + createHash('sha256').update(`${seed}+`).digest('hex');
  return [...hex]
    .map((c) => String(parseInt(c, 16) % 10))
    .join('')
    .slice(0, length);
}
/** The same string with its last digit replaced by a different one. */
const wrongLast = (s: string) => s.slice(0, -1) + String((Number(s.slice(-1)) + 1) % 10);
const valid = (type: DocumentType, v: string) => validateDocument(type, v).valid;

describe('CPF (oracle: cpf-cnpj-validator)', () => {
  it('accepts every CPF the oracle generates, formatted or not, and normalizes to 11 digits', () => {
    for (let i = 0; i < 200; i++) {
      const raw = cpf.generate();
      expect(validateDocument('CPF', raw)).toEqual({ valid: true, normalized: raw });
      const formatted = cpf.format(raw);
      expect(formatted).toMatch(/^\d{3}\.\d{3}\.\d{3}-\d{2}$/);
      expect(validateDocument('CPF', formatted)).toEqual({ valid: true, normalized: raw });
    }
  });

  it('computes check digits the oracle accepts, and both reject a wrong last digit', () => {
    for (let i = 0; i < 200; i++) {
      const base = digitsFrom(`cpf${i}`, 9);
      const doc = base + cpfCheckDigits(base);
      if (/^(.)\1*$/.test(doc)) continue;
      expect(cpf.isValid(doc)).toBe(true);
      expect(valid('CPF', doc)).toBe(true);
      expect(cpf.isValid(wrongLast(doc))).toBe(false);
      expect(valid('CPF', wrongLast(doc))).toBe(false);
    }
  });

  it('agrees with the oracle on arbitrary 11-digit strings and all-same-digit ones', () => {
    const samples = [...Array(500).keys()].map((i) => digitsFrom(`any-cpf${i}`, 11));
    samples.push(...[...'0123456789'].map((d) => d.repeat(11)));
    for (const s of samples) expect([s, valid('CPF', s)]).toEqual([s, cpf.isValid(s)]);
    expect(valid('CPF', '111.111.111-11')).toBe(false);
  });

  it('accepts the sandbox payout documents of DESIGN.md 6 as CPFs', () => {
    for (const d of ['00000000191', '00000000272', '00000000353', '00000000434']) {
      expect(valid('CPF', d)).toBe(true);
      expect(cpf.isValid(d)).toBe(true);
    }
  });

  it('rejects wrong lengths and letters with a message', () => {
    for (const s of ['', '1234567890', '123456789012', '1234567890A']) {
      const r = validateDocument('CPF', s);
      expect(r.valid).toBe(false);
      expect(r.message).toEqual(expect.any(String));
    }
  });
});

describe('CNPJ (oracle: cpf-cnpj-validator, numeric and RFB 49/2024 alphanumeric)', () => {
  it('accepts every CNPJ the oracle generates (alphanumeric), formatted or not', () => {
    for (let i = 0; i < 200; i++) {
      const raw = cnpj.generate();
      expect(validateDocument('CNPJ', raw)).toEqual({ valid: true, normalized: raw });
      expect(validateDocument('CNPJ', cnpj.format(raw))).toEqual({ valid: true, normalized: raw });
      expect(validateDocument('CNPJ', raw.toLowerCase())).toEqual({ valid: true, normalized: raw });
    }
    expect(validateDocument('CNPJ', '54.550.752/0001-55')).toEqual({ valid: true, normalized: '54550752000155' });
    expect(valid('CNPJ', '12.ABC.345/01DE-35')).toBe(true);
  });

  it('computes check digits the oracle accepts, and both reject a wrong last digit', () => {
    for (let i = 0; i < 200; i++) {
      const base = digitsFrom(`cnpj${i}`, 12);
      const doc = base + cnpjCheckDigits(base);
      expect(cnpj.isValid(doc)).toBe(true);
      expect(valid('CNPJ', doc)).toBe(true);
      expect(cnpj.isValid(wrongLast(doc))).toBe(false);
      expect(valid('CNPJ', wrongLast(doc))).toBe(false);
    }
  });

  it('agrees with the oracle on arbitrary 14-digit strings and all-same-digit ones', () => {
    const samples = [...Array(500).keys()].map((i) => digitsFrom(`any-cnpj${i}`, 14));
    samples.push(...[...'0123456789'].map((d) => d.repeat(14)));
    for (const s of samples) expect([s, valid('CNPJ', s)]).toEqual([s, cnpj.isValid(s)]);
  });
});

describe('RUT (oracle: rut.js)', () => {
  it('computes the verifier rut.js computes, K included, and validates like rut.js in every written form', () => {
    let sawK = false;
    for (let i = 0; i < 300; i++) {
      const body = String((Number(digitsFrom(`rut${i}`, 8)) % 99_000_000) + 1_000_000);
      const v = rutVerifier(body);
      expect(v).toBe(rutjs.getCheckDigit(body));
      sawK ||= v === 'K';
      const good = body + v;
      for (const form of [good, rutjs.format(good), rutjs.format(good, { dots: false }), rutjs.format(good).toLowerCase()]) {
        expect([form, validateDocument('RUT', form)]).toEqual([form, { valid: true, normalized: good }]);
        expect(rutjs.validate(form)).toBe(true);
      }
      const bad = body + (v === '0' ? '1' : '0');
      expect(valid('RUT', rutjs.format(bad))).toBe(false);
      expect(rutjs.validate(rutjs.format(bad))).toBe(false);
    }
    expect(sawK).toBe(true);
  });

  it('rejects malformed RUTs', () => {
    for (const s of ['', '12.34.5678-5', '012.345.678-5', '12345-6', '123.456.789-0', '12.345.678-A']) {
      expect([s, valid('RUT', s)]).toEqual([s, false]);
    }
  });
});

describe('Peru, Argentina, Mexico, Colombia, Ecuador', () => {
  it('DNI: 8 digits in Peru, 7 or 8 in Argentina', () => {
    expect(validateDocument('DNI', '12345678', 'PER')).toEqual({ valid: true, normalized: '12345678' });
    expect(validateDocument('DNI', '1234567', 'PER').valid).toBe(false);
    expect(validateDocument('DNI', '12.345.678', 'ARG')).toEqual({ valid: true, normalized: '12345678' });
    expect(validateDocument('DNI', '1234567', 'ARG').valid).toBe(true);
    expect(validateDocument('DNI', '123456', 'ARG').valid).toBe(false);
    expect(validateDocument('DNI', '123456789').valid).toBe(false);
  });

  it('RUC: published examples, prefixes and check digit', () => {
    // python-stdnum pe.ruc doctests.
    expect(valid('RUC', '20512333797')).toBe(true);
    expect(valid('RUC', '20512333798')).toBe(false);
    expect(valid('RUC', '10054148289')).toBe(true);
    expect(validateDocument('RUC', '30512333797').message).toMatch(/starts with 10, 15, 17 or 20/);
    expect(valid('RUC', '2051233379')).toBe(false);
  });

  it('CUIT/CUIL: published examples and check digit', () => {
    // python-stdnum ar.cuit doctests.
    expect(validateDocument('CUIT', '20-05536168-2')).toEqual({ valid: true, normalized: '20055361682' });
    expect(valid('CUIT', '20267565393')).toBe(true);
    expect(valid('CUIT', '20267565392')).toBe(false);
    expect(valid('CUIT', '2026756539')).toBe(false);
    expect(valid('CUIT', '00000000000')).toBe(false);
  });

  it('CURP: regex, birth date and check digit', () => {
    expect(validateDocument('CURP', 'boxw310820hnerxn09')).toEqual({ valid: true, normalized: 'BOXW310820HNERXN09' }); // python-stdnum
    expect(valid('CURP', 'BOXW310820HNERXN08')).toBe(false);
    const withDigit = (first17: string) => first17 + curpCheckDigit(first17);
    expect(valid('CURP', withDigit('GODE561231HDFRRN0'))).toBe(true);
    expect(valid('CURP', withDigit('GODE560231HDFRRN0'))).toBe(false); // 31 February
    expect(valid('CURP', withDigit('GODE561231HXXRRN0'))).toBe(false); // no such state
    expect(valid('CURP', withDigit('GODE561231ZDFRRN0'))).toBe(false); // sex
    expect(valid('CURP', withDigit('GODE000229HDFRRNA'))).toBe(true); // 2000-02-29, letter = born 2000s
    expect(valid('CURP', withDigit('GODE010229HDFRRNA'))).toBe(false); // 2001 is not a leap year
    expect(valid('CURP', 'GODE561231HDFRRN0')).toBe(false);
  });

  it('CC and CE (Colombia)', () => {
    expect(valid('CC', '1.020.304.050')).toBe(true);
    expect(valid('CC', '123456')).toBe(true);
    expect(valid('CC', '12345')).toBe(false);
    expect(valid('CC', '12345678901')).toBe(false);
    expect(valid('CE', '123456')).toBe(true);
    expect(valid('CE', 'E1234567')).toBe(true);
    expect(valid('CE', 'ABCDEFG')).toBe(false);
    expect(valid('CE', '12345')).toBe(false);
    expect(valid('CE', '1234567890123')).toBe(false);
  });

  it('CI (Ecuador): published examples, province, third digit and check digit', () => {
    // python-stdnum ec.ci doctests.
    expect(validateDocument('CI', '171430710-3')).toEqual({ valid: true, normalized: '1714307103' });
    expect(valid('CI', '1714307104')).toBe(false);
    expect(valid('CI', '171430710')).toBe(false);
    const withDigit = (first9: string) => first9 + ecuadorCiCheckDigit(first9);
    expect(valid('CI', withDigit('301430710'))).toBe(true); // province 30 (abroad)
    expect(valid('CI', withDigit('251430710'))).toBe(false); // province 25
    expect(valid('CI', withDigit('001430710'))).toBe(false); // province 00
    expect(valid('CI', withDigit('176430710'))).toBe(false); // third digit 6
  });
});

describe('validateCustomerDocument', () => {
  const someCpf = '529.982.247-25';
  it.each([
    ['BRA', someCpf, 'CPF', '52998224725'],
    ['BRA', '54.550.752/0001-55', 'CNPJ', '54550752000155'],
    ['PER', '12345678', 'DNI', '12345678'],
    ['PER', '20512333797', 'RUC', '20512333797'],
    ['COL', '1020304050', 'CC', '1020304050'],
    ['COL', 'E123456', 'CE', 'E123456'],
    ['COL', '0123456', 'CE', '0123456'],
    ['CHL', '12.345.678-5', 'RUT', '123456785'],
    ['MEX', 'BOXW310820HNERXN09', 'CURP', 'BOXW310820HNERXN09'],
    ['ECU', '1714307103', 'CI', '1714307103'],
    ['ARG', '12.345.678', 'DNI', '12345678'],
    ['ARG', '20-05536168-2', 'CUIT', '20055361682'],
  ] as const)('%s accepts %s as %s', (country, value, type, normalized) => {
    expect(validateCustomerDocument(country, value)).toEqual({ valid: true, type, normalized });
  });

  it.each([
    ['BRA', '123', /CPF .* CNPJ/],
    ['BRA', '529.982.247-24', /CPF is not valid/],
    ['PER', '1234567890', /DNI .* RUC/],
    ['CHL', '12.345.678-9', /RUT is not valid/],
    ['MEX', 'BOXW310820HNERXN08', /CURP is not valid/],
    ['ECU', '1714307104', /cédula is not valid/],
    ['ARG', '123456', /DNI .* CUIT/],
    ['COL', '12-34', /cédula/],
  ] as const)('%s rejects %s with a message the customer can act on', (country, value, message) => {
    const r = validateCustomerDocument(country, value);
    expect(r.valid).toBe(false);
    expect(r.message).toMatch(message);
  });

  it('names the type when the shape identifies it, even if the check fails', () => {
    expect(validateCustomerDocument('BRA', '52998224724')).toMatchObject({ valid: false, type: 'CPF' });
    expect(validateCustomerDocument('BRA', '1234')).not.toHaveProperty('type');
  });
});

describe('maskDocument', () => {
  it('keeps only the last 3 normalized characters', () => {
    expect(maskDocument('529.982.247-25')).toBe('***725');
    expect(maskDocument('12.345.678-k')).toBe('***78K');
    expect(maskDocument('00000000191')).toBe('***191');
    expect(maskDocument('12345')).toBe('***345');
    expect(maskDocument('1234')).toBe('***');
    expect(maskDocument('')).toBe('***');
  });
});
