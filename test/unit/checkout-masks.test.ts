/**
 * Input masks of the hosted checkout page: documents of every country keep what the shopper typed
 * (normalizeDocument gives it back) and stay valid; card number grouping, expiry, CVV length.
 */
import { buildSync } from 'esbuild';
import { cnpj, cpf } from 'cpf-cnpj-validator';
import * as rutjs from 'rut.js';
import { COUNTRY_CODES, type CountryCode } from '../../shared/domain/geo';
import {
  curpCheckDigit,
  ecuadorCiCheckDigit,
  normalizeDocument,
  rutVerifier,
  validateCustomerDocument,
} from '../../shared/domain/documents';
import {
  cvvLength,
  documentPlaceholder,
  formatCardNumber,
  formatDocument,
  formatExpiry,
  parseExpiry,
} from '../../shared/http/pages/checkout/client/masks';

let seed = 11;
const rand = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
const digits = (n: number) => Array.from({ length: n }, () => String(Math.floor(rand() * 10))).join('');
const rut = (body: string) => `${body}${rutVerifier(body)}`;
const rutBody = (len: number) => String(1 + Math.floor(rand() * 9)) + digits(len - 1);

/** Valid documents per country, in the forms a shopper may type or paste (from documents.test.ts and oracles). */
const VALID: Record<CountryCode, string[]> = {
  BRA: [
    '529.982.247-25',
    '52998224725',
    '00000000191',
    '54.550.752/0001-55',
    '54550752000155',
    '12.ABC.345/01DE-35',
    '12abc34501de35',
    ...Array.from({ length: 40 }, () => cpf.generate()),
    ...Array.from({ length: 20 }, () => cpf.format(cpf.generate())),
    ...Array.from({ length: 40 }, () => cnpj.generate()),
    ...Array.from({ length: 20 }, () => cnpj.format(cnpj.generate())),
  ],
  CHL: [
    '12.345.678-5',
    '123456785',
    '12345678-5',
    '11.111.111-1',
    ...Array.from({ length: 60 }, (_, i) => rut(rutBody(6 + (i % 3)))),
    ...Array.from({ length: 20 }, () => rutjs.format(rut(rutBody(8)))),
    ...[...Array(200).keys()]
      .map(() => rut(rutBody(8)))
      .filter((r) => r.endsWith('K'))
      .slice(0, 5)
      .map((r) => r.toLowerCase()),
  ],
  ARG: ['12.345.678', '12345678', '1234567', '30123456', '20-05536168-2', '20267565393', '20055361682'],
  MEX: ['BOXW310820HNERXN09', 'boxw310820hnerxn09', ...['GODE561231HDFRRN0', 'GODE000229HDFRRNA'].map((c) => c + curpCheckDigit(c))],
  COL: ['1020304050', '1.020.304.050', '123456', 'E123456', 'e1234567', '0123456', 'E12345678901'],
  PER: ['12345678', '20512333797', '10054148289'],
  ECU: ['1714307103', '171430710-3', '301430710' + ecuadorCiCheckDigit('301430710')],
};

/** Types `value` one character at a time into a field that applies the mask after each keystroke. */
function typeInto(country: CountryCode, value: string): { final: string; steps: string[] } {
  let field = '';
  const steps: string[] = [];
  for (const c of value) {
    field = formatDocument(country, field + c);
    steps.push(field);
  }
  return { final: field, steps };
}

describe('formatDocument', () => {
  it('has valid documents for every country', () => {
    for (const country of COUNTRY_CODES) {
      expect(VALID[country].length).toBeGreaterThan(1);
      for (const doc of VALID[country]) expect([country, doc, validateCustomerDocument(country, doc).valid]).toEqual([country, doc, true]);
    }
    expect(VALID.CHL.some((d) => /k$/.test(d))).toBe(true);
    expect(VALID.BRA.some((d) => /[A-Z]/i.test(d))).toBe(true);
  });

  it('gives back what the shopper typed (normalized), stays valid and is idempotent, pasted or typed', () => {
    for (const country of COUNTRY_CODES) {
      for (const doc of VALID[country]) {
        const n = normalizeDocument(doc);
        const shown = formatDocument(country, doc);
        const ctx = [country, doc];
        expect([...ctx, normalizeDocument(shown)]).toEqual([...ctx, n]);
        expect([...ctx, formatDocument(country, shown)]).toEqual([...ctx, shown]);
        expect([...ctx, validateCustomerDocument(country, shown)]).toEqual([...ctx, validateCustomerDocument(country, doc)]);
        const typed = typeInto(country, n);
        expect([...ctx, typed.final]).toEqual([...ctx, shown]);
        typed.steps.forEach((step, i) => expect([...ctx, i, normalizeDocument(step)]).toEqual([...ctx, i, n.slice(0, i + 1)]));
        // Only the document's own characters plus the punctuation normalizeDocument removes.
        expect([...ctx, shown.replace(/[.\-/]/g, '')]).toEqual([...ctx, n]);
      }
    }
  });

  it('Brazil: CPF 000.000.000-00, CNPJ 00.000.000/0000-00 once more than 11 digits (or a letter) are typed', () => {
    expect(formatDocument('BRA', '52998224725')).toBe('529.982.247-25');
    expect(formatDocument('BRA', '54550752000155')).toBe('54.550.752/0001-55');
    expect(formatDocument('BRA', '12abc34501de35')).toBe('12.ABC.345/01DE-35');
    expect(typeInto('BRA', '54550752000155').steps).toEqual([
      '5',
      '54',
      '545',
      '545.5',
      '545.50',
      '545.507',
      '545.507.5',
      '545.507.52',
      '545.507.520',
      '545.507.520-0',
      '545.507.520-00',
      '54.550.752/0001',
      '54.550.752/0001-5',
      '54.550.752/0001-55',
    ]);
    expect(formatDocument('BRA', '5299822472599999')).toBe('52.998.224/7259-99'); // 14 at most
    expect(formatDocument('BRA', '12ABC34501DEXY35')).toBe('12.ABC.345/01DE-35'); // letters only in the first 12
    expect(formatDocument('BRA', ' 529 982 247 25 ')).toBe('529.982.247-25');
    expect(formatDocument('BRA', '')).toBe('');
    for (const doc of VALID.BRA) {
      expect(formatDocument('BRA', doc)).toMatch(
        normalizeDocument(doc).length === 11 ? /^\d{3}\.\d{3}\.\d{3}-\d{2}$/ : /^[\dA-Z]{2}\.[\dA-Z]{3}\.[\dA-Z]{3}\/[\dA-Z]{4}-\d{2}$/,
      );
    }
  });

  it('Chile: RUT 12.345.678-K with the verifier after the dash', () => {
    expect(formatDocument('CHL', '123456785')).toBe('12.345.678-5');
    expect(formatDocument('CHL', '12345678k')).toBe('12.345.678-K');
    expect(formatDocument('CHL', '1234567-4')).toBe('1.234.567-4');
    expect(formatDocument('CHL', '1234564')).toBe('123.456-4');
    expect(typeInto('CHL', '12345678K').steps).toEqual([
      '1',
      '1-2',
      '12-3',
      '123-4',
      '1.234-5',
      '12.345-6',
      '123.456-7',
      '1.234.567-8',
      '12.345.678-K',
    ]);
    expect(formatDocument('CHL', '12.345.678-59')).toBe('12.345.678-5'); // 9 characters at most
    expect(formatDocument('CHL', '1K2K')).toBe('12-K'); // K only as the verifier
    for (const doc of VALID.CHL) {
      expect(formatDocument('CHL', doc)).toMatch(/^[1-9]\d{0,2}(\.\d{3}){1,2}-[\dK]$/);
      expect(formatDocument('CHL', doc)).toBe(rutjs.format(normalizeDocument(doc)));
    }
  });

  it('Argentina: DNI plain, CUIT/CUIL 20-12345678-6; MEX, COL, PER, ECU: no punctuation, uppercase, length capped', () => {
    const cases: [CountryCode, string, string][] = [
      ['ARG', '12.345.678', '12345678'],
      ['ARG', '1234567', '1234567'],
      ['ARG', '20055361682', '20-05536168-2'],
      ['ARG', '200553616', '20-0553616'],
      ['ARG', '2005536168299', '20-05536168-2'],
      ['MEX', 'boxw-310820 hnerxn09', 'BOXW310820HNERXN09'],
      ['MEX', 'BOXW310820HNERXN09XYZ', 'BOXW310820HNERXN09'],
      ['COL', '1.020.304.050', '1020304050'],
      ['COL', 'e-123456', 'E123456'] /* cédula de extranjería */,
      ['COL', '1234567890123', '123456789012'],
      ['PER', '20512333797999', '20512333797'],
      ['PER', 'A12345678', '12345678'],
      ['ECU', '171430710-3', '1714307103'],
      ['ECU', '17143071039', '1714307103'],
    ];
    for (const [country, raw, shown] of cases) expect([country, raw, formatDocument(country, raw)]).toEqual([country, raw, shown]);
  });

  it('documentPlaceholder shows the shape formatDocument writes', () => {
    expect(documentPlaceholder('BRA')).toBe('000.000.000-00');
    for (const country of COUNTRY_CODES) {
      const p = documentPlaceholder(country);
      expect(p).toMatch(/^[0A.\-/]+$/);
      expect([country, formatDocument(country, p)]).toEqual([country, p]);
    }
  });
});

describe('card masks', () => {
  it('groups 4-4-4-4-3, at most 19 digits', () => {
    expect(formatCardNumber('4242424242424242')).toBe('4242 4242 4242 4242');
    expect(formatCardNumber('4242-4242-4242-4242')).toBe('4242 4242 4242 4242');
    expect(formatCardNumber('4000000000003')).toBe('4000 0000 0000 3');
    expect(formatCardNumber('4242424242424242123')).toBe('4242 4242 4242 4242 123');
    expect(formatCardNumber('42424242424242421234')).toBe('4242 4242 4242 4242 123');
    expect(formatCardNumber('5555 5555 5555 4444')).toBe('5555 5555 5555 4444');
    expect(formatCardNumber('6362970000457013')).toBe('6362 9700 0045 7013'); // Elo
    expect([formatCardNumber(''), formatCardNumber('abc')]).toEqual(['', '']);
  });

  it('groups American Express (34, 37) 4-6-5, at most 15 digits', () => {
    expect(formatCardNumber('378282246310005')).toBe('3782 822463 10005');
    expect(formatCardNumber('371449635398431')).toBe('3714 496353 98431');
    expect(formatCardNumber('3400000000000099')).toBe('3400 000000 00009');
    expect([formatCardNumber('3'), formatCardNumber('3782822'), formatCardNumber('37828224631')]).toEqual([
      '3',
      '3782 822',
      '3782 822463 1',
    ]);
  });

  it('typing digit by digit gives the pasted result and keeps every digit', () => {
    for (const number of ['4242424242424242', '378282246310005', '4000000000000000003', '5105105105105100', '3530111333300000']) {
      let field = '';
      for (const c of number) {
        field = formatCardNumber(field + c);
        expect(field.replace(/ /g, '')).toBe(number.slice(0, field.replace(/ /g, '').length));
      }
      expect(field).toBe(formatCardNumber(number));
      expect(formatCardNumber(field)).toBe(field);
    }
  });

  it('cvvLength: 4 for American Express, else 3', () => {
    expect(cvvLength('amex')).toBe(4);
    for (const b of ['visa', 'mastercard', 'elo', 'hipercard', null] as const) expect(cvvLength(b)).toBe(3);
  });
});

describe('expiry', () => {
  it.each([
    ['', ''],
    ['1', '1'],
    ['0', '0'],
    ['12', '12/'],
    ['123', '12/3'],
    ['1230', '12/30'],
    ['12/30', '12/30'],
    ['12 / 30', '12/30'],
    ['12305', '12/30'],
    ['2', '02/'],
    ['9', '09/'],
    ['25', '02/5'],
    ['13', '01/3'],
    ['19', '01/9'],
    ['10', '10/'],
    ['1/', '01/'],
    ['01/2', '01/2'],
    ['12/', '12/'],
    ['a', ''],
    ['12/2030', '12/30'],
    ['1/2030', '01/30'],
    [' 07 / 2029 ', '07/29'],
  ])('formatExpiry(%j) = %j', (raw, out) => {
    expect(formatExpiry(raw)).toBe(out);
  });

  it('typing "1230" gives 1, 12/, 12/3, 12/30', () => {
    let field = '';
    expect([...'1230'].map((c) => (field = formatExpiry(field + c, field)))).toEqual(['1', '12/', '12/3', '12/30']);
  });

  it('backspace works when the previous value is passed: the slash is not added back', () => {
    const backspace = (v: string) => formatExpiry(v.slice(0, -1), v);
    expect(['12/30', '12/3', '12/', '12', '02/'].map(backspace)).toEqual(['12/3', '12/', '12', '1', '02']);
    expect(formatExpiry('12', '12/')).toBe('12');
  });

  it('parseExpiry returns MM and the four-digit year', () => {
    expect(parseExpiry('12/30')).toEqual({ month: '12', year: '2030' });
    expect(parseExpiry('01/2031')).toEqual({ month: '01', year: '2031' });
    expect(parseExpiry(' 07 / 29 ')).toEqual({ month: '07', year: '2029' });
    expect(parseExpiry(formatExpiry('0330'))).toEqual({ month: '03', year: '2030' });
    for (const bad of ['', '1', '12', '12/', '12/3', '13/30', '00/30', '1230', '12/300', 'ab/cd', '1/30'])
      expect([bad, parseExpiry(bad)]).toEqual([bad, null]);
  });
});

describe('browser-safe modules', () => {
  it.each([
    'shared/http/pages/checkout/client/masks.ts',
    'shared/domain/payments/boleto.ts',
    'shared/domain/payments/itf.ts',
    'shared/domain/payments/installments.ts',
  ])('%s bundles for the browser from shared/domain and client/ only', (entry) => {
    const out = buildSync({
      entryPoints: [entry],
      bundle: true,
      platform: 'browser',
      format: 'esm',
      write: false,
      metafile: true,
      logLevel: 'silent',
    });
    const inputs = Object.keys(out.metafile.inputs);
    for (const input of inputs) expect(input).toMatch(/^shared\/(domain|http\/pages\/checkout\/client)\/[\w/.-]+\.ts$/);
    expect(out.outputFiles[0]!.text).not.toMatch(/\bBuffer\b|\brequire\(|\bprocess\./);
  });
});
