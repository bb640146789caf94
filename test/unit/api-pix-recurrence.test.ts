/**
 * Pix Automático's wire and our mandates (API Pix 2.9.0): references derived from our ids, the rec, solicrec and cobr
 * requests (checked against our strict schemas of the spec), what a rec or a cobr read back means, the rejection
 * codes mapped to ours, the callbacks' parsers, and the `recebedor` block's validation.
 */
import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import * as z from '../../shared/domain/zod';
import type { PixMandateRequest } from '../../shared/application/providers';
import { apiPixRecurrenceCallbacks, CHARGE_WINDOW_DAYS } from '../../shared/adapters/providers/api-pix/api-pix.recurrence';
import {
  cobrPutRequestSchema,
  cobrSchema,
  recPostRequestSchema,
  recSchema,
  solicRecPostRequestSchema,
  type Cobr,
  type Rec,
} from '../../shared/adapters/providers/api-pix/api-pix.recurrence.schemas';
import {
  chargeStateOf,
  cobrRequest,
  cobrTxidOf,
  failureCodeOf,
  mandateIdOfRecReference,
  mandateStateOf,
  paymentIdOfCobrTxid,
  recReferenceOf,
  recRequest,
  solicRecRequest,
} from '../../shared/adapters/providers/api-pix/api-pix.recurrence.transformers';
import { paymentIdOfTxid, txidOf } from '../../shared/adapters/providers/api-pix/api-pix.transformers';
import { parseProvidersConfig, type ProvidersConfigError } from '../../shared/adapters/providers/providers.config';

const ourId = (prefix: string) => `${prefix}_${randomBytes(16).toString('base64url')}`;
const ID_REC = 'RN1234567820260101abcdefghijk';
const E2E = 'E12345678202601011200abcdef12345';

const mandate = (o: Partial<PixMandateRequest> = {}): PixMandateRequest => {
  const mandateId = ourId('md');
  return {
    mandateId,
    reference: recReferenceOf(mandateId),
    debtor: { document: '52998224725', name: 'Maria Souza' },
    description: 'Plano mensal da Academia Exemplo com aulas ilimitadas',
    frequency: 'quarterly',
    startDate: '2026-12-01',
    endDate: '2027-12-01',
    amountMinor: 4990,
    retryPolicy: 'retry_3_in_7_days',
    approvalExpiresAt: '2026-11-30T12:00:00Z',
    createdAt: '2026-11-27T12:00:00Z',
    ...o,
  };
};

describe('references', () => {
  it('a rec’s contrato is md + 32 hex (at most 35) and maps back to the mandate', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 16, maxLength: 16 }), (bytes) => {
        const id = `md_${Buffer.from(bytes).toString('base64url')}`;
        expect(recReferenceOf(id)).toMatch(/^md[0-9a-f]{32}$/);
        expect(mandateIdOfRecReference(recReferenceOf(id))).toBe(id);
      }),
    );
    expect(() => recReferenceOf('pi_abc')).toThrow(RangeError);
  });

  it('a charge’s txid is rc + 32 hex, maps back to the payment, and is never a cob’s txid of the same payment', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 16, maxLength: 16 }), (bytes) => {
        const id = `pi_${Buffer.from(bytes).toString('base64url')}`;
        const txid = cobrTxidOf(id);
        expect(txid).toMatch(/^rc[0-9a-f]{32}$/);
        expect(z.safeParse(cobrPutRequestSchema.shape.idRec, ID_REC).success).toBe(true);
        expect(paymentIdOfCobrTxid(txid)).toBe(id);
        expect(txid).not.toBe(txidOf(id));
        expect(paymentIdOfTxid(txid)).toBeNull();
        expect(paymentIdOfCobrTxid(txidOf(id))).toBeNull();
      }),
    );
  });
});

describe('requests', () => {
  it('the rec: contrato, devedor, objeto cut to 35, periodicidade, valorRec, the retry policy, the location', () => {
    const req = mandate();
    const body = recRequest(req, 42);
    expect(z.safeParse(recPostRequestSchema, body).success).toBe(true);
    expect(body).toEqual({
      vinculo: {
        objeto: 'Plano mensal da Academia Exemplo co',
        devedor: { cpf: '52998224725', nome: 'Maria Souza' },
        contrato: req.reference,
      },
      calendario: { dataInicial: '2026-12-01', dataFinal: '2027-12-01', periodicidade: 'TRIMESTRAL' },
      valor: { valorRec: '49.90' },
      politicaRetentativa: 'PERMITE_3R_7D',
      loc: 42,
    });
    const variable = recRequest(
      mandate({ amountMinor: undefined, retryPolicy: 'none', endDate: undefined, debtor: { document: '12345678000195', name: 'ACME' } }),
    );
    expect(variable).toMatchObject({ vinculo: { devedor: { cnpj: '12345678000195' } }, politicaRetentativa: 'NAO_PERMITE' });
    expect(variable).not.toHaveProperty('valor');
    expect(variable).not.toHaveProperty('loc');
    expect(z.safeParse(recPostRequestSchema, variable).success).toBe(true);
    expect(z.safeParse(recPostRequestSchema, { ...body, valor: { valorRec: '1.00', valorMinimoRecebedor: '1.00' } }).success).toBe(false);
    expect(z.safeParse(recPostRequestSchema, { ...body, idRec: ID_REC }).success).toBe(false);
  });

  it('the solicrec: the payer’s PSP, account and document, the approval’s expiry', () => {
    const req = mandate({ payer: { ispb: '60746948', agency: '1234', account: '998877' } });
    const body = solicRecRequest(req, ID_REC);
    expect(z.safeParse(solicRecPostRequestSchema, body).success).toBe(true);
    expect(body).toEqual({
      idRec: ID_REC,
      calendario: { dataExpiracaoSolicitacao: '2026-11-30T12:00:00.000Z' },
      destinatario: { conta: '998877', ispbParticipante: '60746948', agencia: '1234', cpf: '52998224725' },
    });
    expect(() => solicRecRequest(mandate({ payer: { ispb: '60746948' } }), ID_REC)).toThrow(RangeError);
  });

  it('the cobr: idRec, due date, amount, ajusteDiaUtil, the configured receiving account', () => {
    const paymentId = ourId('pi');
    const body = cobrRequest(
      {
        paymentId,
        reference: cobrTxidOf(paymentId),
        providerMandateId: ID_REC,
        amountMinor: 4990,
        dueDate: '2026-12-05',
        description: ' Mensalidade de dezembro ',
        retryPolicy: 'none',
      },
      { conta: '1234567', tipoConta: 'PAGAMENTO' },
    );
    expect(z.safeParse(cobrPutRequestSchema, body).success).toBe(true);
    expect(body).toEqual({
      idRec: ID_REC,
      infoAdicional: 'Mensalidade de dezembro',
      calendario: { dataDeVencimento: '2026-12-05' },
      valor: { original: '49.90' },
      ajusteDiaUtil: true,
      recebedor: { conta: '1234567', tipoConta: 'PAGAMENTO' },
    });
  });
});

const rec = (o: Partial<Rec>): Rec =>
  z.parse(recSchema, {
    idRec: ID_REC,
    vinculo: { contrato: 'md00', devedor: { cpf: '52998224725', nome: 'Maria' } },
    calendario: { dataInicial: '2026-12-01', periodicidade: 'MENSAL' },
    recebedor: { cnpj: '12345678000195', nome: 'Loja' },
    status: 'CRIADA',
    atualizacao: [{ status: 'CRIADA', data: '2026-11-27T12:00:00Z' }],
    ...o,
  });

describe('a rec read back', () => {
  it('CRIADA pending; APROVADA active at its approval; REJEITADA, EXPIRADA; CANCELADA by whom', () => {
    expect(mandateStateOf(rec({}))).toEqual({ kind: 'pending', providerMandateId: ID_REC });
    const history = (s: string) => [
      { status: 'CRIADA' as const, data: '2026-11-27T12:00:00Z' },
      { nome: s as 'APROVADA', data: '2026-11-28T09:30:00-03:00' },
    ];
    expect(mandateStateOf(rec({ status: 'APROVADA', atualizacao: history('APROVADA') }))).toEqual({
      kind: 'active',
      providerMandateId: ID_REC,
      at: '2026-11-28T12:30:00.000Z',
    });
    expect(mandateStateOf(rec({ status: 'REJEITADA', atualizacao: history('REJEITADA') }))).toMatchObject({ kind: 'rejected' });
    expect(mandateStateOf(rec({ status: 'EXPIRADA' }))).toMatchObject({ kind: 'expired' });
    const cancelled = (solicitante: string) =>
      mandateStateOf(
        rec({
          status: 'CANCELADA',
          encerramento: { cancelamento: { solicitante: solicitante as 'USUARIO_PAGADOR', codigo: 'SLDB', descricao: '' } },
        }),
      );
    expect(cancelled('USUARIO_PAGADOR')).toMatchObject({ kind: 'cancelled', by: 'payer' });
    expect(cancelled('USUARIO_RECEBEDOR')).toMatchObject({ kind: 'cancelled', by: 'receiver' });
    expect(cancelled('PSP_PAGADOR')).toMatchObject({ kind: 'cancelled', by: 'provider' });
  });

  it('takes the spec’s examples’ shapes (atualizacao items named `nome`, tipoJornada inside dadosJornada)', () => {
    const example = {
      idRec: 'RN1234567820240115abcdefghijk',
      vinculo: { contrato: '63100862', devedor: { cpf: '45164632481', nome: 'Fulano de Tal' }, objeto: 'Serviço de Streamming de Música.' },
      calendario: { dataFinal: '2025-04-01', dataInicial: '2024-04-01', periodicidade: 'MENSAL' },
      politicaRetentativa: 'NAO_PERMITE',
      recebedor: { cnpj: '01602606113708', nome: 'Empresa de Serviços SA' },
      valor: { valorRec: '35.00' },
      status: 'CRIADA',
      loc: { criacao: '2023-12-10T07:10:05.115Z', id: 108, location: 'pix.example.com/qr/v2/rec/2353c790eefb11eaadc10242ac120002' },
      ativacao: { dadosJornada: { tipoJornada: 'JORNADA_3', txid: '33beb661beda44a8928fef47dbeb2dc5' } },
      atualizacao: [{ data: '2023-12-19T12:28:05.230Z', nome: 'CRIADA' }],
    };
    expect(z.safeParse(recSchema, example).success).toBe(true);
  });
});

const cobr = (o: Partial<Cobr>): Cobr =>
  z.parse(cobrSchema, {
    idRec: ID_REC,
    txid: 'rc00112233445566778899aabbccddeeff',
    calendario: { criacao: '2026-11-27', dataDeVencimento: '2026-12-05' },
    valor: { original: '49.90' },
    status: 'ATIVA',
    recebedor: { conta: '1234567', tipoConta: 'CORRENTE' },
    ...o,
  });
const attempt = (status: string, o: Record<string, unknown> = {}) => ({
  dataLiquidacao: '2026-12-05',
  tipo: 'AGND',
  status,
  endToEndId: E2E,
  ...o,
});

describe('a cobr read back', () => {
  it('CRIADA and ATIVA are scheduled, with their attempts', () => {
    expect(chargeStateOf(cobr({ status: 'CRIADA' }))).toEqual({ kind: 'scheduled', attempts: [] });
    expect(chargeStateOf(cobr({ tentativas: [z.parse(cobrSchema.shape.tentativas, [attempt('AGENDADA')])![0]!] }))).toEqual({
      kind: 'scheduled',
      attempts: [{ date: '2026-12-05', outcome: 'scheduled' }],
    });
  });

  it('CONCLUIDA is paid with its Pix, or its paid attempt’s endToEndId; with neither it stays scheduled', () => {
    const withPix = cobr({
      status: 'CONCLUIDA',
      pix: [{ endToEndId: E2E, txid: 'rc00112233445566778899aabbccddeeff', valor: '49.90', horario: '2026-12-05T03:10:00Z' }],
    });
    expect(chargeStateOf(withPix)).toEqual({
      kind: 'paid',
      endToEndId: E2E,
      amountMinor: 4990,
      paidAt: '2026-12-05T03:10:00.000Z',
      attempts: [],
    });
    const fromAttempt = z.parse(cobrSchema, {
      ...cobr({}),
      status: 'CONCLUIDA',
      tentativas: [attempt('PAGA')],
      atualizacao: [{ status: 'CONCLUIDA', data: '2026-12-05T03:10:00Z' }],
    });
    expect(chargeStateOf(fromAttempt)).toMatchObject({ kind: 'paid', endToEndId: E2E, paidAt: '2026-12-05T03:10:00.000Z' });
    expect(chargeStateOf(cobr({ status: 'CONCLUIDA' }))).toEqual({ kind: 'scheduled', attempts: [] });
  });

  it('REJEITADA maps its code; EXPIRADA takes its last attempt’s failure (no funds) or expired; CANCELADA by whom', () => {
    const rejected = z.parse(cobrSchema, {
      ...cobr({}),
      status: 'REJEITADA',
      encerramento: { rejeicao: { codigo: 'AC05', descricao: 'x' } },
      tentativas: [attempt('REJEITADA', { rejeicao: { codigo: 'AC05', descricao: 'x' } })],
    });
    expect(chargeStateOf(rejected)).toMatchObject({
      kind: 'failed',
      failureCode: 'account_closed',
      attempts: [{ failureCode: 'account_closed' }],
    });
    expect(chargeStateOf(z.parse(cobrSchema, { ...cobr({}), status: 'EXPIRADA', tentativas: [attempt('EXPIRADA')] }))).toMatchObject({
      kind: 'failed',
      failureCode: 'insufficient_funds',
    });
    expect(chargeStateOf(cobr({ status: 'EXPIRADA' }))).toMatchObject({ kind: 'failed', failureCode: 'expired' });
    const cancelled = (solicitante: string) =>
      chargeStateOf(
        z.parse(cobrSchema, {
          ...cobr({}),
          status: 'CANCELADA',
          encerramento: { cancelamento: { solicitante, codigo: 'SLCR', descricao: '' } },
        }),
      );
    expect(cancelled('USUARIO_PAGADOR')).toMatchObject({ kind: 'failed', failureCode: 'payer_cancelled' });
    expect(cancelled('USUARIO_RECEBEDOR')).toEqual({ kind: 'cancelled', attempts: [] });
  });

  it('maps the settled ISO codes and reads the others as a refusal by the payer’s PSP', () => {
    expect(['AB10', 'AC05', 'AC06', 'AM02', 'AM09', 'RC09', 'NITX'].map(failureCodeOf)).toEqual([
      'payer_bank_error',
      'account_closed',
      'account_blocked',
      'amount_above_payer_limit',
      'amount_mismatch',
      'payer_bank_invalid',
      'declined_by_payer_bank',
    ]);
    for (const code of ['AB10', 'NITX']) expect(failureCodeOf(code)).toMatch(/^[a-z_]+$/);
  });

  it('the window is 2 to 10 days', () => expect(CHARGE_WINDOW_DAYS).toEqual({ min: 2, max: 10 }));
});

describe('callbacks', () => {
  const callbacks = apiPixRecurrenceCallbacks({ webhook_token: 'a'.repeat(40) });

  it('webhookrec: the recurrence ids, items of another shape ignored, another body null', () => {
    const body = {
      recs: [
        {
          idRec: ID_REC,
          status: 'APROVADA',
          atualizacao: [{ status: 'APROVADA', data: '2024-08-22T12:43:53.337Z' }],
          ativacao: { tipoJornada: 'JORNADA_2' },
        },
        { idRec: ID_REC, status: 'APROVADA', atualizacao: [] },
        { idRec: 'short', status: 'APROVADA', atualizacao: [] },
      ],
    };
    expect(callbacks.parseRecurrences(body)).toEqual({ providerMandateIds: [ID_REC], ignored: 1 });
    expect(callbacks.parseRecurrences({ recs: [] })).toBeNull();
    expect(callbacks.parseRecurrences({ pix: [] })).toBeNull();
    expect(callbacks.parseRecurrences('x')).toBeNull();
  });

  it('webhookcobr: the txids (the spec’s example shape), what is ours maps to a payment', () => {
    const paymentId = ourId('pi');
    const txid = cobrTxidOf(paymentId);
    const body = {
      cobsr: [
        {
          idRec: ID_REC,
          txid,
          status: 'ATIVA',
          atualizacao: [{ status: 'ATIVA', data: '2024-08-20T12:34:21.300Z' }],
          tentativas: [{ dataLiquidacao: '2024-08-20', tipo: 'AGND', status: 'SOLICITADA', endToEndId: E2E }],
        },
        { idRec: ID_REC, txid: '3136957d93134f2184b369e8f1c0729d', status: 'CONCLUIDA', atualizacao: [] },
        { txid },
      ],
    };
    expect(callbacks.parseCharges(body)).toEqual({ references: [txid, '3136957d93134f2184b369e8f1c0729d'], ignored: 1 });
    expect(callbacks.paymentIdOf(txid)).toBe(paymentId);
    expect(callbacks.paymentIdOf('3136957d93134f2184b369e8f1c0729d')).toBeNull();
    expect(callbacks.parseCharges({ recs: [{}] })).toBeNull();
  });

  it('the token check is the Pix callback’s', () => {
    expect(callbacks.tokenMatches('a'.repeat(40))).toBe(true);
    expect(callbacks.tokenMatches('a'.repeat(39))).toBe(false);
  });
});

describe('the recebedor block', () => {
  const base = {
    base_url: 'https://psp.example/api/v2',
    token_url: 'https://psp.example/oauth/token',
    client_id: 'id',
    client_secret: 'secret',
    certificate_pem: '-----BEGIN CERTIFICATE-----\nx\n-----END CERTIFICATE-----',
    private_key_pem: '-----BEGIN PRIVATE KEY-----\nx\n-----END PRIVATE KEY-----',
    pix_key: 'key',
    webhook_token: 'a'.repeat(40),
  };
  const problems = (recebedor: unknown) => {
    try {
      parseProvidersConfig({ api_pix: { ...base, recebedor } }, 'test');
      return [];
    } catch (e) {
      return (e as ProvidersConfigError).problems;
    }
  };

  it('is optional, and when present each bad field is named', () => {
    expect(parseProvidersConfig({ api_pix: base }, 'test').api_pix?.recebedor).toBeUndefined();
    expect(problems({ agencia: '0001', conta: '1234567', tipoConta: 'CORRENTE' })).toEqual([]);
    expect(problems({ conta: '1234567', tipoConta: 'PAGAMENTO' })).toEqual([]);
    const bad = problems({ agencia: '00001', conta: '12.34', tipoConta: 'SALARIO', banco: 'x' });
    expect(bad.join('\n')).toMatch(/api_pix\.recebedor\.agencia/);
    expect(bad.join('\n')).toMatch(/api_pix\.recebedor\.conta/);
    expect(bad.join('\n')).toMatch(/api_pix\.recebedor\.tipoConta/);
    expect(bad.join('\n')).toMatch(/banco/);
    expect(problems({ agencia: '0001' }).join('\n')).toMatch(/api_pix\.recebedor\.conta/);
  });

  it('is not an efi field (Efí offers no Pix Automático here)', () => {
    expect(() => parseProvidersConfig({ efi: { ...base, recebedor: { conta: '1', tipoConta: 'CORRENTE' } } }, 'test')).toThrow(/efi/);
  });
});
