/** STP's wire and our domain: the claveRastreo derived from a payout id, the order's text fields, order states. */
import fc from 'fast-check';
import {
  claveRastreoOf,
  orderStateOf,
  payoutIdOfClaveRastreo,
  referenciaNumericaOf,
  rfcCurpOf,
  stpText,
} from '../../shared/adapters/providers/stp/stp.transformers';
import { institutionOfClabe } from '../../shared/adapters/providers/stp/stp.institutions';

describe('references derived from our payout ids', () => {
  it('a claveRastreo is LP + 26 base32 characters (alphanumeric, 28 <= 29) and maps back to the payout id', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 16, maxLength: 16 }), (bytes) => {
        const id = `po_${Buffer.from(bytes).toString('base64url')}`;
        const clave = claveRastreoOf(id);
        expect(clave).toMatch(/^LP[A-Z2-7]{26}$/);
        expect(payoutIdOfClaveRastreo(clave)).toBe(id);
        const n = referenciaNumericaOf(id);
        expect(n).toBe(referenciaNumericaOf(id));
        expect(String(n)).toMatch(/^\d{7}$/);
      }),
    );
  });

  it('anything else is not one of ours', () => {
    expect(() => claveRastreoOf('pi_AAAAAAAAAAAAAAAAAAAAAA')).toThrow(RangeError);
    expect(payoutIdOfClaveRastreo('CR1564969083')).toBeNull();
    expect(payoutIdOfClaveRastreo(`LP${'A'.repeat(25)}`)).toBeNull();
    // 26 characters carry 130 bits: the two spare bits must be zero, so one id has exactly one claveRastreo.
    expect(payoutIdOfClaveRastreo(`LP${'A'.repeat(25)}D`)).toBeNull();
  });
});

describe('the order’s fields', () => {
  it('text is ASCII without the cadena’s delimiter, at most the field’s length', () => {
    expect(stpText('José Ñúñez | Cía.', 39)).toBe('Jose Nunez Cia.');
    expect(stpText('x'.repeat(60), 39)).toHaveLength(39);
    expect(stpText('|||', 39)).toBe('');
  });

  it('an RFC or CURP is sent as it is, anything else as ND', () => {
    expect(rfcCurpOf('lopm800101mdfprr09')).toBe('LOPM800101MDFPRR09');
    expect(rfcCurpOf('LOPM800101AB1')).toBe('LOPM800101AB1');
    expect(rfcCurpOf('12345')).toBe('ND');
  });

  it('the counterpart institution comes from the CLABE’s bank code', () => {
    expect(institutionOfClabe('072691004495711499')).toBe('40072');
    expect(institutionOfClabe('646180123400000007')).toBe('90646');
    expect(institutionOfClabe('006180000000000000')).toBe('37006');
    expect(institutionOfClabe('999180000000000000')).toBeNull();
  });
});

describe('order states read back', () => {
  const o = (estado: string) => ({ claveRastreo: 'LPX', estado, monto: 1, idEF: 7, tsLiquidacion: 1764000000000, causaDevolucion: 1 });
  it.each([
    ['LQ', 'settled'],
    ['CN', 'cancelled'],
    ['D', 'returned'],
    ['L', 'pending'],
    ['E', 'pending'],
  ])('%s is %s', (estado, kind) => {
    expect(orderStateOf(o(estado)).kind).toBe(kind);
  });
});
