/** The payout-method catalog against SPEC.md 2.6 and the available-methods filter (SPEC.md 4.4 item 5). */
import { DOCUMENT_TYPES } from '../../shared/domain/documents';
import {
  BENEFICIARY_FIELDS,
  INSTANT_TRANSFER_TYPES,
  PAYOUT_METHOD_CODES,
  PAYOUT_METHODS,
  findPayoutMethod,
  listPayoutMethods,
} from '../../shared/domain/catalog/payout-methods';
import { REFUND_ONLY_RAILS, refundRail } from '../../shared/domain/refunds/refund';

/** SPEC.md 2.6 "Payout method codes" table, with the type each row's kind maps to. */
const SPEC_TABLE = [
  { code: 'svc-mt-5', kind: 'PIX payout', country: 'BRA', currency: 'BRL', type: 'instant_transfer' },
  { code: 'svc-mt-6', kind: 'bank transfer', country: 'PER', currency: 'PEN', type: 'bank_transfer' },
  { code: 'svc-mt-30', kind: 'SPEI', country: 'MEX', currency: 'MXN', type: 'instant_transfer' },
  { code: 'svc-mt-31', kind: 'CVU/CBU', country: 'ARG', currency: 'ARS', type: 'instant_transfer' },
  { code: 'svc-mt-32', kind: 'bank transfer', country: 'COL', currency: 'COP', type: 'bank_transfer' },
] as const;

const INSTANT = ['name', 'document', 'document_type', 'instant_transfer_key', 'instant_transfer_type'];
const BANK = ['name', 'document', 'document_type', 'bank_code', 'account_number', 'account_type'];
const ALL = [...PAYOUT_METHOD_CODES];
const ITEM_KEYS = ['country', 'currency', 'max_amount', 'method_code', 'min_amount', 'name', 'required_fields', 'type'];

describe('payout catalog (SPEC.md 2.6)', () => {
  it('has exactly the five codes of the SPEC table, in order, and PAYOUT_METHOD_CODES is unchanged', () => {
    expect(PAYOUT_METHOD_CODES).toEqual(['svc-mt-5', 'svc-mt-6', 'svc-mt-30', 'svc-mt-31', 'svc-mt-32']);
    expect(PAYOUT_METHODS.map((m) => m.method_code)).toEqual(SPEC_TABLE.map((r) => r.code));
  });

  it.each(SPEC_TABLE)('$code is $kind in $country, paid in $currency, type $type', (row) => {
    const m = findPayoutMethod(row.code);
    expect(m).not.toBeNull();
    expect(m).toMatchObject({ method_code: row.code, country: row.country, currency: row.currency, type: row.type });
    expect(m!.name.toLowerCase()).toContain(row.kind === 'PIX payout' ? 'pix' : row.kind.toLowerCase());
    expect([...m!.required_fields]).toEqual(row.type === 'instant_transfer' ? INSTANT : BANK);
  });

  it('has realistic amount bounds in each currency', () => {
    const bounds = Object.fromEntries(PAYOUT_METHODS.map((m) => [m.currency, [m.min_amount, m.max_amount]]));
    expect(bounds).toEqual({ BRL: [1, 50_000], PEN: [10, 50_000], MXN: [10, 500_000], ARS: [100, 5_000_000], COP: [10_000, 50_000_000] });
    for (const m of PAYOUT_METHODS) expect(0 < m.min_amount && m.min_amount < m.max_amount).toBe(true);
  });

  it('accepts the document types and instant-transfer types of each country', () => {
    const rules = Object.fromEntries(PAYOUT_METHODS.map((m) => [m.method_code, [[...m.document_types], [...m.instant_transfer_types]]]));
    expect(rules).toEqual({
      'svc-mt-5': [
        ['CPF', 'CNPJ'],
        ['cpf', 'cnpj', 'email', 'phone', 'random'],
      ],
      'svc-mt-6': [['DNI', 'RUC', 'CE'], []],
      'svc-mt-30': [['CURP'], ['clabe']],
      'svc-mt-31': [
        ['DNI', 'CUIT'],
        ['cvu', 'cbu'],
      ],
      'svc-mt-32': [['CC', 'CE'], []],
    });
    for (const m of PAYOUT_METHODS) {
      for (const t of m.document_types) expect(DOCUMENT_TYPES).toContain(t);
      for (const t of m.instant_transfer_types) expect(INSTANT_TRANSFER_TYPES).toContain(t);
      for (const f of m.required_fields) expect(BENEFICIARY_FIELDS).toContain(f);
      // Instant transfers take a key; bank transfers never do.
      expect(m.instant_transfer_types.length > 0).toBe(m.type === 'instant_transfer');
    }
  });

  it('Chile and Ecuador have refund-only rails, which are no payout method: no code, never listed', () => {
    expect(REFUND_ONLY_RAILS.map((r) => [r.country, r.currency])).toEqual([
      ['CHL', 'CLP'],
      ['ECU', 'USD'],
    ]);
    for (const rail of REFUND_ONLY_RAILS) {
      expect(rail).not.toHaveProperty('method_code');
      expect(PAYOUT_METHODS.filter((m) => m.country === rail.country)).toEqual([]);
      expect(listPayoutMethods({ country: rail.country }, ALL)).toEqual([]);
      expect(refundRail(rail.country)).toBe(rail);
    }
    // Elsewhere the refund rail is the country's payout method.
    expect(refundRail('PER')).toBe(findPayoutMethod('svc-mt-6'));
  });

  it('findPayoutMethod is null for collection codes and unknown codes', () => {
    for (const code of ['svc-mt-1', 'svc-mt-2', 'svc-mt-23', 'svc-mt-50', '', 'SVC-MT-5']) expect(findPayoutMethod(code)).toBeNull();
  });
});

describe('listPayoutMethods', () => {
  it('returns every enabled method as a SPEC 2.6 item with exactly its fields', () => {
    const items = listPayoutMethods({}, ALL);
    expect(items.map((i) => i.method_code)).toEqual(ALL);
    for (const item of items) {
      expect(Object.keys(item).sort()).toEqual(ITEM_KEYS);
      expect(item.required_fields.every((f) => typeof f === 'string')).toBe(true);
    }
    expect(items[0]).toEqual({
      method_code: 'svc-mt-5',
      name: 'PIX',
      type: 'instant_transfer',
      country: 'BRA',
      currency: 'BRL',
      min_amount: 1,
      max_amount: 50_000,
      required_fields: INSTANT,
    });
  });

  it.each([
    [{ country: 'BRA' }, ['svc-mt-5']],
    [{ country: 'PER' }, ['svc-mt-6']],
    [{ country: 'MEX' }, ['svc-mt-30']],
    [{ country: 'ARG' }, ['svc-mt-31']],
    [{ country: 'COL' }, ['svc-mt-32']],
    [{ currency: 'MXN' }, ['svc-mt-30']],
    [{ currency: 'COP' }, ['svc-mt-32']],
    [{ country: 'ARG', currency: 'ARS' }, ['svc-mt-31']],
    [{ country: 'ARG', currency: 'BRL' }, []],
    [{ country: 'CHL' }, []],
    [{ currency: 'USD' }, []],
  ])('filters %j to %j', (filters, codes) => {
    expect(listPayoutMethods(filters, ALL).map((i) => i.method_code)).toEqual(codes);
  });

  it('only lists the methods the merchant has enabled, ignoring collection codes', () => {
    expect(listPayoutMethods({}, ['svc-mt-1', 'svc-mt-31', 'svc-mt-2', 'svc-mt-5']).map((i) => i.method_code)).toEqual([
      'svc-mt-5',
      'svc-mt-31',
    ]);
    expect(listPayoutMethods({}, [])).toEqual([]);
    expect(listPayoutMethods({ country: 'BRA' }, ['svc-mt-30'])).toEqual([]);
  });

  it('returns fresh objects: mutating a result does not change the catalog', () => {
    const [first] = listPayoutMethods({ country: 'BRA' }, ALL);
    first!.required_fields.push('wallet_id');
    (first as { min_amount: number }).min_amount = 999;
    expect(listPayoutMethods({ country: 'BRA' }, ALL)[0]).toMatchObject({ min_amount: 1, required_fields: INSTANT });
    expect([...findPayoutMethod('svc-mt-5')!.required_fields]).toEqual(INSTANT);
  });
});
