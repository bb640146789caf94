/**
 * Beneficiary validation per payout method (SPEC.md 2.6), malformed (VALIDATION_ERROR) vs invalid
 * (INVALID_BENEFICIARY), cross-checked with independent implementations: cpf-cnpj-validator (CPF,
 * CNPJ), clabe-validator (CLABE, ESM-only: run in a child node process) and arg.js (CBU/CVU).
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cnpj, cpf } from 'cpf-cnpj-validator';
import { findPayoutMethod, type BeneficiaryRail, type PayoutMethodInfo } from '../../shared/domain/catalog/payout-methods';
import { buildClabe } from '../../shared/domain/payments/clabe';
import { describeFieldErrors, validateBeneficiary } from '../../shared/domain/payouts/beneficiary';
import { refundRail } from '../../shared/domain/refunds/refund';
import { buildCbu, buildCvu, cbuBlock1CheckDigit, cbuBlock2CheckDigit, isValidCbu, isValidCvu } from '../../shared/domain/payouts/cbu';

/** arg.js ships no types: the part we use. */
interface ArgJs {
  cbu: { isValid(cbu: string): boolean };
}
// eslint-disable-next-line @typescript-eslint/no-require-imports
const argjs = require('arg.js') as ArgJs;

const method = (code: string): PayoutMethodInfo => {
  const m = findPayoutMethod(code);
  if (!m) throw new Error(`no payout method ${code}`);
  return m;
};
const PIX = method('svc-mt-5');
const PER = method('svc-mt-6');
const SPEI = method('svc-mt-30');
const ARG = method('svc-mt-31');
const COL = method('svc-mt-32');

/** Deterministic digits. */
function digitsFrom(seed: string, n: number): string {
  let out = '';
  for (let i = 0; out.length < n; i++) out += [...createHash('sha256').update(`${seed}:${i}`).digest()].map((b) => String(b % 10)).join('');
  return out.slice(0, n);
}
const wrongLast = (s: string) => s.slice(0, -1) + String((Number(s.at(-1)) + 1) % 10);
const wrongAt = (s: string, i: number) => s.slice(0, i) + String((Number(s[i]) + 1) % 10) + s.slice(i + 1);

const CLABE = buildClabe('002', '180', '70123456789');
const CBU = '2850590940090418135201'; // Banco Macro example, also arg.js's own test value
const BASE: Record<string, Record<string, unknown>> = {
  'svc-mt-5': {
    name: 'Maria da Silva',
    document: '52998224725',
    document_type: 'CPF',
    instant_transfer_key: 'maria@example.com.br',
    instant_transfer_type: 'email',
  },
  'svc-mt-6': {
    name: 'Juan Pérez',
    document: '12345678',
    document_type: 'DNI',
    bank_code: '002',
    account_number: '19312345678901',
    account_type: 'savings',
  },
  'svc-mt-30': {
    name: 'Ana López',
    document: 'BOXW310820HNERXN09',
    document_type: 'CURP',
    instant_transfer_key: CLABE,
    instant_transfer_type: 'clabe',
  },
  'svc-mt-31': {
    name: 'Lucía Gómez',
    document: '20-12345678-6',
    document_type: 'CUIT',
    instant_transfer_key: CBU,
    instant_transfer_type: 'cbu',
  },
  'svc-mt-32': {
    name: 'Carlos Rodríguez',
    document: '1020304050',
    document_type: 'CC',
    bank_code: '1007',
    account_number: '12345678901',
    account_type: 'checking',
  },
};
const METHODS = [PIX, PER, SPEI, ARG, COL];
const check = (m: PayoutMethodInfo, patch: Record<string, unknown> = {}) => validateBeneficiary(m, { ...BASE[m.method_code], ...patch });
const fields = (errors: readonly { field: string }[]) => errors.map((e) => e.field);

/** 'ok' | 'malformed' | 'invalid' with the fields involved, for table tests. */
function outcome(m: PayoutMethodInfo, patch: Record<string, unknown>) {
  const r = check(m, patch);
  if (r.malformed.length) return `malformed:${fields(r.malformed).join(',')}`;
  if (r.invalid.length) return `invalid:${fields(r.invalid).join(',')}`;
  return 'ok';
}

describe('a valid beneficiary for each method', () => {
  it.each(METHODS.map((m) => [m.method_code, m] as const))('%s: no errors, document and key valid', (_code, m) => {
    expect(check(m)).toEqual({ malformed: [], invalid: [], document_valid: true, key_valid: m.type === 'instant_transfer' ? true : null });
  });

  it('ignores surrounding whitespace and fields the method does not use', () => {
    expect(
      outcome(PIX, { name: '  Maria  ', instant_transfer_key: ' maria@example.com.br ', account_type: 'current', bank_code: 'x' }),
    ).toBe('ok');
    expect(outcome(PER, { instant_transfer_type: 'bogus', instant_transfer_key: '1', wallet_id: 'w' })).toBe('ok');
  });
});

describe('malformed: shape errors (VALIDATION_ERROR)', () => {
  it.each(METHODS.flatMap((m) => m.required_fields.map((f) => [m.method_code, f, m] as const)))('%s without %s', (_code, f, m) => {
    for (const missing of [undefined, null, '', '   ']) {
      const r = check(m, { [f]: missing });
      expect(fields(r.malformed)).toEqual([`beneficiary.${f}`]);
      expect(r.malformed[0]!.message).toMatch(/required/);
    }
  });

  it('rejects a beneficiary that is not an object', () => {
    for (const b of [null, undefined, 'Maria', 42, [], [BASE['svc-mt-5']]]) {
      const r = validateBeneficiary(PIX, b);
      expect(fields(r.malformed)).toEqual(['beneficiary']);
      expect(r).toMatchObject({ document_valid: false, key_valid: false });
    }
    expect(validateBeneficiary(PER, null).key_valid).toBeNull();
  });

  it('rejects fields that are not strings, once each', () => {
    const r = check(PIX, { name: 42, document: 52998224725, instant_transfer_key: { email: 'x' } });
    expect(r.malformed).toEqual([
      { field: 'beneficiary.name', message: 'name must be a string.' },
      { field: 'beneficiary.document', message: 'document must be a string.' },
      { field: 'beneficiary.instant_transfer_key', message: 'instant_transfer_key must be a string.' },
    ]);
    expect(outcome(PER, { account_type: true })).toBe('malformed:beneficiary.account_type');
  });

  it('name has 2 to 100 characters after trimming, without control characters', () => {
    expect(outcome(PIX, { name: 'Jo' })).toBe('ok');
    expect(outcome(PIX, { name: 'é'.repeat(100) })).toBe('ok');
    expect(outcome(PIX, { name: '測'.repeat(100) })).toBe('ok');
    expect(outcome(PIX, { name: ' J ' })).toBe('malformed:beneficiary.name');
    expect(outcome(PIX, { name: 'x'.repeat(101) })).toBe('malformed:beneficiary.name');
    expect(outcome(PIX, { name: 'Maria\u0000Silva' })).toBe('malformed:beneficiary.name');
  });

  it.each([
    [PIX, ['DNI', 'CURP', 'CC', 'cpf', 'PASSPORT']],
    [PER, ['CPF', 'CC', 'CURP', 'CUIT']],
    [SPEI, ['CPF', 'DNI', 'RUC']],
    [ARG, ['CPF', 'CC', 'RUT', 'CE']],
    [COL, ['DNI', 'CPF', 'RUC']],
  ])('%# document_type the method does not accept', (m, types) => {
    for (const t of types) {
      const r = check(m, { document_type: t });
      expect(fields(r.malformed)).toEqual(['beneficiary.document_type']);
      expect(r.malformed[0]!.message).toContain(m.document_types.join(', '));
      expect(r.document_valid).toBe(false);
    }
  });

  it.each([
    [PIX, ['clabe', 'cvu', 'cbu', 'CPF', 'evp', 'iban']],
    [SPEI, ['cpf', 'email', 'cbu', 'CLABE']],
    [ARG, ['email', 'clabe', 'alias', 'CBU']],
  ])('%# instant_transfer_type the method does not accept', (m, types) => {
    for (const t of types) {
      const r = check(m, { instant_transfer_type: t });
      expect(fields(r.malformed)).toEqual(['beneficiary.instant_transfer_type']);
      expect(r.key_valid).toBe(false);
    }
  });

  it('bank transfers: bank_code 3-4 digits, account_number 6-20 digits, account_type checking | savings', () => {
    for (const m of [PER, COL]) {
      for (const ok of [
        { bank_code: '002' },
        { bank_code: '1007' },
        { account_number: '123456' },
        { account_number: '1'.repeat(20) },
        { account_type: 'savings' },
        { account_type: 'checking' },
      ]) {
        expect(outcome(m, ok)).toBe('ok');
      }
      for (const bad of ['02', '12345', 'ABC', '0-2']) expect(outcome(m, { bank_code: bad })).toBe('malformed:beneficiary.bank_code');
      for (const bad of ['12345', '1'.repeat(21), '1234-5678', 'ES1234567890'])
        expect(outcome(m, { account_number: bad })).toBe('malformed:beneficiary.account_number');
      for (const bad of ['current', 'Savings', 'CHECKING', 'ahorros'])
        expect(outcome(m, { account_type: bad })).toBe('malformed:beneficiary.account_type');
    }
  });

  it('lists every malformed field in field order and keeps invalid ones apart', () => {
    const r = check(PIX, {
      account_type: 'x',
      instant_transfer_key: '123',
      instant_transfer_type: 'cpf',
      document: '52998224726',
      name: 'M',
    });
    expect(fields(r.malformed)).toEqual(['beneficiary.name', 'beneficiary.instant_transfer_key']);
    expect(fields(r.invalid)).toEqual(['beneficiary.document']);
    expect(r).toMatchObject({ document_valid: false, key_valid: false });
    const bank = validateBeneficiary(PER, { ...BASE['svc-mt-6'], name: undefined, account_type: 5, bank_code: '1', document_type: 'CPF' });
    expect(fields(bank.malformed)).toEqual([
      'beneficiary.name',
      'beneficiary.document_type',
      'beneficiary.bank_code',
      'beneficiary.account_type',
    ]);
  });
});

describe('documents: shape is malformed, failed checks are invalid', () => {
  const cases: [PayoutMethodInfo, string, string, 'ok' | 'malformed' | 'invalid'][] = [
    [PIX, 'CPF', '529.982.247-25', 'ok'],
    [PIX, 'CPF', '5299822472', 'malformed'],
    [PIX, 'CPF', '5299822472X', 'malformed'],
    [PIX, 'CPF', '52998224726', 'invalid'],
    [PIX, 'CPF', '11111111111', 'invalid'],
    [PIX, 'CNPJ', '11.222.333/0001-81', 'ok'],
    [PIX, 'CNPJ', '12.ABC.345/01DE-35', 'ok'],
    [PIX, 'CNPJ', '11222333000182', 'invalid'],
    [PIX, 'CNPJ', '1122233300018', 'malformed'],
    [PER, 'DNI', '12345678', 'ok'],
    [PER, 'DNI', '1234567', 'malformed'],
    [PER, 'DNI', 'ABCDEFGH', 'malformed'],
    [PER, 'RUC', '20131312955', 'ok'],
    [PER, 'RUC', '20100070970', 'ok'],
    [PER, 'RUC', '20131312956', 'invalid'],
    [PER, 'RUC', '30131312955', 'invalid'],
    [PER, 'RUC', '2013131295', 'malformed'],
    [PER, 'CE', '001234567', 'ok'],
    [PER, 'CE', 'ABCDEFG', 'invalid'],
    [PER, 'CE', '12345', 'malformed'],
    [SPEI, 'CURP', 'BOXW310820HNERXN09', 'ok'],
    [SPEI, 'CURP', 'boxw310820hnerxn09', 'ok'],
    [SPEI, 'CURP', 'BOXW310820HNERXN08', 'invalid'],
    [SPEI, 'CURP', 'BOXW311320HNERXN09', 'invalid'],
    [SPEI, 'CURP', 'BOXW310820HNERXN0', 'malformed'],
    [ARG, 'DNI', '1234567', 'ok'],
    [ARG, 'DNI', '12.345.678', 'ok'],
    [ARG, 'DNI', '123456', 'malformed'],
    [ARG, 'CUIT', '20123456786', 'ok'],
    [ARG, 'CUIT', '20123456787', 'invalid'],
    [ARG, 'CUIT', '99123456786', 'invalid'],
    [ARG, 'CUIT', '2012345678', 'malformed'],
    [COL, 'CC', '1020304050', 'ok'],
    [COL, 'CC', '123456', 'ok'],
    [COL, 'CC', '0123456', 'invalid'],
    [COL, 'CC', '12345', 'malformed'],
    [COL, 'CC', '12345678901', 'malformed'],
    [COL, 'CE', 'E12345', 'ok'],
    [COL, 'CE', 'ABCDEFG', 'invalid'],
  ];
  it.each(cases)('%#: %s', (m, type, document, want) => {
    const r = check(m, { document_type: type, document });
    expect(outcome(m, { document_type: type, document })).toBe(want === 'ok' ? 'ok' : `${want}:beneficiary.document`);
    expect(r.document_valid).toBe(want === 'ok');
  });
});

describe('refund-only rails (Chile, Ecuador): a bank account, checked as a bank-transfer payout is', () => {
  const CHL = refundRail('CHL')!;
  const ECU = refundRail('ECU')!;
  const account = { name: 'Josefa Muñoz', bank_code: '012', account_number: '00123456789', account_type: 'checking' };
  const rut = { ...account, document_type: 'RUT', document: '12.345.678-5' };
  const ci = { ...account, document_type: 'CI', document: '1710034065' };
  const outcomeOf = (rail: BeneficiaryRail, b: Record<string, unknown>) => {
    const r = validateBeneficiary(rail, b);
    if (r.malformed.length) return `malformed:${fields(r.malformed).join(',')}`;
    if (r.invalid.length) return `invalid:${fields(r.invalid).join(',')}`;
    return 'ok';
  };
  const cases: [string, BeneficiaryRail, Record<string, unknown>, string][] = [
    ['CHL RUT with dots', CHL, rut, 'ok'],
    ['CHL RUT without dots', CHL, { ...rut, document: '12345678-5' }, 'ok'],
    ['CHL RUT with a K verifier', CHL, { ...rut, document: '10.000.013-K' }, 'ok'],
    ['CHL RUT with a wrong verifier', CHL, { ...rut, document: '12.345.678-4' }, 'invalid:beneficiary.document'],
    ['CHL RUT too short', CHL, { ...rut, document: '1234' }, 'malformed:beneficiary.document'],
    ['CHL with a DNI', CHL, { ...rut, document_type: 'DNI', document: '12345678' }, 'malformed:beneficiary.document_type'],
    ['CHL without bank_code', CHL, { ...rut, bank_code: undefined }, 'malformed:beneficiary.bank_code'],
    ['ECU cédula', ECU, ci, 'ok'],
    ['ECU cédula with a wrong check digit', ECU, { ...ci, document: '1710034066' }, 'invalid:beneficiary.document'],
    ['ECU cédula of 9 digits', ECU, { ...ci, document: '171003406' }, 'malformed:beneficiary.document'],
    ['ECU with a RUT', ECU, { ...ci, document_type: 'RUT', document: '12.345.678-5' }, 'malformed:beneficiary.document_type'],
    ['ECU account number with a dash', ECU, { ...ci, account_number: '12-34' }, 'malformed:beneficiary.account_number'],
    ['ECU account type', ECU, { ...ci, account_type: 'vista' }, 'malformed:beneficiary.account_type'],
  ];
  it.each(cases)('%s: %#', (_what, rail, b, want) => {
    expect(outcomeOf(rail, b)).toBe(want);
  });

  it('requires SPEC.md’s bank-transfer fields and says refunds, not payouts', () => {
    for (const rail of [CHL, ECU]) {
      expect(rail).toMatchObject({ type: 'bank_transfer', refunds_only: true, instant_transfer_types: [] });
      expect(rail.required_fields).toEqual(['name', 'document', 'document_type', 'bank_code', 'account_number', 'account_type']);
      const r = validateBeneficiary(rail, { name: 'Josefa Muñoz' });
      expect(fields(r.malformed)).toEqual([
        'beneficiary.document',
        'beneficiary.document_type',
        'beneficiary.bank_code',
        'beneficiary.account_number',
        'beneficiary.account_type',
      ]);
      expect(r.malformed[0]!.message).toBe('document is required for Bank transfer refunds.');
    }
    expect([CHL.currency, ECU.currency]).toEqual(['CLP', 'USD']);
  });
});

describe('PIX keys', () => {
  const cases: [string, string, 'ok' | 'malformed' | 'invalid'][] = [
    ['cpf', '52998224725', 'ok'],
    ['cpf', '52998224726', 'invalid'],
    ['cpf', '00000000000', 'invalid'],
    ['cpf', '529.982.247-25', 'malformed'],
    ['cpf', '5299822472', 'malformed'],
    ['cnpj', '11222333000181', 'ok'],
    ['cnpj', '12ABC34501DE35', 'ok'],
    ['cnpj', '11222333000182', 'invalid'],
    ['cnpj', '11.222.333/0001-81', 'malformed'],
    ['email', 'maria@example.com.br', 'ok'],
    ['email', 'Maria.Silva+pix@Example.COM', 'ok'],
    ['email', "o'neil_1@sub.example-mail.com", 'ok'],
    ['email', `${'a'.repeat(64)}@${'b'.repeat(8)}.com`, 'ok'],
    ['email', `${'a'.repeat(65)}@b.com`, 'invalid'],
    ['email', `${'a'.repeat(60)}@${'b'.repeat(13)}.com`, 'invalid'], // 77 + 1 characters
    ['email', 'maria@', 'invalid'],
    ['email', 'maria@example', 'invalid'],
    ['email', 'maria@example.c', 'invalid'],
    ['email', 'maria..silva@example.com', 'invalid'],
    ['email', '.maria@example.com', 'invalid'],
    ['email', 'maria silva@example.com', 'invalid'],
    ['email', 'maria@-example.com', 'invalid'],
    ['email', 'maria@@example.com', 'invalid'],
    ['email', '@example.com', 'invalid'],
    ['phone', '+5511987654321', 'ok'],
    ['phone', '+551133334444', 'ok'],
    ['phone', '+5521912345678', 'ok'],
    ['phone', '+55119876543210', 'invalid'],
    ['phone', '+55118765432', 'invalid'],
    ['phone', '+5511887654321', 'invalid'],
    ['phone', '+5501987654321', 'invalid'],
    ['phone', '+5410987654321', 'invalid'],
    ['phone', '11987654321', 'invalid'],
    ['phone', '+55 11 98765-4321', 'invalid'],
    ['random', '123e4567-e89b-12d3-a456-426614174000', 'ok'],
    ['random', '123E4567-E89B-12D3-A456-426614174000', 'ok'],
    ['random', '123e4567e89b12d3a456426614174000', 'invalid'],
    ['random', 'g23e4567-e89b-12d3-a456-426614174000', 'invalid'],
    ['random', '123e4567-e89b-12d3-a456-42661417400', 'invalid'],
    ['random', 'maria@example.com', 'invalid'],
  ];
  it('the 77-character boundary example is 77 characters', () => {
    expect(`${'a'.repeat(64)}@${'b'.repeat(8)}.com`.length).toBe(77);
    expect(`${'a'.repeat(60)}@${'b'.repeat(13)}.com`.length).toBe(78);
  });
  it.each(cases)('%s key %s is %s', (type, key, want) => {
    const r = check(PIX, { instant_transfer_type: type, instant_transfer_key: key });
    expect(outcome(PIX, { instant_transfer_type: type, instant_transfer_key: key })).toBe(
      want === 'ok' ? 'ok' : `${want}:beneficiary.instant_transfer_key`,
    );
    expect(r.key_valid).toBe(want === 'ok');
  });
});

describe('CPF and CNPJ (oracle: cpf-cnpj-validator)', () => {
  const cpfs = Array.from({ length: 20 }, () => cpf.generate());
  const cnpjs = Array.from({ length: 20 }, () => cnpj.generate());

  it('20 generated CPFs pass as document (plain and formatted) and as a cpf key; a changed digit is INVALID', () => {
    for (const doc of cpfs) {
      expect(cpf.isValid(doc)).toBe(true);
      expect(outcome(PIX, { document_type: 'CPF', document: doc })).toBe('ok');
      expect(outcome(PIX, { document_type: 'CPF', document: cpf.format(doc) })).toBe('ok');
      expect(outcome(PIX, { instant_transfer_type: 'cpf', instant_transfer_key: doc })).toBe('ok');
      for (const bad of [wrongLast(doc), wrongAt(doc, 9)]) {
        expect([bad, cpf.isValid(bad)]).toEqual([bad, false]);
        expect(outcome(PIX, { document_type: 'CPF', document: bad })).toBe('invalid:beneficiary.document');
        expect(outcome(PIX, { instant_transfer_type: 'cpf', instant_transfer_key: bad })).toBe('invalid:beneficiary.instant_transfer_key');
      }
    }
  });

  it('20 generated CNPJs pass as document and as a cnpj key; a changed digit is INVALID', () => {
    for (const doc of cnpjs) {
      expect(cnpj.isValid(doc)).toBe(true);
      expect(outcome(PIX, { document_type: 'CNPJ', document: doc })).toBe('ok');
      expect(outcome(PIX, { document_type: 'CNPJ', document: cnpj.format(doc) })).toBe('ok');
      expect(outcome(PIX, { instant_transfer_type: 'cnpj', instant_transfer_key: doc })).toBe('ok');
      const bad = wrongLast(doc);
      expect([bad, cnpj.isValid(bad)]).toEqual([bad, false]);
      expect(outcome(PIX, { document_type: 'CNPJ', document: bad })).toBe('invalid:beneficiary.document');
      expect(outcome(PIX, { instant_transfer_type: 'cnpj', instant_transfer_key: bad })).toBe('invalid:beneficiary.instant_transfer_key');
    }
  });

  it.each(['00000000191', '00000000272', '00000000353', '00000000434'])(
    'sandbox document %s is a valid CPF and a valid PIX beneficiary',
    (doc) => {
      expect(cpf.isValid(doc)).toBe(true);
      expect(check(PIX, { document_type: 'CPF', document: doc })).toEqual({
        malformed: [],
        invalid: [],
        document_valid: true,
        key_valid: true,
      });
      expect(outcome(PIX, { document_type: 'CPF', document: doc, instant_transfer_type: 'cpf', instant_transfer_key: doc })).toBe('ok');
    },
  );
});

describe('SPEI CLABE (oracle: clabe-validator, ESM-only, run in a child node process)', () => {
  type Check = { ok: boolean };
  const oracle = (values: string[]): Check[] =>
    JSON.parse(
      execFileSync(
        process.execPath,
        [
          '--input-type=module',
          '-e',
          "import { clabe } from 'clabe-validator'; " +
            'console.log(JSON.stringify(JSON.parse(process.argv[1]).map((v) => clabe.validate(v))));',
          JSON.stringify(values),
        ],
        { cwd: process.cwd(), encoding: 'utf8' },
      ),
    ) as Check[];

  const banks = ['002', '012', '014', '021', '072', '127', '137', '646'];
  const built = Array.from({ length: 20 }, (_, i) =>
    buildClabe(banks[i % banks.length]!, ['010', '180', '320', '580', '650'][i % 5]!, digitsFrom(`clabe${i}`, 11)),
  );
  const wrong = built.map(wrongLast);

  it('CLABEs the oracle accepts are valid keys; a wrong check digit is INVALID for both', () => {
    const results = oracle([...built, ...wrong]);
    built.forEach((c, i) => {
      expect([c, results[i]!.ok]).toEqual([c, true]);
      expect(check(SPEI, { instant_transfer_key: c })).toMatchObject({ malformed: [], invalid: [], key_valid: true });
    });
    wrong.forEach((c, i) => {
      expect([c, results[built.length + i]!.ok]).toEqual([c, false]);
      expect(outcome(SPEI, { instant_transfer_key: c })).toBe('invalid:beneficiary.instant_transfer_key');
    });
  });

  it('a key that is not 18 digits is malformed', () => {
    for (const bad of [
      CLABE.slice(0, 17),
      `${CLABE}0`,
      `${CLABE.slice(0, 17)}X`,
      `${CLABE.slice(0, 3)} ${CLABE.slice(3)}`,
      `${CLABE.slice(0, 3)}-${CLABE.slice(3)}`,
    ]) {
      const r = check(SPEI, { instant_transfer_key: bad });
      expect(fields(r.malformed)).toEqual(['beneficiary.instant_transfer_key']);
      expect(r.key_valid).toBe(false);
    }
  });
});

describe('Argentina CBU / CVU (oracle: arg.js)', () => {
  const built = Array.from({ length: 40 }, (_, i) =>
    buildCbu(digitsFrom(`bank${i}`, 3).replace(/^000/, '007'), digitsFrom(`branch${i}`, 4), digitsFrom(`acct${i}`, 13)),
  );
  const cvus = Array.from({ length: 10 }, (_, i) => buildCvu(digitsFrom(`psp${i}`, 4), digitsFrom(`cvu${i}`, 13)));

  it("accepts published example CBUs and rejects arg.js's negative examples", () => {
    for (const v of [CBU]) {
      expect(argjs.cbu.isValid(v)).toBe(true);
      expect(isValidCbu(v)).toBe(true);
    }
    for (const v of ['2810590940090418135201', '2850590940090418135211', '28505909400904181352012', '285059094009041813520']) {
      expect(argjs.cbu.isValid(v)).toBe(false);
      expect(isValidCbu(v)).toBe(false);
    }
    // Mercado Pago's CVUs (PSP 0003) begin 00000031: entity 000, PSP 0003, check digit 1.
    expect(buildCvu('0003', '0000000000001').slice(0, 8)).toBe('00000031');
  });

  it('CBUs from buildCbu are valid for arg.js and for us; changing either check digit breaks both', () => {
    for (const v of built) {
      expect(v).toMatch(/^\d{22}$/);
      expect([v, argjs.cbu.isValid(v)]).toEqual([v, true]);
      expect(isValidCbu(v)).toBe(true);
      expect(isValidCvu(v)).toBe(false);
      expect(check(ARG, { instant_transfer_type: 'cbu', instant_transfer_key: v })).toMatchObject({
        malformed: [],
        invalid: [],
        key_valid: true,
      });
      for (const bad of [wrongAt(v, 7), wrongAt(v, 21), wrongAt(v, 0), wrongAt(v, 12)]) {
        expect([bad, argjs.cbu.isValid(bad)]).toEqual([bad, false]);
        expect(isValidCbu(bad)).toBe(false);
        expect(outcome(ARG, { instant_transfer_type: 'cbu', instant_transfer_key: bad })).toBe('invalid:beneficiary.instant_transfer_key');
      }
    }
  });

  it('agrees with arg.js on arbitrary 22-digit strings, half of them with repaired check digits', () => {
    for (let i = 0; i < 400; i++) {
      let s = digitsFrom(`any-cbu${i}`, 22);
      if (i % 2 === 0)
        s =
          s.slice(0, 7) + cbuBlock1CheckDigit(s.slice(0, 7)) + s.slice(8, 21) + (i % 4 === 0 ? cbuBlock2CheckDigit(s.slice(8, 21)) : s[21]);
      expect([s, isValidCbu(s)]).toEqual([s, argjs.cbu.isValid(s)]);
    }
  });

  it('CVUs start with 000 and use the same algorithm; the type must match the key', () => {
    for (const v of cvus) {
      expect(v.startsWith('000')).toBe(true);
      expect(argjs.cbu.isValid(v)).toBe(true);
      expect(isValidCvu(v)).toBe(true);
      expect(outcome(ARG, { instant_transfer_type: 'cvu', instant_transfer_key: v })).toBe('ok');
      expect(outcome(ARG, { instant_transfer_type: 'cbu', instant_transfer_key: v })).toBe('invalid:beneficiary.instant_transfer_key');
      expect(outcome(ARG, { instant_transfer_type: 'cvu', instant_transfer_key: wrongLast(v) })).toBe(
        'invalid:beneficiary.instant_transfer_key',
      );
    }
    expect(outcome(ARG, { instant_transfer_type: 'cvu', instant_transfer_key: CBU })).toBe('invalid:beneficiary.instant_transfer_key');
  });

  it('a key that is not 22 digits is malformed', () => {
    for (const type of ['cbu', 'cvu']) {
      for (const bad of [CBU.slice(0, 21), `${CBU}1`, `${CBU.slice(0, 21)}A`, `${CBU.slice(0, 8)} ${CBU.slice(8)}`, 'mi.alias.mp']) {
        expect(outcome(ARG, { instant_transfer_type: type, instant_transfer_key: bad })).toBe('malformed:beneficiary.instant_transfer_key');
      }
    }
  });

  it('buildCbu and the check-digit helpers refuse bad input', () => {
    expect(() => buildCbu('28', '0590', '4009041813520')).toThrow(RangeError);
    expect(() => buildCbu('285', '059', '4009041813520')).toThrow(RangeError);
    expect(() => buildCbu('285', '0590', '400904181352')).toThrow(RangeError);
    expect(() => cbuBlock1CheckDigit('285059')).toThrow(RangeError);
    expect(() => cbuBlock2CheckDigit('40090418135201')).toThrow(RangeError);
    expect(buildCbu('285', '0590', '4009041813520')).toBe(CBU);
    for (const v of [undefined, null, 2850590940, '']) expect(isValidCbu(v)).toBe(false);
  });
});

test('field errors read as one sentence with one final period, whether or not a message ends with one', () => {
  expect(
    describeFieldErrors([
      { field: 'beneficiary.instant_transfer_key', message: 'A CVU has 22 digits.' },
      { field: 'beneficiary.document', message: 'check digit does not match' },
    ]),
  ).toBe('beneficiary.instant_transfer_key A CVU has 22 digits; beneficiary.document check digit does not match.');
});
