/**
 * STP's cadena original and firma (DESIGN.md section 8): the 34 order fields in STP's documented order, empty
 * fields kept, amounts with two decimals; the signature RSA PKCS#1 v1.5 SHA-256, base64.
 */
import { generateKeyPairSync } from 'node:crypto';
import { consultaCadena, consultaOrdenCadena, montoOf, ORDEN_FIELDS, ordenCadena } from '../../shared/adapters/providers/stp/stp.cadena';
import { firmaMatches, StpKeyError, stpSigner } from '../../shared/adapters/providers/stp/stp.signer';

/**
 * A worked example derived from STP's field order: a payout of 1,234.50 MXN from our STP account
 * 646180110400000007 to a Banorte CLABE (bank code 072 -> institución 40072).
 */
const example = {
  institucionContraparte: '40072',
  empresa: 'LATAMPAY',
  claveRastreo: 'LP7E2QFZ4K9WB3M5XYHT6C8NRDJ2',
  institucionOperante: '90646',
  monto: '1234.50',
  tipoPago: 1,
  tipoCuentaOrdenante: 40,
  cuentaOrdenante: '646180110400000007',
  tipoCuentaBeneficiario: 40,
  nombreBeneficiario: 'MARIA LOPEZ PEREZ',
  cuentaBeneficiario: '072691004495711499',
  rfcCurpBeneficiario: 'LOPM800101MDFPRR09',
  conceptoPago: 'Pago proveedor 881',
  referenciaNumerica: 4417203,
  topologia: 'T',
  medioEntrega: 3,
  prioridad: 0,
} as const;

/** Position by position (1-based, as STP's table numbers them); '' where the example leaves the field empty. */
const expectedPositions: Array<[number, string, string]> = [
  [1, 'institucionContraparte', '40072'],
  [2, 'empresa', 'LATAMPAY'],
  [3, 'fechaOperacion', ''],
  [4, 'folioOrigen', ''],
  [5, 'claveRastreo', 'LP7E2QFZ4K9WB3M5XYHT6C8NRDJ2'],
  [6, 'institucionOperante', '90646'],
  [7, 'monto', '1234.50'],
  [8, 'tipoPago', '1'],
  [9, 'tipoCuentaOrdenante', '40'],
  [10, 'nombreOrdenante', ''],
  [11, 'cuentaOrdenante', '646180110400000007'],
  [12, 'rfcCurpOrdenante', ''],
  [13, 'tipoCuentaBeneficiario', '40'],
  [14, 'nombreBeneficiario', 'MARIA LOPEZ PEREZ'],
  [15, 'cuentaBeneficiario', '072691004495711499'],
  [16, 'rfcCurpBeneficiario', 'LOPM800101MDFPRR09'],
  [17, 'emailBeneficiario', ''],
  [18, 'tipoCuentaBeneficiario2', ''],
  [19, 'nombreBeneficiario2', ''],
  [20, 'cuentaBeneficiario2', ''],
  [21, 'rfcCurpBeneficiario2', ''],
  [22, 'conceptoPago', 'Pago proveedor 881'],
  [23, 'conceptoPago2', ''],
  [24, 'claveCatUsuario1', ''],
  [25, 'claveCatUsuario2', ''],
  [26, 'clavePago', ''],
  [27, 'referenciaCobranza', ''],
  [28, 'referenciaNumerica', '4417203'],
  [29, 'tipoOperacion', ''],
  [30, 'topologia', 'T'],
  [31, 'usuario', ''],
  [32, 'medioEntrega', '3'],
  [33, 'prioridad', '0'],
  [34, 'iva', ''],
];

describe('the cadena original of an order', () => {
  it('has 34 fields in STP’s order', () => {
    expect(ORDEN_FIELDS).toHaveLength(34);
    expect(expectedPositions.map(([, name]) => name)).toEqual([...ORDEN_FIELDS]);
  });

  it('writes the worked example field by field, empty fields kept, between || and ||', () => {
    const cadena = ordenCadena(example);
    expect(cadena.startsWith('||')).toBe(true);
    expect(cadena.endsWith('||')).toBe(true);
    const inner = cadena.slice(2, -2).split('|');
    expect(inner).toHaveLength(34);
    for (const [position, name, value] of expectedPositions) expect([position, name, inner[position - 1]]).toEqual([position, name, value]);
    expect(cadena).toBe(
      '||40072|LATAMPAY|||LP7E2QFZ4K9WB3M5XYHT6C8NRDJ2|90646|1234.50|1|40||646180110400000007||40|MARIA LOPEZ PEREZ|' +
        '072691004495711499|LOPM800101MDFPRR09||||||Pago proveedor 881||||||4417203||T||3|0|||',
    );
  });

  it('puts each field in its own position (a marker per field lands where STP expects it)', () => {
    const marked = Object.fromEntries(ORDEN_FIELDS.map((f, i) => [f, `v${i + 1}`]));
    const inner = ordenCadena(marked).slice(2, -2).split('|');
    expect(inner).toEqual(ORDEN_FIELDS.map((_, i) => `v${i + 1}`));
  });

  it('writes an order with no fields as 33 separators between the delimiters (every empty field kept)', () => {
    expect(ordenCadena({})).toBe(`||${'|'.repeat(33)}||`);
  });

  it('writes amounts with two decimals from centavos, never through a float', () => {
    expect(montoOf(120)).toBe('1.20');
    expect(montoOf(123450)).toBe('1234.50');
    expect(montoOf(5)).toBe('0.05');
    expect(montoOf(50_000_000)).toBe('500000.00');
    expect(() => montoOf(0)).toThrow(RangeError);
    expect(() => montoOf(1.5)).toThrow(RangeError);
  });

  it('signs a query with only empresa, fechaOperacion, claveRastreo and institucionOperante in their positions', () => {
    const inner = consultaCadena({ empresa: 'LATAMPAY', claveRastreo: 'LPABC', institucionOperante: 90646 }).slice(2, -2).split('|');
    expect(inner).toHaveLength(34);
    expect(inner[1]).toBe('LATAMPAY');
    expect(inner[2]).toBe('');
    expect(inner[4]).toBe('LPABC');
    expect(inner[5]).toBe('90646');
    expect(inner.filter((v) => v !== '')).toHaveLength(3);
    expect(consultaCadena({ empresa: 'LATAMPAY', fechaOperacion: '20261125' }).slice(2, -2).split('|')[2]).toBe('20261125');
  });
});

describe('the cadena of the efws order query (consultaOrden)', () => {
  it('is ||empresa|claveRastreo|tipoOrden|fechaOperacion|| (the deposit query: tipoOrden R)', () => {
    const q = { empresa: 'TAMIZI', claveRastreo: 'APZ450057199641', tipoOrden: 'R' as const, fechaOperacion: '20230517' };
    expect(consultaOrdenCadena(q)).toBe('||TAMIZI|APZ450057199641|R|20230517||');
    expect(consultaOrdenCadena({ ...q, fechaOperacion: undefined })).toBe('||TAMIZI|APZ450057199641|R|||');
  });
});

describe('the firma', () => {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const encryptedPem = privateKey.export({ type: 'pkcs8', format: 'pem', cipher: 'aes-256-cbc', passphrase: 'frase secreta' }).toString();
  const plainPem = privateKey.export({ type: 'pkcs1', format: 'pem' }).toString();

  it('is the base64 RSA PKCS#1 v1.5 SHA-256 signature of the cadena, deterministic, checked by the public key', () => {
    const signer = stpSigner(encryptedPem, 'frase secreta');
    const cadena = ordenCadena(example);
    const firma = signer.sign(cadena);
    expect(firma).toMatch(/^[A-Za-z0-9+/]+={0,2}$/);
    expect(Buffer.from(firma, 'base64')).toHaveLength(256);
    expect(signer.sign(cadena)).toBe(firma); // PKCS#1 v1.5: a re-sent order carries the same firma
    expect(firmaMatches(publicKey, cadena, firma)).toBe(true);
    expect(firmaMatches(signer.publicKey, cadena, firma)).toBe(true);
    // One character of one field changed: the firma no longer matches.
    expect(firmaMatches(publicKey, ordenCadena({ ...example, monto: '1234.51' }), firma)).toBe(false);
    expect(stpSigner(plainPem).sign(cadena)).toBe(firma);
  });

  it('refuses a wrong passphrase without naming the key or the passphrase', () => {
    let error: unknown;
    try {
      stpSigner(encryptedPem, 'otra frase');
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(StpKeyError);
    expect(String(error)).not.toContain('otra frase');
    expect(String(error)).not.toContain('PRIVATE KEY');
  });
});
