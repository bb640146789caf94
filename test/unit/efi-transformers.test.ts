/** Efí's wire and our domain: the idEnvio, the send we ask for, a send read back, refusals, SPI codes, MED notices, the config block. */
import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import * as z from '../../shared/domain/zod';
import { parseProvidersConfig, ProvidersConfigError } from '../../shared/adapters/providers/providers.config';
import { sendRequestSchema, type Infraction, type SentPix } from '../../shared/adapters/providers/efi/efi.schemas';
import {
  disputeNoticeOf,
  idEnvioOf,
  infoText,
  infractionReason,
  medReturnedMinor,
  payoutIdOfIdEnvio,
  sendRefusalOf,
  sendRequestOf,
  sendSummary,
  sentStateOf,
  spiReasonCode,
  type PixPayoutOrderRequest,
} from '../../shared/adapters/providers/efi/efi.transformers';

const payoutId = () => `po_${randomBytes(16).toString('base64url')}`;
const KEY = 'pagador@example.com';
const request = (over: Partial<PixPayoutOrderRequest> = {}): PixPayoutOrderRequest => ({
  payoutId: payoutId(),
  amountMinor: 1050,
  beneficiaryName: 'João da Silva',
  beneficiaryDocument: '52998224725',
  pixKey: { type: 'phone', value: '+5531999998888' },
  concept: null,
  ...over,
});
const bank = { bankCode: '09089356', agency: '1', account: '123453', accountType: 'checking' as const };

describe('the idEnvio derived from a payout id', () => {
  it('is po + 32 hex digits (inside Efí’s 1-35 alphanumerics) and maps back to the payout id', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 16, maxLength: 16 }), (bytes) => {
        const id = `po_${Buffer.from(bytes).toString('base64url')}`;
        const idEnvio = idEnvioOf(id);
        expect(idEnvio).toMatch(/^po[0-9a-f]{32}$/);
        expect(payoutIdOfIdEnvio(idEnvio)).toBe(id);
      }),
    );
    expect(() => idEnvioOf('pi_abc')).toThrow(RangeError);
    expect(payoutIdOfIdEnvio('pi0123')).toBeNull();
    expect(payoutIdOfIdEnvio(`po${'0'.repeat(31)}`)).toBeNull();
  });
});

describe('the send for a payout', () => {
  it('by key: the owner’s CPF or CNPJ beside the key, amount with two decimals, the concept cleaned as infoPagador', () => {
    const a = sendRequestOf(request({ concept: ' Pagto\u0007 NF\n 42 ' }), KEY);
    expect(a).toEqual({
      request: {
        valor: '10.50',
        pagador: { chave: KEY, infoPagador: 'Pagto NF 42' },
        favorecido: { chave: '+5531999998888', cpf: '52998224725' },
      },
    });
    const b = sendRequestOf(request({ beneficiaryDocument: '11.222.333/0001-81', pixKey: { type: 'cnpj', value: '11222333000181' } }), KEY);
    expect('request' in b && b.request.favorecido).toEqual({ chave: '11222333000181', cnpj: '11222333000181' });
    expect(infoText('x'.repeat(200))).toHaveLength(140);
    expect(infoText('  \u0000 ')).toBeUndefined();
  });

  it('by bank account: ISPB as given or from the COMPE code, digits only, cacc or svgs', () => {
    const a = sendRequestOf(request({ pixKey: undefined, bankAccount: bank }), KEY);
    expect('request' in a && a.request.favorecido).toEqual({
      contaBanco: { nome: 'João da Silva', cpf: '52998224725', codigoBanco: '09089356', agencia: '1', conta: '123453', tipoConta: 'cacc' },
    });
    const b = sendRequestOf(request({ pixKey: undefined, bankAccount: { ...bank, bankCode: '1', accountType: 'savings' } }), KEY);
    expect('request' in b && b.request.favorecido).toMatchObject({ contaBanco: { codigoBanco: '00000000', tipoConta: 'svgs' } });
  });

  it('what Efí cannot take is refused before any call, and whatever is prepared passes our schema of Efí’s rules', () => {
    const invalid = (over: Partial<PixPayoutOrderRequest>) =>
      expect(sendRequestOf(request(over), KEY)).toEqual({ invalid: expect.any(String) });
    invalid({ beneficiaryDocument: '1234567890' });
    invalid({ pixKey: undefined });
    invalid({ bankAccount: bank });
    invalid({ pixKey: { type: 'email', value: `${'a'.repeat(70)}@example.com` } });
    invalid({ pixKey: undefined, bankAccount: { ...bank, bankCode: '999' } });
    invalid({ pixKey: undefined, bankAccount: { ...bank, agency: '12345' } });
    invalid({ pixKey: undefined, bankAccount: { ...bank, account: '12a45' } });
    invalid({ amountMinor: 100_000_000_000_00 });
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 10 ** 11 }), fc.string({ maxLength: 300 }), fc.boolean(), (amountMinor, concept, byKey) => {
        const r = sendRequestOf(request({ amountMinor, concept, ...(byKey ? {} : { pixKey: undefined, bankAccount: bank }) }), KEY);
        if ('request' in r) expect(z.safeParse(sendRequestSchema, r.request).success).toBe(true);
      }),
    );
  });

  it('the summary a payout keeps masks the key, the account and the document', () => {
    const r = sendRequestOf(request({ pixKey: { type: 'email', value: 'maria.souza@example.com' } }), KEY);
    if (!('request' in r)) throw new Error(r.invalid);
    expect(sendSummary('po1', r.request, 'email')).toEqual({
      idEnvio: 'po1',
      valor: '10.50',
      documento: '***725',
      chave: 'm***@example.com',
    });
    const b = sendRequestOf(request({ pixKey: undefined, bankAccount: { ...bank, account: '987654321' } }), KEY);
    if (!('request' in b)) throw new Error(b.invalid);
    expect(JSON.stringify(sendSummary('po2', b.request))).not.toMatch(/987654321|52998224725/);
  });
});

describe('a send read back', () => {
  const sent = (over: Partial<SentPix> = {}): SentPix => ({
    endToEndId: 'E09089356202611251200abcdefghijk',
    idEnvio: 'po1',
    valor: '10.00',
    status: 'REALIZADO',
    horario: { solicitacao: '2026-11-25T12:00:00.000Z', liquidacao: '2026-11-25T12:00:01.000Z' },
    ...over,
  });
  it('EM_PROCESSAMENTO pending, NAO_REALIZADO cancelled, REALIZADO settled, returned only when the whole amount came back', () => {
    expect(sentStateOf(sent({ status: 'EM_PROCESSAMENTO' }))).toEqual({ kind: 'pending', orderId: 'E09089356202611251200abcdefghijk' });
    expect(sentStateOf(sent({ status: 'NAO_REALIZADO', endToEndId: null }))).toEqual({
      kind: 'cancelled',
      orderId: undefined,
      reason: 'rejected_by_provider',
    });
    expect(sentStateOf(sent())).toEqual({ kind: 'settled', orderId: 'E09089356202611251200abcdefghijk', at: '2026-11-25T12:00:01.000Z' });
    expect(sentStateOf(sent({ devolucoes: [{ valor: '4.00' }] })).kind).toBe('settled');
    expect(sentStateOf(sent({ devolucoes: [{ valor: '4.00' }, { valor: '6.00' }] }))).toMatchObject({ kind: 'returned' });
  });
});

describe('refusals and SPI codes as our failure codes', () => {
  it('maps Efí’s names; a duplicate is read back; our account’s or request’s problems page and leave the payout open', () => {
    expect(sendRefusalOf(409, 'id_envio_duplicado')).toEqual({ kind: 'duplicate' });
    expect(sendRefusalOf(404, 'chave_favorecido_nao_encontrada')).toEqual({ kind: 'rejected', code: 'invalid_account', page: false });
    expect(sendRefusalOf(400, 'chave_nao_pertence_ao_documento')).toEqual({ kind: 'rejected', code: 'beneficiary_mismatch', page: false });
    expect(sendRefusalOf(422, 'pagamento_negado')).toEqual({ kind: 'rejected', code: 'rejected_by_provider', page: false });
    expect(sendRefusalOf(400, 'saldo_insuficiente')).toEqual({ kind: 'rejected', code: 'provider_balance_insufficient', page: true });
    for (const name of ['chave_invalida', 'documento_bloqueado', 'valor_invalido', 'json_invalido'])
      expect(sendRefusalOf(400, name)).toEqual({ kind: 'misconfigured', page: true });
    expect(sendRefusalOf(400, 'algo_novo')).toEqual({ kind: 'rejected', code: 'rejected_by_provider', page: false });
  });
  it('SPI reason codes', () => {
    expect(['AC03', 'ac06', 'AC07', 'AC14'].map(spiReasonCode)).toEqual(Array(4).fill('invalid_account'));
    expect(spiReasonCode('BE01')).toBe('beneficiary_mismatch');
    expect(spiReasonCode('AM04')).toBe('provider_balance_insufficient');
    expect(spiReasonCode('AM02')).toBe('amount_not_allowed');
    expect(spiReasonCode('RR04')).toBe('rejected_by_compliance');
    expect(spiReasonCode('ZZ99')).toBe('rejected_by_provider');
    expect(spiReasonCode(undefined)).toBeNull();
  });
});

describe('infractions (MED) as dispute notices', () => {
  const now = new Date('2026-11-25T12:00:00Z');
  const inf = (over: Partial<Infraction> = {}): Infraction => ({
    idInfracao: 'inf1',
    endToEndId: 'E12345678202611251200abcdefghijk',
    status: 'ABERTA',
    dadosAnalise: { abertura: '2026-11-20T10:00:00Z', prazoFinalizacao: '2026-11-27T10:00:00Z' },
    atualizadoEm: '2026-11-24T10:00:00Z',
    ...over,
  });
  const med = (valor: string) => ({
    id: 'med1',
    rtrId: 'D12345678202611251200abcdefghijk',
    valor,
    natureza: 'MED_FRAUDE' as const,
    status: 'DEVOLVIDO' as const,
    horario: { solicitacao: '2026-11-25T12:00:00Z' },
  });
  const txid = `pi${'ab'.repeat(16)}`;
  const paymentId = `pi_${Buffer.from('ab'.repeat(16), 'hex').toString('base64url')}`;
  it('open and accepted-without-return are withdrawn, closed without return won, any MED return lost with its amount', () => {
    const pix = { txid, devolucoes: [] };
    expect(disputeNoticeOf(inf(), pix, now)).toMatchObject({
      signal: 'withdrawn',
      key: 'inf1:withdrawn',
      deadline: '2026-11-27T10:00:00Z',
      paymentId,
      at: '2026-11-20T10:00:00Z',
    });
    expect(disputeNoticeOf(inf({ status: 'EM_DEFESA' }), pix, now).signal).toBe('withdrawn');
    expect(disputeNoticeOf(inf({ status: 'ACEITA' }), pix, now).signal).toBe('withdrawn');
    expect(disputeNoticeOf(inf({ status: 'REJEITADA' }), pix, now)).toMatchObject({ signal: 'won', at: '2026-11-24T10:00:00Z' });
    expect(disputeNoticeOf(inf({ status: 'CANCELADA_EFI' }), pix, now).signal).toBe('won');
    expect(disputeNoticeOf(inf({ status: 'ACEITA' }), { txid, devolucoes: [med('15.00')] }, now)).toMatchObject({
      signal: 'lost',
      amountMinor: 1500,
      key: 'inf1:lost',
      paymentId,
    });
  });
  it('open or won: the amount the infraction claims (number or string), null when none is usable', () => {
    const pix = { txid, devolucoes: [] };
    expect(disputeNoticeOf(inf({ valor: 12.5 }), pix, now).amountMinor).toBe(1250);
    expect(disputeNoticeOf(inf({ valor: '7.05', status: 'REJEITADA' }), pix, now).amountMinor).toBe(705);
    expect(disputeNoticeOf(inf(), pix, now).amountMinor).toBeNull();
    expect(disputeNoticeOf(inf({ valor: 'abc' }), pix, now).amountMinor).toBeNull();
    expect(disputeNoticeOf(inf({ valor: 0 }), pix, now).amountMinor).toBeNull();
  });
  it('a Pix without a txid of ours (or not found) names no payment', () => {
    expect(disputeNoticeOf(inf(), null, now).paymentId).toBeNull();
    expect(disputeNoticeOf(inf(), { txid: 'someoneelsestxid0000000000000', devolucoes: [] }, now).paymentId).toBeNull();
  });
  it('the reason is ours, whatever the accents; only MED returns that were made count', () => {
    expect(['golpe', 'Aquisição da conta', 'COERÇÃO', 'acesso fraudulento', 'outro', undefined].map(infractionReason)).toEqual([
      'scam',
      'account_takeover',
      'coercion',
      'fraudulent_access',
      'other',
      'other',
    ]);
    const d = (valor: string, natureza: 'ORIGINAL' | 'MED_FRAUDE' | 'MED_OPERACIONAL', status: 'DEVOLVIDO' | 'EM_PROCESSAMENTO') => ({
      id: 'd1',
      rtrId: 'D12345678202611251200abcdefghijk',
      valor,
      natureza,
      status,
      horario: { solicitacao: '2026-11-25T12:00:00Z' },
    });
    expect(
      medReturnedMinor({
        devolucoes: [
          d('1.00', 'ORIGINAL', 'DEVOLVIDO'),
          d('2.50', 'MED_FRAUDE', 'DEVOLVIDO'),
          d('3.00', 'MED_OPERACIONAL', 'EM_PROCESSAMENTO'),
        ],
      }),
    ).toBe(250);
    expect(medReturnedMinor(null)).toBe(0);
  });
});

describe('the efi block of the providers document', () => {
  const good = {
    base_url: 'https://pix-h.api.efipay.com.br',
    token_url: 'https://pix-h.api.efipay.com.br/oauth/token',
    client_id: 'Client_Id_x',
    client_secret: 'Client_Secret_y',
    certificate_pem: '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----',
    private_key_pem: '-----BEGIN PRIVATE KEY-----\nMIIE\n-----END PRIVATE KEY-----',
    pix_key: 'efipay@sejaefi.com.br',
    webhook_token: 'a'.repeat(40),
  };
  it('is optional and parsed beside the others', () => {
    expect(parseProvidersConfig({}, 'test').efi).toBeUndefined();
    expect(parseProvidersConfig({ efi: { ...good, timeouts: { total_ms: 8000 }, return_watch_seconds: 0 } }, 'test').efi).toMatchObject({
      pix_key: 'efipay@sejaefi.com.br',
      return_watch_seconds: 0,
    });
  });
  it('a bad field is named, never echoed', () => {
    const bad = () => parseProvidersConfig({ efi: { ...good, webhook_token: 'short-secret', base_url: 'http://x', extra: 1 } }, 'test');
    expect(bad).toThrow(ProvidersConfigError);
    expect(bad).toThrow(/efi\.webhook_token/);
    expect(bad).toThrow(/efi\.base_url/);
    expect(bad).not.toThrow(/short-secret/);
  });

  it('refuses Efí paying out from the key API Pix receives on at the same PSP (one webhook per key), naming the field', () => {
    const apiPix = { ...good, pix_key: ' EfiPay@SejaEfi.com.br ' };
    const same = () => parseProvidersConfig({ api_pix: apiPix, efi: good }, 'test');
    expect(same).toThrow(ProvidersConfigError);
    expect(same).toThrow(/efi\.pix_key must not be api_pix\.pix_key/);
    // Another key of the account, or the same key at another PSP, is fine.
    expect(parseProvidersConfig({ api_pix: { ...good, pix_key: 'recebimentos@example.com' }, efi: good }, 'test').efi?.pix_key).toBe(
      good.pix_key,
    );
    expect(
      parseProvidersConfig({ api_pix: { ...apiPix, base_url: 'https://api.outro-psp.com.br/pix' }, efi: good }, 'test').api_pix,
    ).toBeDefined();
  });
});
