/**
 * Real-world payment artefacts (DESIGN.md 6): PIX BR Code and its QR, boleto, CLABE, references;
 * each checked against an independent library (pix-utils, jsQR, boleto-utils, clabe-validator).
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { hasError, isStaticPix, parsePix } from 'pix-utils';
import jsQR from 'jsqr';
import { PNG } from 'pngjs';
import { qrPng, qrPngDataUri } from '../../shared/adapters/qr';
import { buildPixBrCode, crc16CcittFalse, isValidBrCodeCrc, parseEmv } from '../../shared/domain/payments/pix-brcode';
import {
  buildBoleto,
  dueFactor,
  formatTypeableLine,
  isValidTypeableLine,
  typeableLineToBarcode,
} from '../../shared/domain/payments/boleto';
import { buildClabe, clabeCheckDigit, isValidClabe } from '../../shared/domain/payments/clabe';
import { pixTxid } from '../../shared/domain/payments/references';

/** @mrmgomes/boleto-utils ships no types: the part we use. */
interface BoletoUtils {
  validarBoleto(code: string): {
    sucesso: boolean;
    tipoBoleto?: string;
    codigoBarras?: string;
    valor?: number;
    vencimentoComNovoFator2025: Date;
  };
  identificarData(code: string, kind: 'CODIGO_DE_BARRAS' | 'LINHA_DIGITAVEL'): Date;
  codBarras2LinhaDigitavel(barcode: string, formatted: boolean): string;
  calculaDVCodBarras(code: string, position: number, mod: 10 | 11): number;
}
// eslint-disable-next-line @typescript-eslint/no-require-imports
const boletoUtils = require('@mrmgomes/boleto-utils') as BoletoUtils;

/** Deterministic byte source. */
function seeded(seed: string) {
  let counter = 0;
  return (n: number): Buffer => {
    const chunks: Buffer[] = [];
    for (let len = 0; len < n; len += 32) chunks.push(createHash('sha256').update(`${seed}:${counter++}`).digest());
    return Buffer.concat(chunks).subarray(0, n);
  };
}
const digitsOf = (random: (n: number) => Buffer, n: number) => [...random(n)].map((b) => String(b % 10)).join('');

describe('PIX BR Code', () => {
  it('CRC16-CCITT-FALSE matches the standard check value and the BCB manual example', () => {
    expect(crc16CcittFalse('123456789')).toBe('29B1');
    // Manual de Padrões para Iniciação do Pix, static BR Code example.
    const bcb =
      '00020126580014br.gov.bcb.pix0136123e4567-e12b-12d1-a456-426655440000' +
      '5204000053039865802BR5913Fulano de Tal6008BRASILIA62070503***6304';
    expect(crc16CcittFalse(bcb)).toBe('1D3D');
    expect(isValidBrCodeCrc(`${bcb}1D3D`)).toBe(true);
  });

  const cases = [
    {
      pixKey: '123e4567-e12b-12d1-a456-426655440000',
      merchantName: 'Loja Exemplo',
      merchantCity: 'Sao Paulo',
      amount: 10.5,
      txid: 'TX123',
      want: { name: 'Loja Exemplo', city: 'Sao Paulo', amount: '10.50' },
    },
    {
      pixKey: 'pagamentos@exemplo.com.br',
      merchantName: 'Padaria São João e Confeitaria Ltda',
      merchantCity: 'Florianópolis SC',
      amount: 1234.56,
      txid: 'A'.repeat(25),
      description: 'Pedido nº 42',
      want: { name: 'Padaria Sao Joao e Confei', city: 'Florianopolis S', amount: '1234.56' },
    },
    {
      pixKey: '+5511987654321',
      merchantName: 'Açaí & Cia',
      merchantCity: 'Belém',
      amount: 0.01,
      txid: 'abcXYZ019',
      want: { name: 'Acai & Cia', city: 'Belem', amount: '0.01' },
    },
    {
      pixKey: '52998224725',
      merchantName: 'X',
      merchantCity: 'Rio',
      amount: 99999.999,
      txid: 'Z',
      want: { name: 'X', city: 'Rio', amount: '100000.00' },
    },
  ];

  it.each(cases)('is parsed by pix-utils with the same key, amount, name, city and txid ($pixKey)', (c) => {
    const code = buildPixBrCode(c);
    expect(code).toMatch(/^[\x20-\x7e]+$/);
    const parsed = parsePix(code);
    if (hasError(parsed)) throw new Error(`pix-utils rejected ${code}: ${parsed.message}`);
    expect(parsed).toMatchObject({
      type: 'STATIC',
      pixKey: c.pixKey,
      merchantName: c.want.name,
      merchantCity: c.want.city,
      txid: c.txid,
      transactionAmount: Number(c.want.amount),
      merchantCategoryCode: '0000',
      transactionCurrency: '986',
      countryCode: 'BR',
    });
    if (c.description) expect(parsed).toMatchObject({ infoAdicional: 'Pedido no 42' });

    const top = parseEmv(code);
    expect(top).toMatchObject({ '00': '01', '01': '12', '52': '0000', '53': '986', '54': c.want.amount, '58': 'BR' });
    expect(parseEmv(top['26']!)).toMatchObject({ '00': 'br.gov.bcb.pix', '01': c.pixKey });
    expect(parseEmv(top['62']!)).toEqual({ '05': c.txid });
    expect(isValidBrCodeCrc(code)).toBe(true);
    expect(code.slice(-8, -4)).toBe('6304');
    expect(code.slice(-4)).toMatch(/^[0-9A-F]{4}$/);
  });

  it('a tampered code fails the CRC, for pix-utils and for us', () => {
    const code = buildPixBrCode({ ...cases[0]!, amount: 10 });
    const tampered = code.replace('10.00', '90.00');
    expect(isValidBrCodeCrc(tampered)).toBe(false);
    const parsed = parsePix(tampered);
    expect(hasError(parsed)).toBe(true);
  });

  it('takes a generated txid and rejects bad input', () => {
    const txid = pixTxid(seeded('txid'));
    const parsed = parsePix(buildPixBrCode({ ...cases[0]!, txid }));
    expect(!hasError(parsed) && isStaticPix(parsed) ? parsed.txid : null).toBe(txid);
    expect(() => buildPixBrCode({ ...cases[0]!, txid: 'has-dash' })).toThrow(RangeError);
    expect(() => buildPixBrCode({ ...cases[0]!, txid: 'A'.repeat(26) })).toThrow(RangeError);
    expect(() => buildPixBrCode({ ...cases[0]!, amount: 0 })).toThrow(RangeError);
    expect(() => buildPixBrCode({ ...cases[0]!, pixKey: '' })).toThrow(RangeError);
    expect(() => buildPixBrCode({ ...cases[0]!, merchantName: '日本' })).toThrow(RangeError);
  });

  it('parseEmv rejects malformed TLV', () => {
    expect(parseEmv('0002AB0100')).toEqual({ '00': 'AB', '01': '' });
    expect(() => parseEmv('0002')).toThrow();
    expect(() => parseEmv('0005AB')).toThrow();
    expect(() => parseEmv('0A02AB')).toThrow();
  });
});

describe('QR PNG', () => {
  const decode = (png: Buffer) => {
    const img = PNG.sync.read(png);
    return jsQR(new Uint8ClampedArray(img.data), img.width, img.height)?.data;
  };

  it('qrPngDataUri decodes (pngjs + jsQR) back to exactly the BR Code', async () => {
    const code = buildPixBrCode(cases0());
    const uri = await qrPngDataUri(code);
    expect(uri.startsWith('data:image/png;base64,')).toBe(true);
    expect(decode(Buffer.from(uri.slice('data:image/png;base64,'.length), 'base64'))).toBe(code);
  });

  it('qrPng returns PNG bytes of the same QR', async () => {
    const code = buildPixBrCode({ ...cases0(), description: 'Pedido 42', txid: 'B'.repeat(25) });
    const png = await qrPng(code);
    expect(png.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
    expect(decode(png)).toBe(code);
  });

  function cases0() {
    return {
      pixKey: '123e4567-e12b-12d1-a456-426655440000',
      merchantName: 'Loja Exemplo',
      merchantCity: 'São Paulo',
      amount: 25,
      txid: 'QRTEST1',
    };
  }
});

describe('boleto', () => {
  it('reproduces a real boleto (boleto-utils README, Itaú) from its parts', () => {
    const barcode = '34196790600001000002220000005566385101214000';
    const dueDate = boletoUtils.identificarData(barcode, 'CODIGO_DE_BARRAS');
    const b = buildBoleto({ bankCode: '341', amountMinor: 100000, dueDate, freeField: barcode.slice(19) });
    expect(b).toEqual({ barcode, typeableLine: '34192220090000556638551012140003679060000100000' });
    expect(isValidTypeableLine('23790448095616862379336011058009740430000124020')).toBe(true);
    expect(isValidTypeableLine('23790.44809 56168.623793 36011.058009 7 40430000124020')).toBe(true);
  });

  it('due factor: days since 1997-10-07, 9999 on 2025-02-21, back to 1000 on 2025-02-22', () => {
    expect(dueFactor(new Date('2000-07-03T00:00:00Z'))).toBe('1000');
    expect(dueFactor(new Date('2025-02-21T15:00:00Z'))).toBe('9999');
    expect(dueFactor(new Date('2025-02-22T00:00:00Z'))).toBe('1000');
    expect(dueFactor(new Date('2025-02-23T23:59:59Z'))).toBe('1001');
    expect(dueFactor(new Date('2049-10-13T00:00:00Z'))).toBe('9999');
    expect(dueFactor(new Date('2049-10-14T00:00:00Z'))).toBe('1000');
    expect(() => dueFactor(new Date('2000-07-02T00:00:00Z'))).toThrow(RangeError);
  });

  const random = seeded('boleto');
  const inputs = Array.from({ length: 60 }, (_, i) => ({
    bankCode: ['001', '033', '104', '237', '341', '260'][i % 6]!,
    amountMinor: Number(digitsOf(random, 1 + (i % 9))) + 1,
    dueDate: new Date(Date.UTC(2025, 1, 22) + ((i * 97) % 3000) * 86_400_000),
    freeField: digitsOf(random, 25),
  }));

  it('typeable lines are accepted by boleto-utils and decode to the same amount, due date and barcode', () => {
    for (const input of inputs) {
      const { barcode, typeableLine } = buildBoleto(input);
      expect(barcode).toMatch(/^\d{44}$/);
      expect(typeableLine).toMatch(/^\d{47}$/);
      expect(isValidTypeableLine(typeableLine)).toBe(true);
      const r = boletoUtils.validarBoleto(typeableLine);
      expect(r).toMatchObject({ sucesso: true, tipoBoleto: 'BANCO', codigoBarras: barcode, valor: input.amountMinor / 100 });
      expect(r.vencimentoComNovoFator2025.toISOString().slice(0, 10)).toBe(input.dueDate.toISOString().slice(0, 10));
      expect(boletoUtils.codBarras2LinhaDigitavel(barcode, false)).toBe(typeableLine);
      expect(typeableLineToBarcode(formatTypeableLine(typeableLine))).toBe(barcode);
      // General DV: boleto-utils maps remainders 0 and 1 to DV 0, FEBRABAN (and we) to 1; a bank boleto DV is never 0.
      const libDv = boletoUtils.calculaDVCodBarras(barcode, 4, 11);
      expect(barcode[4]).toBe(libDv === 0 ? '1' : String(libDv));
    }
  });

  it('isValidTypeableLine catches any single-digit change in the three fields or the general DV', () => {
    const { typeableLine } = buildBoleto(inputs[0]!);
    for (let pos = 0; pos <= 32; pos++) {
      const d = Number(typeableLine[pos]);
      for (let delta = 1; delta <= 9; delta++) {
        const mutated = typeableLine.slice(0, pos) + String((d + delta) % 10) + typeableLine.slice(pos + 1);
        expect([pos, delta, isValidTypeableLine(mutated)]).toEqual([pos, delta, false]);
      }
    }
    expect(isValidTypeableLine(typeableLine.slice(1))).toBe(false);
  });

  it('rejects bad input', () => {
    const ok = inputs[0]!;
    expect(() => buildBoleto({ ...ok, bankCode: '34' })).toThrow(RangeError);
    expect(() => buildBoleto({ ...ok, freeField: '1'.repeat(24) })).toThrow(RangeError);
    expect(() => buildBoleto({ ...ok, amountMinor: 10.5 })).toThrow(RangeError);
    expect(() => buildBoleto({ ...ok, amountMinor: 1e10 })).toThrow(RangeError);
  });
});

describe('CLABE (oracle: clabe-validator, ESM-only, run in a child node process)', () => {
  type Check = { ok: boolean; error: string | null; checksum: number | null };
  const oracle = (script: string, input: unknown): unknown =>
    JSON.parse(
      execFileSync(
        process.execPath,
        [
          '--input-type=module',
          '-e',
          `import { clabe } from 'clabe-validator'; const input = JSON.parse(process.argv[1]); ${script}`,
          JSON.stringify(input),
        ],
        { cwd: process.cwd(), encoding: 'utf8' },
      ),
    );

  const random = seeded('clabe');
  const built = Array.from({ length: 40 }, (_, i) =>
    buildClabe(
      ['002', '012', '014', '021', '072', '127', '137', '646'][i % 8]!,
      ['010', '180', '320', '580', '650'][i % 5]!,
      digitsOf(random, 11),
    ),
  );

  it('CLABEs from buildClabe are accepted by clabe-validator; a wrong check digit is rejected by both', () => {
    const wrong = built.map((c) => c.slice(0, 17) + String((Number(c[17]) + 3) % 10));
    const results = oracle('console.log(JSON.stringify(input.map((v) => clabe.validate(v))));', [...built, ...wrong]) as Check[];
    built.forEach((c, i) => {
      expect(c).toMatch(/^\d{18}$/);
      expect(isValidClabe(c)).toBe(true);
      expect([c, results[i]!.ok]).toEqual([c, true]);
    });
    wrong.forEach((c, i) => {
      expect(isValidClabe(c)).toBe(false);
      expect([c, results[built.length + i]!.ok]).toEqual([c, false]);
    });
  });

  it('check digits equal clabe-validator computeChecksum on arbitrary 17-digit prefixes', () => {
    const prefixes = Array.from({ length: 200 }, () => digitsOf(random, 17));
    const sums = oracle('console.log(JSON.stringify(input.map((v) => clabe.computeChecksum(v))));', prefixes) as number[];
    prefixes.forEach((p, i) => expect([p, clabeCheckDigit(p)]).toEqual([p, String(sums[i])]));
  });

  it('rejects malformed input', () => {
    expect(isValidClabe('00201012345678901')).toBe(false);
    expect(isValidClabe('00201012345678901A')).toBe(false);
    expect(() => buildClabe('02', '010', '12345678901')).toThrow(RangeError);
    expect(() => buildClabe('002', '010', '1234567890')).toThrow(RangeError);
  });
});
