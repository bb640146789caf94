/** The SPEC.md 2.5 catalog and the discovery filter, as pure functions. */
import { COUNTRIES, COUNTRY_CODES, type CountryCode } from '../../shared/domain/geo';
import { allOfferings, COLLECTION_METHOD_CODES, findMethod, listMethods } from '../../shared/domain/catalog/payment-methods';
import { FIELD_TYPES } from '../../shared/domain/catalog/required-fields';

const everything = { methods: COLLECTION_METHOD_CODES, countries: COUNTRY_CODES };

/** SPEC.md 2.5's collection method table, copied independently of the catalog. */
const SPEC_TABLE: Array<[string, string, string]> = [
  ['svc-mt-1', 'BRA', 'pix'],
  ['svc-mt-7', 'BRA', 'bank_transfer'],
  ['svc-mt-8', 'BRA', 'boleto'],
  ['svc-mt-9', 'BRA', 'wallet'],
  ['svc-mt-3', 'PER', 'payin'],
  ['svc-mt-11', 'PER', 'bank_transfer'],
  ['svc-mt-12', 'PER', 'bank_transfer'],
  ['svc-mt-13', 'PER', 'wallet'],
  ['svc-mt-14', 'COL', 'bank_transfer'],
  ['svc-mt-15', 'COL', 'wallet'],
  ['svc-mt-16', 'COL', 'cash'],
  ['svc-mt-17', 'COL', 'bank_transfer'],
  ['svc-mt-18', 'CHL', 'bank_transfer'],
  ['svc-mt-19', 'CHL', 'cash'],
  ['svc-mt-23', 'MEX', 'bank_transfer'],
  ['svc-mt-24', 'MEX', 'cash'],
  ['svc-mt-2', 'global', 'card'],
  ['svc-mt-4', 'global', 'crypto'],
];
/** The bank transfers SPEC.md's market table promises in Argentina and Ecuador, under codes its collection table leaves free. */
const MARKET_TABLE_EXTRAS: Array<[string, string, string]> = [
  ['svc-mt-25', 'ARG', 'bank_transfer'],
  ['svc-mt-26', 'ECU', 'bank_transfer'],
];
const CATALOG_TABLE = [...SPEC_TABLE, ...MARKET_TABLE_EXTRAS];

describe('payment method catalog', () => {
  it('holds exactly the 18 collection method codes of SPEC.md 2.5 and the Argentine and Ecuadorian bank transfers', () => {
    expect([...COLLECTION_METHOD_CODES].sort()).toEqual(CATALOG_TABLE.map(([c]) => c).sort());
    for (const [code] of MARKET_TABLE_EXTRAS) expect(SPEC_TABLE.map(([c]) => c)).not.toContain(code);
  });

  it('offers a bank transfer in every country SPEC.md’s market table promises one (Ecuador and Argentina included)', () => {
    for (const country of ['BRA', 'PER', 'COL', 'CHL', 'ECU', 'ARG'] as CountryCode[])
      expect(listMethods({ country, payment_type: 'bank_transfer' }, everything).length).toBeGreaterThan(0);
    expect(findMethod('svc-mt-25', everything, 'ARG')).toMatchObject({
      country: 'ARG',
      currency: 'ARS',
      flow_type: 'embedded',
      min_amount: 1_000,
      max_amount: 20_000_000,
    });
    expect(findMethod('svc-mt-25', everything)?.required_fields.find((f) => f.field === 'document')).toMatchObject({ type: 'dni' });
    expect(findMethod('svc-mt-26', everything, 'ECU')).toMatchObject({
      country: 'ECU',
      currency: 'USD',
      flow_type: 'embedded',
      min_amount: 5,
      max_amount: 20_000,
    });
    expect(findMethod('svc-mt-26', everything)?.required_fields.find((f) => f.field === 'document')).toMatchObject({
      label: 'Cédula de identidad',
    });
    expect(findMethod('svc-mt-26', everything, 'ARG')).toBeNull();
  });

  it.each(CATALOG_TABLE.filter(([, c]) => c !== 'global'))('%s is a %s %s method in its currency', (code, country, type) => {
    const m = findMethod(code, everything);
    expect(m).toMatchObject({ method_code: code, country, payment_type: type, currency: COUNTRIES[country as CountryCode].currency });
  });

  it('gives every offering sane bounds and typed required fields', () => {
    for (const m of allOfferings()) {
      expect(m.min_amount).toBeGreaterThan(0);
      expect(m.max_amount).toBeGreaterThan(m.min_amount);
      expect(['embedded', 'redirect']).toContain(m.flow_type);
      for (const f of m.required_fields) expect(FIELD_TYPES).toContain(f.type);
      expect(m.required_fields.map((f) => f.field)).toEqual(expect.arrayContaining(['name', 'email']));
    }
  });

  it('offers card in every country priced in the local currency, and crypto in USDT', () => {
    for (const country of COUNTRY_CODES) {
      const found = listMethods({ country }, everything);
      expect(found.find((m) => m.method_code === 'svc-mt-2')).toMatchObject({ country, currency: COUNTRIES[country].currency });
      expect(found.find((m) => m.method_code === 'svc-mt-4')).toMatchObject({ country, currency: 'USDT' });
    }
  });

  it('uses each country’s document type in required_fields', () => {
    const docType = (country: CountryCode) =>
      listMethods({ country, payment_type: 'card' }, everything)[0]?.required_fields.find((f) => f.field === 'document')?.type;
    expect(docType('BRA')).toBe('cpf');
    expect(docType('PER')).toBe('dni');
    expect(docType('CHL')).toBe('rut');
    expect(docType('ARG')).toBe('dni');
  });

  it('asks card payments for card number, expiry and cvv', () => {
    const card = findMethod('svc-mt-2', everything, 'BRA');
    expect(card?.required_fields.map((f) => f.type)).toEqual(expect.arrayContaining(['card', 'expiry', 'cvv']));
  });

  it('filters by country, currency and payment_type together', () => {
    expect(listMethods({ country: 'COL', payment_type: 'bank_transfer' }, everything).map((m) => m.method_code)).toEqual([
      'svc-mt-14',
      'svc-mt-17',
    ]);
    expect(listMethods({ currency: 'USDT' }, everything)).toHaveLength(COUNTRY_CODES.length);
    expect(listMethods({ currency: 'USD' }, everything).map((m) => `${m.method_code}@${m.country}`)).toEqual([
      'svc-mt-26@ECU',
      'svc-mt-2@ECU',
    ]);
    expect(listMethods({ country: 'ECU' }, everything).map((m) => m.method_code)).toEqual(['svc-mt-26', 'svc-mt-2', 'svc-mt-4']);
    expect(listMethods({ country: 'ARG' }, everything).map((m) => m.method_code)).toEqual(['svc-mt-25', 'svc-mt-2', 'svc-mt-4']);
  });

  it('lists only enabled methods in enabled countries', () => {
    const enabled = { methods: ['svc-mt-1', 'svc-mt-2'], countries: ['BRA'] as CountryCode[] };
    expect(listMethods({}, enabled).map((m) => m.method_code)).toEqual(['svc-mt-1', 'svc-mt-2']);
    expect(findMethod('svc-mt-8', enabled)).toBeNull();
    expect(findMethod('svc-mt-2', enabled, 'MEX')).toBeNull();
    expect(findMethod('svc-mt-1', enabled, 'MEX')).toBeNull();
  });

  it('returns null for unknown codes', () => {
    expect(findMethod('svc-mt-99', { methods: ['svc-mt-99'], countries: COUNTRY_CODES })).toBeNull();
  });
});
