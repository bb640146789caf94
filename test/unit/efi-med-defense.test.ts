/** Efí's MED defense between our domain and its wire: the defense body, the defense an infraction shows, its state, refusals. */
import fc from 'fast-check';
import * as z from '../../shared/domain/zod';
import type { Pix } from '../../shared/adapters/providers/api-pix/api-pix.schemas';
import { parseProvidersConfig, ProvidersConfigError } from '../../shared/adapters/providers/providers.config';
import { DEFENSE_TEXT_MAX, defenseRequestSchema, infractionSchema, type Infraction } from '../../shared/adapters/providers/efi/efi.schemas';
import {
  defenseRefusalOf,
  defenseRequestOf,
  infractionDecided,
  infractionStateOf,
  shownDefense,
} from '../../shared/adapters/providers/efi/efi.transformers';

const NOW = new Date('2026-03-10T12:00:00.000Z');
const infraction = (over: Partial<Infraction> = {}): Infraction => ({
  idInfracao: '8ad75c93-6150-422c-929e-822f361c7a6b',
  endToEndId: 'E09089356202312181249APId91a6304',
  status: 'ABERTA',
  valor: '100.00',
  dadosAnalise: { abertura: '2026-03-08T10:00:00Z', prazoFinalizacao: '2026-03-15T10:00:00Z' },
  criadoEm: '2026-03-08T10:00:00Z',
  atualizadoEm: '2026-03-08T10:00:00Z',
  ...over,
});
const devolucao = (over: Record<string, unknown> = {}) => ({
  id: 'med1',
  rtrId: 'D09089356202603100000abcdefghijk',
  valor: '100.00',
  natureza: 'MED_FRAUDE' as const,
  horario: { solicitacao: '2026-03-09T09:00:00Z', liquidacao: '2026-03-09T09:00:05Z' },
  status: 'DEVOLVIDO' as const,
  ...over,
});
const pix = (devolucoes: Array<ReturnType<typeof devolucao>>) => ({ devolucoes }) as unknown as Pick<Pix, 'devolucoes'>;

describe('the defense body', () => {
  it('contests (`rejeitado`) with the text cleaned: control characters dropped, spaces and blank lines collapsed, paragraphs kept', () => {
    expect(defenseRequestOf('  Pedido\u0007 4411\t entregue.\r\n\r\n\r\n Comprovante\u200b em anexo.  ')).toEqual({
      request: { analise: 'rejeitado', justificativa: 'Pedido 4411 entregue.\n\nComprovante em anexo.' },
    });
  });
  it('empty or longer than DEFENSE_TEXT_MAX is invalid, never cut', () => {
    expect(defenseRequestOf(' \u0000\n\t ')).toEqual({ invalid: expect.stringMatching(/empty/) });
    expect(defenseRequestOf('a'.repeat(DEFENSE_TEXT_MAX + 1))).toEqual({ invalid: expect.stringMatching(/too long/) });
    expect(defenseRequestOf(`  ${'a'.repeat(DEFENSE_TEXT_MAX)}  `)).toEqual({
      request: { analise: 'rejeitado', justificativa: 'a'.repeat(DEFENSE_TEXT_MAX) },
    });
  });
  it('whatever the text: invalid, or a body our schema of Efí’s takes, cleaned once for all, shown back as ours', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 2100 }), (text) => {
        const r = defenseRequestOf(text);
        if ('invalid' in r) return;
        expect(z.safeParse(defenseRequestSchema, r.request).success).toBe(true);
        expect(defenseRequestOf(r.request.justificativa)).toEqual(r);
        expect(shownDefense(infraction({ status: 'EM_DEFESA', defesa: r.request.justificativa }), r.request.justificativa)).toBe('ours');
      }),
      { numRuns: 60 },
    );
  });
  it('the schema takes only Efí’s two fields and its two analyses', () => {
    expect(z.safeParse(defenseRequestSchema, { analise: 'aceito', justificativa: 'ok' }).success).toBe(true);
    expect(z.safeParse(defenseRequestSchema, { analise: 'contestado', justificativa: 'ok' }).success).toBe(false);
    expect(z.safeParse(defenseRequestSchema, { analise: 'rejeitado', justificativa: 'ok', anexos: [] }).success).toBe(false);
    expect(z.safeParse(defenseRequestSchema, { analise: 'rejeitado', justificativa: '' }).success).toBe(false);
  });
});

describe('the defense an infraction shows', () => {
  const ours = 'Pedido 4411 entregue.';
  it('none while open without one; ours when its text is ours, whitespace aside; another when it differs', () => {
    expect(shownDefense(infraction(), ours)).toBe('none');
    expect(shownDefense(infraction({ status: 'EM_DEFESA', defesa: ' Pedido  4411\nentregue. ' }), ours)).toBe('ours');
    expect(shownDefense(infraction({ status: 'EM_DEFESA', defesa: 'Outra defesa' }), ours)).toBe('another');
    expect(shownDefense(infraction({ defesa: null }), ours)).toBe('none');
  });
  it('defended without its text shown (EM_DEFESA, or a recebimentoDefesa) is taken as ours: a lost answer of our POST', () => {
    expect(shownDefense(infraction({ status: 'EM_DEFESA' }), ours)).toBe('ours');
    const received = infraction({ dadosAnalise: { ...infraction().dadosAnalise, recebimentoDefesa: '2026-03-09T10:00:00Z' } });
    expect(shownDefense(received, ours)).toBe('ours');
  });
  it('the infraction Efí’s page lists (defesa, justificativaAnalista, recebimentoDefesa) parses', () => {
    const listed = {
      ...infraction({ status: 'REJEITADA', defesa: 'Comentario de defesa', justificativaAnalista: 'Sem fraude' }),
      protocolo: '1313',
      identificadorTicket: [94, 95],
      dadosAnalise: { ...infraction().dadosAnalise, recebimentoDefesa: '2026-03-09T10:00:00Z', finalizacao: '2026-03-10T10:00:00Z' },
    };
    expect(z.safeParse(infractionSchema, listed).success).toBe(true);
  });
});

describe('an infraction as the port’s state', () => {
  it('open (ABERTA, EM_DEFESA, or ACEITA with no return yet) with its deadline, defended once Efí shows it', () => {
    const deadline = '2026-03-15T10:00:00Z';
    expect(infractionStateOf(infraction(), null, NOW)).toEqual({ kind: 'open', defended: false, deadline });
    expect(infractionStateOf(infraction({ status: 'EM_DEFESA' }), pix([]), NOW)).toEqual({ kind: 'open', defended: true, deadline });
    expect(infractionStateOf(infraction({ status: 'ACEITA', defesa: 'x' }), pix([]), NOW)).toEqual({
      kind: 'open',
      defended: true,
      deadline,
    });
    expect(infractionStateOf(infraction({ dadosAnalise: undefined }), null, NOW)).toEqual({
      kind: 'open',
      defended: false,
      deadline: null,
    });
  });
  it('closed not_returned when rejected or cancelled without a return, at its end', () => {
    const end = { ...infraction().dadosAnalise, finalizacao: '2026-03-10T10:00:00Z' };
    expect(infractionStateOf(infraction({ status: 'REJEITADA', dadosAnalise: end }), pix([]), NOW)).toEqual({
      kind: 'closed',
      outcome: 'not_returned',
      at: '2026-03-10T10:00:00Z',
    });
    expect(infractionStateOf(infraction({ status: 'CANCELADA_EFI', atualizadoEm: '2026-03-09T11:00:00Z' }), null, NOW)).toEqual({
      kind: 'closed',
      outcome: 'not_returned',
      at: '2026-03-09T11:00:00Z',
    });
  });
  it('closed returned once a MED return of its Pix is DEVOLVIDO, at the last one; other returns do not count', () => {
    const parts = pix([
      devolucao({ valor: '60.00' }),
      devolucao({ valor: '40.00', natureza: 'MED_OPERACIONAL', horario: { solicitacao: '2026-03-09T20:00:00Z' } }),
    ]);
    expect(infractionStateOf(infraction({ status: 'ACEITA' }), parts, NOW)).toEqual({
      kind: 'closed',
      outcome: 'returned',
      at: '2026-03-09T20:00:00Z',
    });
    const none = pix([devolucao({ natureza: 'ORIGINAL' }), devolucao({ status: 'EM_PROCESSAMENTO' })]);
    expect(infractionStateOf(infraction({ status: 'ACEITA' }), none, NOW)).toMatchObject({ kind: 'open' });
  });
  it('decided: ACEITA, REJEITADA, CANCELADA_EFI; not ABERTA nor EM_DEFESA', () => {
    expect(
      (['ABERTA', 'EM_DEFESA', 'ACEITA', 'REJEITADA', 'CANCELADA_EFI'] as const).filter((s) => infractionDecided({ status: s })),
    ).toEqual(['ACEITA', 'REJEITADA', 'CANCELADA_EFI']);
  });
});

describe('Efí’s refusals of a defense', () => {
  it('each documented status as our code word', () => {
    expect([404, 409, 422, 400, 418].map(defenseRefusalOf)).toEqual([
      'infraction_not_found',
      'defense_refused',
      'defense_deadline_passed',
      'defense_invalid',
      'rejected_by_provider',
    ]);
  });
});

describe('the efi block’s infraction_lookback_days', () => {
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
  it('is optional, whole days from 1 to 366', () => {
    expect(parseProvidersConfig({ efi: good }, 'test').efi?.infraction_lookback_days).toBeUndefined();
    expect(parseProvidersConfig({ efi: { ...good, infraction_lookback_days: 30 } }, 'test').efi?.infraction_lookback_days).toBe(30);
    for (const bad of [0, 367, 1.5])
      expect(() => parseProvidersConfig({ efi: { ...good, infraction_lookback_days: bad } }, 'test')).toThrow(ProvidersConfigError);
  });
});
