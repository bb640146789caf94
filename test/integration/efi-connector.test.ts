/**
 * The Efí connector against the fake Efí, over real HTTPS with mutual TLS: a send by Pix key and by bank account
 * is what our schemas of Efí's rules take, read back by idEnvio (REALIZADO, NAO_REALIZADO, returned); a lost
 * answer sent again is Efí's 409 read back, never a second send; each refusal maps to our code (never Efí's
 * text); no answer or a 5xx is ProviderUnavailable within the configured time; the send callback's token and
 * parser; infractions (MED) listed across pages and mapped to dispute notices.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { ProviderRejected, ProviderUnavailable } from '../../shared/application/providers';
import { parseProvidersConfig } from '../../shared/adapters/providers/providers.config';
import { efiConnectors, type EfiConnectors } from '../../shared/adapters/providers/efi/efi.connector';
import { idEnvioOf, type PixPayoutOrderRequest } from '../../shared/adapters/providers/efi/efi.transformers';
import { sendAnswerSchema } from '../../shared/adapters/providers/efi/efi.schemas';
import { txidOf } from '../../shared/adapters/providers/api-pix/api-pix.transformers';
import { REFUSALS, startFakeEfi, type FakeEfi } from '../support/fake-efi';

const TOKEN = randomBytes(24).toString('base64url');
const TIMEOUT_MS = 1000;
let efi: FakeEfi;
let live: EfiConnectors;
let callbacks: Server;
const posted: Array<{ path: string; body: unknown }> = [];

const connect = (over: Record<string, unknown> = {}) =>
  efiConnectors(
    parseProvidersConfig({ efi: { ...efi.efiConfig(TOKEN), timeouts: { connect_ms: TIMEOUT_MS, total_ms: TIMEOUT_MS }, ...over } }, 'test')
      .efi!,
  );

beforeAll(async () => {
  efi = await startFakeEfi({ hangMs: 5_000, pageSize: 2 });
  callbacks = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      posted.push({ path: req.url ?? '', body: JSON.parse(Buffer.concat(chunks).toString('utf8')) });
      res.writeHead(200).end('200');
    });
  });
  await new Promise<void>((r) => callbacks.listen(0, '127.0.0.1', r));
  const addr = callbacks.address();
  efi.setWebhookUrl(`http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}/providers/efi/${TOKEN}`);
  live = connect();
});
afterEach(() => {
  expect(efi.violations).toEqual([]);
});
afterAll(async () => {
  live?.client.close();
  await efi?.close();
  await new Promise<void>((r) => callbacks?.close(() => r()));
});

const payoutId = () => `po_${randomBytes(16).toString('base64url')}`;
const byKey = (over: Partial<PixPayoutOrderRequest> = {}): PixPayoutOrderRequest => ({
  payoutId: payoutId(),
  amountMinor: 123450,
  beneficiaryName: 'Maria Souza',
  beneficiaryDocument: '529.982.247-25',
  pixKey: { type: 'email', value: `maria.${randomBytes(4).toString('hex')}@example.com` },
  concept: 'Repasse\u0000 semanal  #881',
  ...over,
});
const prepared = (req: PixPayoutOrderRequest, c = live) => {
  const p = c.pixPayouts.prepare(req);
  if (!('order' in p)) throw new Error(p.invalid);
  return p.order;
};

describe('PIX payouts through the fake Efí', () => {
  it('sends by Pix key with the owner’s CPF, reads it back pending, then REALIZADO as settled', async () => {
    const req = byKey();
    const order = prepared(req);
    const idEnvio = idEnvioOf(req.payoutId);
    expect(order.reference).toBe(idEnvio);
    expect(order.summary).toMatchObject({ idEnvio, valor: '1234.50', documento: '***725' });
    expect(JSON.stringify(order.summary)).not.toContain(req.pixKey!.value);
    expect(await live.pixPayouts.get(idEnvio)).toEqual({ kind: 'not_found' });

    const r = await live.pixPayouts.register(order);
    const send = efi.send(idEnvio)!;
    expect(r).toEqual({ orderId: send.endToEndId });
    expect(send.request).toEqual({
      valor: '1234.50',
      pagador: { chave: efi.pixKey, infoPagador: 'Repasse semanal #881' },
      favorecido: { chave: req.pixKey!.value, cpf: '52998224725' },
    });
    expect(await live.pixPayouts.get(idEnvio)).toEqual({ kind: 'pending', orderId: send.endToEndId });
    await efi.complete(idEnvio, { callback: false });
    expect(await live.pixPayouts.get(idEnvio)).toEqual({ kind: 'settled', orderId: send.endToEndId, at: send.liquidacao });
  });

  it('sends by bank account (COMPE 341 as its ISPB, a CNPJ holder); NAO_REALIZADO reads back cancelled; returned', async () => {
    const req = byKey({
      pixKey: undefined,
      beneficiaryName: 'Loja Exemplo Ltda',
      beneficiaryDocument: '11.222.333/0001-81',
      bankAccount: { bankCode: '341', agency: '0001', account: '12345-6', accountType: 'savings' },
      concept: null,
      amountMinor: 500,
    });
    await live.pixPayouts.register(prepared(req));
    const idEnvio = idEnvioOf(req.payoutId);
    expect(efi.send(idEnvio)?.request).toEqual({
      valor: '5.00',
      pagador: { chave: efi.pixKey },
      favorecido: {
        contaBanco: {
          nome: 'Loja Exemplo Ltda',
          cnpj: '11222333000181',
          codigoBanco: '60701190',
          agencia: '0001',
          conta: '123456',
          tipoConta: 'svgs',
        },
      },
    });
    await efi.fail(idEnvio, { spi: 'AC03', callback: false });
    expect(await live.pixPayouts.get(idEnvio)).toMatchObject({ kind: 'cancelled', reason: 'rejected_by_provider' });

    const back = byKey();
    const backId = idEnvioOf(back.payoutId);
    await live.pixPayouts.register(prepared(back));
    await efi.complete(backId, { callback: false });
    efi.returnSend(backId, '100.00');
    expect((await live.pixPayouts.get(backId)).kind).toBe('settled'); // a partial return leaves it settled
    efi.returnSend(backId, '1134.50');
    expect(await live.pixPayouts.get(backId)).toMatchObject({ kind: 'returned', reason: 'returned_by_beneficiary_bank' });
  });

  it('a lost answer sent again is Efí’s 409 read back: one send, never two; a send never taken is sent', async () => {
    const lost = byKey();
    const order = prepared(lost);
    efi.failNext('send', { hangAfter: true });
    const started = Date.now();
    await expect(live.pixPayouts.register(order)).rejects.toBeInstanceOf(ProviderUnavailable);
    expect(Date.now() - started).toBeLessThan(TIMEOUT_MS + 1500);
    expect(await live.pixPayouts.get(order.reference)).toMatchObject({ kind: 'pending' });
    const again = await live.pixPayouts.register(order);
    expect(again).toEqual({ orderId: efi.send(order.reference)!.endToEndId });
    expect(efi.attempts(order.reference)).toBe(2);
    expect([...efi.requests].filter((r) => r.method === 'PUT' && r.path.endsWith(order.reference))).toHaveLength(2);

    const never = prepared(byKey());
    efi.failNext('send', { hang: true });
    await expect(live.pixPayouts.register(never)).rejects.toBeInstanceOf(ProviderUnavailable);
    expect(await live.pixPayouts.get(never.reference)).toEqual({ kind: 'not_found' });
    expect(await live.pixPayouts.register(never)).toEqual({ orderId: expect.stringMatching(/^E09089356/) });
    expect(efi.attempts(never.reference)).toBe(1);
  });

  it('each refusal maps to our code; a payer key that is not the account’s is our configuration, not the payout’s', async () => {
    const cases: Array<[keyof typeof REFUSALS, string]> = [
      ['keyNotFound', 'invalid_account'],
      ['ownerMismatch', 'beneficiary_mismatch'],
      ['denied', 'rejected_by_provider'],
      ['balance', 'provider_balance_insufficient'],
    ];
    for (const [refusal, code] of cases) {
      const req = byKey();
      efi.refuse(req.pixKey!.value, REFUSALS[refusal]);
      const e = await live.pixPayouts.register(prepared(req)).catch((x: unknown) => x);
      expect([refusal, e]).toEqual([refusal, expect.any(ProviderRejected)]);
      expect([refusal, (e as ProviderRejected).code, (e as Error).message]).toEqual([
        refusal,
        code,
        expect.not.stringContaining('fake Efí'),
      ]);
      expect(efi.send(idEnvioOf(req.payoutId))).toBeUndefined();
    }
    const other = connect({ pix_key: 'outra-chave@example.com' });
    try {
      await expect(other.pixPayouts.register(prepared(byKey(), other))).rejects.toBeInstanceOf(ProviderUnavailable);
    } finally {
      other.client.close();
    }
    // A failure after the send was taken (an SPI code) is Efí's NAO_REALIZADO, told by callback and read back.
    const later = byKey();
    efi.refuse(later.pixKey!.value, REFUSALS.accountInvalid);
    await live.pixPayouts.register(prepared(later));
    await new Promise((r) => setTimeout(r, 200));
    expect(await live.pixPayouts.get(idEnvioOf(later.payoutId))).toMatchObject({ kind: 'cancelled' });
    // What cannot be an Efí send is refused before any call.
    expect(live.pixPayouts.prepare(byKey({ beneficiaryDocument: '123' }))).toEqual({ invalid: expect.any(String) });
    expect(
      live.pixPayouts.prepare(
        byKey({ pixKey: undefined, bankAccount: { bankCode: '999', agency: '1', account: '1', accountType: 'checking' } }),
      ),
    ).toEqual({ invalid: expect.any(String) });
    expect(
      live.pixPayouts.prepare(byKey({ bankAccount: { bankCode: '341', agency: '1', account: '1', accountType: 'checking' } })),
    ).toEqual({
      invalid: expect.any(String),
    });
  });

  it('no answer or a 5xx is ProviderUnavailable within the time limit; a read is tried once more, a send never', async () => {
    const order = prepared(byKey());
    efi.failNext('send', { status: 503 });
    await expect(live.pixPayouts.register(order)).rejects.toBeInstanceOf(ProviderUnavailable);
    expect(efi.attempts(order.reference)).toBe(0);
    await live.pixPayouts.register(order);
    efi.failNext('getSent', { status: 500 });
    expect(await live.pixPayouts.get(order.reference)).toMatchObject({ kind: 'pending' });
    efi.failNext('getSent', { status: 500 }, 2);
    await expect(live.pixPayouts.get(order.reference)).rejects.toBeInstanceOf(ProviderUnavailable);
    efi.failNext('getSent', { hang: true }, 2);
    const started = Date.now();
    await expect(live.pixPayouts.get(order.reference)).rejects.toBeInstanceOf(ProviderUnavailable);
    expect(Date.now() - started).toBeLessThan(2 * TIMEOUT_MS + 1500);
  });

  it('the fake holds us to our schemas: an unknown field, and another body for a used idEnvio, are violations', async () => {
    const req = byKey();
    const order = prepared(req);
    await live.pixPayouts.register(order);
    const path = `/v3/gn/pix/${order.reference}`;
    const body = efi.send(order.reference)!.request;
    const other = { ...body, valor: '1.00' };
    const e = await live.client.call('send', 'PUT', path, sendAnswerSchema, other).catch((x: unknown) => x);
    expect(e).toMatchObject({ status: 409, efiName: 'id_envio_duplicado' });
    const extra = { ...body, favorecido: { ...body.favorecido, apelido: 'x' } };
    const f = await live.client
      .call('send', 'PUT', `/v3/gn/pix/${idEnvioOf(payoutId())}`, sendAnswerSchema, extra)
      .catch((x: unknown) => x);
    expect(f).toMatchObject({ status: 400, efiName: 'json_invalido' });
    expect(efi.violations.splice(0)).toEqual([
      `send ${order.reference}: another body for one idEnvio`,
      expect.stringContaining('PUT /v3/gn/pix body'),
    ]);
  });

  it('a client certificate Efí did not issue fails the handshake: unavailable, nothing sent', async () => {
    const rogue = connect({ certificate_pem: efi.rogueClientCertPem, private_key_pem: efi.rogueClientKeyPem });
    try {
      const e = await rogue.pixPayouts.register(prepared(byKey(), rogue)).catch((x: unknown) => x);
      expect(e).toBeInstanceOf(ProviderUnavailable);
      expect((e as ProviderUnavailable).operation).toBe('token');
    } finally {
      rogue.client.close();
    }
  });
});

describe('the send callback', () => {
  it('checks the path token in constant time and reads the sends a callback carries (a received Pix is ignored)', async () => {
    const cb = live.pixPayoutCallbacks;
    expect(cb.tokenMatches(TOKEN)).toBe(true);
    expect(cb.tokenMatches(`${TOKEN}x`)).toBe(false);
    expect(cb.tokenMatches('')).toBe(false);

    const ok = byKey();
    const bad = byKey();
    await live.pixPayouts.register(prepared(ok));
    await live.pixPayouts.register(prepared(bad));
    posted.length = 0;
    expect((await efi.complete(idEnvioOf(ok.payoutId)))?.status).toBe(200);
    expect((await efi.fail(idEnvioOf(bad.payoutId), { spi: 'AC03' }))?.status).toBe(200);
    expect(posted.map((p) => p.path)).toEqual([`/providers/efi/${TOKEN}/pix`, `/providers/efi/${TOKEN}/pix`]);
    expect(cb.parseState(posted[0]!.body)).toEqual({
      reference: idEnvioOf(ok.payoutId),
      orderId: efi.send(idEnvioOf(ok.payoutId))!.endToEndId,
      claimed: 'settled',
      reasonHint: null,
    });
    expect(cb.parseState(posted[1]!.body)).toMatchObject({ claimed: 'cancelled', reasonHint: 'invalid_account' });
    expect(cb.payoutIdOf(idEnvioOf(ok.payoutId))).toBe(ok.payoutId);
    expect(cb.payoutIdOf('po0000')).toBeNull();

    const received = { endToEndId: 'E12345678202611251200abcdefghijk', txid: 'pi0123', valor: '1.00', horario: '2026-11-25T12:00:00Z' };
    const both = { pix: [received, ...(posted[0]!.body as { pix: unknown[] }).pix] };
    expect(cb.parseStates(both)).toEqual({ items: [expect.objectContaining({ claimed: 'settled' })], ignored: 1 });
    expect(cb.parseState({ pix: [received] })).toBeNull();
    expect(cb.parseStates({ hello: 'world' })).toBeNull();
    expect(cb.parseStates({ pix: [] })).toBeNull();
  });
});

describe('MED: infractions as dispute notices', () => {
  it('lists every page; open -> withdrawn with reason and deadline, no return -> won, MED return -> lost', async () => {
    const since = new Date(Date.now() - 60_000);
    const paymentId = `pi_${randomBytes(16).toString('base64url')}`;
    const open = efi.receive('50.00', { txid: txidOf(paymentId) });
    const rejected = efi.receive('20.00');
    const cancelled = efi.receive('30.00');
    const returned = efi.receive('80.00');
    const iOpen = efi.openInfraction(open, { tipoSituacao: 'golpe', deadlineDays: 7 });
    const iRejected = efi.openInfraction(rejected, { tipoSituacao: 'acesso fraudulento' });
    const iCancelled = efi.openInfraction(cancelled);
    const iReturned = efi.openInfraction(returned, { tipoSituacao: 'aquisição da conta' });
    efi.openInfraction(efi.receive('1.00'), { createdAt: new Date(Date.now() - 86_400_000) }); // outside the window
    efi.setInfraction(iRejected.idInfracao, 'REJEITADA');
    efi.setInfraction(iCancelled.idInfracao, 'CANCELADA_EFI');
    efi.setInfraction(iReturned.idInfracao, 'ACEITA');
    efi.medReturn(returned, '60.00');
    efi.medReturn(returned, '5.00', 'MED_OPERACIONAL');

    const before = efi.requests.length;
    const notices = await live.pixDisputes.list({ since, until: new Date(Date.now() + 1000) });
    const calls = efi.requests.slice(before);
    expect(calls.filter((r) => r.path === '/v2/gn/infracoes')).toHaveLength(2); // 4 infractions, pages of 2
    expect(
      calls
        .filter((r) => r.path.startsWith('/v2/pix/'))
        .map((r) => r.path.split('/').pop())
        .sort(),
    ).toEqual([open, rejected, cancelled, returned].sort()); // each Pix read back: its txid names the payment
    const by = Object.fromEntries(notices.map((n) => [n.providerReference, n]));
    expect(notices).toHaveLength(4);
    expect(by[iOpen.idInfracao]).toEqual({
      key: `${iOpen.idInfracao}:withdrawn`,
      signal: 'withdrawn',
      endToEndId: open,
      paymentId,
      providerReference: iOpen.idInfracao,
      reasonCode: 'scam',
      deadline: iOpen.dadosAnalise!.prazoFinalizacao,
      amountMinor: 5000,
      at: iOpen.dadosAnalise!.abertura,
    });
    expect(by[iRejected.idInfracao]).toMatchObject({ signal: 'won', reasonCode: 'fraudulent_access', amountMinor: 2000, paymentId: null });
    expect(by[iCancelled.idInfracao]).toMatchObject({ signal: 'won', reasonCode: 'other' });
    expect(by[iReturned.idInfracao]).toMatchObject({ signal: 'lost', reasonCode: 'account_takeover', amountMinor: 6500 });

    efi.failNext('listInfractions', { status: 502 }, 2);
    await expect(live.pixDisputes.list({ since, until: new Date() })).rejects.toBeInstanceOf(ProviderUnavailable);
  });
});
