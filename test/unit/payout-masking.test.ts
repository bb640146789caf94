/** Masking of beneficiary data in responses (SPEC.md 2.6): recognisable, never the whole value. */
import { cnpj, cpf } from 'cpf-cnpj-validator';
import { buildClabe } from '../../shared/domain/payments/clabe';
import { buildCbu, buildCvu } from '../../shared/domain/payouts/cbu';
import { maskBeneficiary, maskKey, maskTail } from '../../shared/domain/payouts/masking';

/** The masked value hides the original: it is neither the value nor contains it. */
const hides = (masked: string, value: string) => {
  expect(masked).not.toBe(value);
  expect(masked.includes(value)).toBe(false);
};

describe('maskKey', () => {
  it.each([
    ['email', 'maria.silva@example.com.br', 'm***@example.com.br'],
    ['email', 'a@b.co', 'a***@b.co'],
    ['phone', '+5511987654321', '+55*******4321'],
    ['phone', '+551133334444', '+55*******4444'],
    ['cpf', '52998224725', '***725'],
    ['cnpj', '11222333000181', '***181'],
    ['random', '123e4567-e89b-12d3-a456-426614174000', '123e4567-****-****-****-************'],
    ['clabe', '002180701234567891', '**************7891'],
    ['cbu', '2850590940090418135201', '******************5201'],
    ['cvu', '0000003100010000000001', '******************0001'],
    ['account', '19312345678901', '**********8901'],
  ])('%s %s -> %s', (type, value, want) => {
    const masked = maskKey(type, value);
    expect(masked).toBe(want);
    hides(masked, value);
  });

  it('never returns the whole value and keeps its last characters, for many generated keys', () => {
    const samples: [string, string, number][] = [];
    for (let i = 0; i < 50; i++) {
      const n = String(i).padStart(2, '0');
      samples.push(['cpf', cpf.generate(), 3], ['cnpj', cnpj.generate(), 3]);
      samples.push(['clabe', buildClabe('012', '180', `${n}123456789`), 4]);
      samples.push(['cbu', buildCbu('285', '0590', `${n}09041813520`), 4], ['cvu', buildCvu('0003', `${n}00000000001`), 4]);
      samples.push(['phone', `+55119${n}654321`, 4], ['email', `user${n}@example.com`, 0]);
      samples.push(['random', crypto.randomUUID(), 0]);
    }
    for (const [type, value, tail] of samples) {
      const masked = maskKey(type, value);
      hides(masked, value);
      expect(masked).toContain('*');
      if (tail) expect([type, masked.slice(-tail)]).toEqual([type, value.slice(-tail)]);
    }
  });

  it('short or unexpected values are still hidden', () => {
    for (const [type, value] of [
      ['phone', '12345'],
      ['email', 'no-at-sign'],
      ['random', 'not-a-uuid'],
      ['clabe', '1234'],
      ['x', 'abcdefg'],
      ['cbu', ''],
    ]) {
      const masked = maskKey(type!, value!);
      if (value) hides(masked, value);
      expect(masked).toContain('*');
    }
    expect(maskTail('1234567')).toBe('*****67');
    expect(maskTail('12345678')).toBe('****5678');
    expect(maskTail('123')).toBe('****');
  });
});

describe('maskBeneficiary', () => {
  it('masks document, key and account, keeps the rest, nulls what is missing', () => {
    const pix = {
      name: 'Maria da Silva',
      document: '529.982.247-25',
      document_type: 'CPF',
      instant_transfer_key: '+5511987654321',
      instant_transfer_type: 'phone',
    };
    expect(maskBeneficiary(pix)).toEqual({
      name: 'Maria da Silva',
      document: '***725',
      document_type: 'CPF',
      instant_transfer_key: '+55*******4321',
      instant_transfer_type: 'phone',
      bank_code: null,
      account_number: null,
      account_type: null,
      wallet_id: null,
    });
    const bank = {
      name: 'Juan Pérez',
      document: '12345678',
      document_type: 'DNI',
      bank_code: '002',
      account_number: '19312345678901',
      account_type: 'savings',
    };
    expect(maskBeneficiary(bank)).toEqual({
      name: 'Juan Pérez',
      document: '***678',
      document_type: 'DNI',
      instant_transfer_key: null,
      instant_transfer_type: null,
      bank_code: '002',
      account_number: '**********8901',
      account_type: 'savings',
      wallet_id: null,
    });
  });

  it('the serialised result contains none of the secret values', () => {
    const b = {
      name: 'Ana López',
      document: 'BOXW310820HNERXN09',
      document_type: 'CURP',
      instant_transfer_key: buildClabe('002', '180', '70123456789'),
      instant_transfer_type: 'clabe',
      account_number: '1234567890',
      wallet_id: 'wallet-123456789',
    };
    const json = JSON.stringify(maskBeneficiary(b));
    for (const secret of [b.document, b.instant_transfer_key, b.account_number, b.wallet_id]) expect(json.includes(secret)).toBe(false);
    expect(json).toContain('N09');
    expect(json).toContain(b.instant_transfer_key.slice(-4));
  });
});
