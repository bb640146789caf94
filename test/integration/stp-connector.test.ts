/**
 * The STP connector against the fake STP, over real HTTPS: the signed order and query are what STP checks
 * (schema, firma by the configured key, company and account), its refusals map to our failure codes, a lost
 * answer or a 5xx is ProviderUnavailable, and a second order for one claveRastreo is never made.
 */
import { createPrivateKey, createPublicKey, generateKeyPairSync, randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ProviderRejected, ProviderUnavailable, type PayoutOrderRequest } from '../../shared/application/providers';
import { parseProvidersConfig } from '../../shared/adapters/providers/providers.config';
import { stpConnectors, type StpConnectors } from '../../shared/adapters/providers/stp/stp.connector';
import { claveRastreoOf } from '../../shared/adapters/providers/stp/stp.transformers';
import { ordenCadena } from '../../shared/adapters/providers/stp/stp.cadena';
import { firmaMatches } from '../../shared/adapters/providers/stp/stp.signer';
import { startFakeStp, type FakeStp } from '../support/fake-stp';
import { cli } from '../support/cli';

const TOKEN = randomBytes(24).toString('base64url');
let stp: FakeStp;
let live: StpConnectors;

const connect = (over: Record<string, unknown> = {}) =>
  stpConnectors(
    parseProvidersConfig({ stp: { ...stp.stpConfig(TOKEN), timeouts: { connect_ms: 1000, total_ms: 1000 }, ...over } }, 'test').stp!,
  );

beforeAll(async () => {
  stp = await startFakeStp({ hangMs: 5_000 });
  live = connect();
});
afterAll(async () => {
  live?.client.close();
  await stp?.close();
});

const payoutId = () => `po_${randomBytes(16).toString('base64url')}`;
const request = (over: Partial<PayoutOrderRequest> = {}): PayoutOrderRequest => ({
  payoutId: payoutId(),
  methodCode: 'svc-mt-30',
  amountMinor: 123450,
  currency: 'MXN',
  instantTransferKey: '072691004495711499',
  instantTransferType: 'clabe',
  bankAccount: null,
  beneficiaryName: 'María López-Pérez',
  beneficiaryDocument: 'LOPM800101MDFPRR09',
  documentType: 'CURP',
  concept: 'Pago | proveedor ñ 881',
  callbackBaseUrl: 'https://api.example.com',
  ...over,
});
const prepared = (req: PayoutOrderRequest) => {
  const p = live.speiPayouts.prepare(req);
  if (!('order' in p)) throw new Error(p.invalid);
  return p.order;
};

describe('the STP connector against the fake STP', () => {
  it('registers a signed order the fake accepts, with the payout’s fields, and reads it back by claveRastreo', async () => {
    const req = request();
    const order = prepared(req);
    const clave = claveRastreoOf(req.payoutId);
    expect(await live.speiPayouts.get(clave)).toEqual({ kind: 'not_found' });
    const r = await live.speiPayouts.register(order);
    expect(r).toEqual({ orderId: expect.stringMatching(/^\d+$/) });
    expect(stp.order(clave)?.request).toMatchObject({
      claveRastreo: clave,
      empresa: stp.empresa,
      cuentaOrdenante: stp.cuentaOrdenante,
      institucionOperante: '90646',
      institucionContraparte: '40072',
      cuentaBeneficiario: '072691004495711499',
      tipoCuentaBeneficiario: 40,
      nombreBeneficiario: 'Maria Lopez-Perez',
      rfcCurpBeneficiario: 'LOPM800101MDFPRR09',
      monto: 1234.5,
      conceptoPago: 'Pago proveedor n 881',
      tipoPago: 1,
    });
    expect(await live.speiPayouts.get(clave)).toMatchObject({ kind: 'pending' });
    await stp.settle(clave, { callback: false });
    expect(await live.speiPayouts.get(clave)).toMatchObject({ kind: 'settled', orderId: 'orderId' in r ? r.orderId : '' });
    expect(stp.violations).toEqual([]);
  });

  it('a second send of the same order is STP’s duplicate, never a second order', async () => {
    const order = prepared(request());
    const first = await live.speiPayouts.register(order);
    expect(await live.speiPayouts.register(order)).toEqual({ duplicate: true });
    expect(stp.registrations(order.reference)).toBe(2);
    expect(String(stp.order(order.reference)?.id)).toBe('orderId' in first ? first.orderId : '');
  });

  it('STP’s refusals map to our codes; a bank code that is not a SPEI participant is refused before any call', async () => {
    stp.refuseAccount('012180001234567899', -7);
    const e = await live.speiPayouts.register(prepared(request({ instantTransferKey: '012180001234567899' }))).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(ProviderRejected);
    expect((e as ProviderRejected).code).toBe('invalid_account');
    expect(live.speiPayouts.prepare(request({ instantTransferKey: '999180001234567893' }))).toEqual({ invalid: expect.any(String) });
    expect(stp.violations).toEqual([]);
  });

  it('an order signed with another key is refused by STP as a signature error: unavailable, never a refusal of the payout', async () => {
    const other = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    const rogue = connect({ private_key_pem: other, private_key_passphrase: undefined });
    try {
      const req = request();
      const own = rogue.speiPayouts.prepare(req);
      if (!('order' in own)) throw new Error(own.invalid);
      const e = await rogue.speiPayouts.register(own.order).catch((x: unknown) => x);
      expect(e).toBeInstanceOf(ProviderUnavailable);
      expect(stp.order(claveRastreoOf(req.payoutId))).toBeUndefined();
      expect(stp.violations).toEqual([expect.stringContaining('firma does not match')]);
    } finally {
      rogue.client.close();
      (stp.violations as string[]).length = 0;
    }
  });

  it('a hang, a lost answer and a 5xx are ProviderUnavailable; the query tells whether the order exists', async () => {
    const lost = request();
    stp.failNext('registra', { hangAfter: true });
    await expect(live.speiPayouts.register(prepared(lost))).rejects.toBeInstanceOf(ProviderUnavailable);
    expect(await live.speiPayouts.get(claveRastreoOf(lost.payoutId))).toMatchObject({ kind: 'pending' });

    const never = request();
    stp.failNext('registra', { hang: true });
    await expect(live.speiPayouts.register(prepared(never))).rejects.toBeInstanceOf(ProviderUnavailable);
    expect(await live.speiPayouts.get(claveRastreoOf(never.payoutId))).toEqual({ kind: 'not_found' });

    stp.failNext('registra', { status: 503 });
    await expect(live.speiPayouts.register(prepared(request()))).rejects.toBeInstanceOf(ProviderUnavailable);
    // A query is idempotent: one 5xx is retried.
    stp.failNext('consulta', { status: 500 });
    expect(await live.speiPayouts.get(claveRastreoOf(lost.payoutId))).toMatchObject({ kind: 'pending' });
    stp.failNext('consulta', { status: 500 }, 2);
    await expect(live.speiPayouts.get(claveRastreoOf(lost.payoutId))).rejects.toBeInstanceOf(ProviderUnavailable);
    expect(stp.violations).toEqual([]);
  });

  it('the state callback parser: token, STP’s state names, the company; anything else is not STP’s shape', () => {
    const cb = live.speiPayoutCallbacks;
    expect(cb.tokenMatches(TOKEN)).toBe(true);
    expect(cb.tokenMatches(`${TOKEN}x`)).toBe(false);
    const clave = claveRastreoOf(payoutId());
    const body = { id: 41, empresa: stp.empresa, folioOrigen: clave, estado: 'LIQUIDACION', causaDevolucion: null, tsLiquidacion: 1 };
    expect(cb.parseState(body)).toEqual({ reference: clave, orderId: '41', claimed: 'settled' });
    expect(cb.parseState({ ...body, estado: 'CANCELACION' })?.claimed).toBe('cancelled');
    expect(cb.parseState({ ...body, estado: 'DEVOLUCION' })?.claimed).toBe('returned');
    expect(cb.parseState({ ...body, estado: 'SETTLED' })).toBeNull();
    expect(cb.parseState({ ...body, empresa: 'OTRA' })).toBeNull();
    expect(cb.payoutIdOf(clave)).toMatch(/^po_/);
    expect(cb.payoutIdOf('LP0000')).toBeNull();
  });

  it('providers check: a signed order query STP answers; a key STP does not know fails, naming no secret', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'providers-'));
    const good = join(dir, 'good.json');
    writeFileSync(good, JSON.stringify({ stp: stp.stpConfig(TOKEN) }));
    const ok = await cli('providers', 'check', '--providers', good);
    expect(ok.code).toBe(0);
    expect(ok.out).toContain(`stp: signed order query answered by ${stp.baseUrl} for empresa ${stp.empresa} (firma accepted)`);

    const other = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    const bad = join(dir, 'bad.json');
    const { private_key_passphrase: _, ...rest } = stp.stpConfig(TOKEN);
    writeFileSync(bad, JSON.stringify({ stp: { ...rest, private_key_pem: other } }));
    const failed = await cli('providers', 'check', '--providers', bad);
    expect(failed.code).toBe(1);
    expect(failed.out).toMatch(/stp: FAILED: STP refused the query itself \(signature/);
    expect(failed.out + failed.err).not.toContain('PRIVATE KEY');
    expect((stp.violations as string[]).splice(0)).toEqual([expect.stringContaining('firma does not match')]);
  });

  it('providers stp sign --cadena: prints the firma of that cadena with the configured key', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'providers-')), 'providers.json');
    const cfg = stp.stpConfig(TOKEN);
    writeFileSync(file, JSON.stringify({ stp: cfg }));
    const cadena = ordenCadena({ empresa: stp.empresa, claveRastreo: 'LPSOPORTE1', monto: '10.00' });
    const r = await cli('providers', 'stp', 'sign', '--cadena', cadena, '--providers', file);
    expect(r.code).toBe(0);
    const publicKey = createPublicKey(createPrivateKey({ key: cfg.private_key_pem!, passphrase: cfg.private_key_passphrase }));
    expect(firmaMatches(publicKey, cadena, r.out.trim())).toBe(true);
    expect(firmaMatches(publicKey, cadena.replace('10.00', '10.01'), r.out.trim())).toBe(false);
    expect((await cli('providers', 'stp', 'sign', '--providers', file)).code).toBe(1);
  });
});
