/**
 * What the fake Efí holds and how it judges a request, apart from HTTP: sends by idEnvio (one idEnvio names one
 * send, ever: a second PUT is refused 409 id_envio_duplicado as Efí does, and a second PUT with another body is
 * also our defect, a violation), their outcomes, the beneficiaries it refuses and how, the Pix received with
 * their MED returns, infractions, tokens and the faults a test scripts. Errors are Efí's `{nome, mensagem}`;
 * the read-back's 404 is its RFC 7807 problem, as its pages show.
 */
import { randomBytes } from 'node:crypto';
import type { Pix } from '../../../shared/adapters/providers/api-pix/api-pix.schemas';
import type {
  DefenseRequest,
  Infraction,
  InfractionStatus,
  SendRequest,
  SentPix,
} from '../../../shared/adapters/providers/efi/efi.schemas';
import type { ApiPixOp } from '../fake-psp/api-pix-routes';
import { PspState } from '../fake-psp/state';

export type EfiFakeOp = 'token' | 'send' | 'getSent' | 'listInfractions' | 'medDefense' | 'getPix' | 'putWebhook' | 'getWebhook' | ApiPixOp;
/**
 * A status, no answer at all, or the call carried out and then no answer: held (`hangAfter`, until the client
 * gives up) or its connection dropped (`lost`).
 */
export type EfiFault = { status: number } | { hang: true } | { hangAfter: true } | { lost: true };
/** How Efí refuses a send to a beneficiary (at the request), or fails it later (NAO_REALIZADO with an SPI code). */
export type Refusal = { status: number; nome: string } | { spi: string };

/** Efí's documented refusals of a send, and the SPI code of one that fails after it was taken. */
export const REFUSALS = {
  keyNotFound: { status: 404, nome: 'chave_favorecido_nao_encontrada' },
  ownerMismatch: { status: 400, nome: 'chave_nao_pertence_ao_documento' },
  denied: { status: 422, nome: 'pagamento_negado' },
  balance: { status: 400, nome: 'saldo_insuficiente' },
  accountInvalid: { spi: 'AC03' },
} as const satisfies Record<string, Refusal>;

export class EfiError extends Error {
  constructor(
    readonly status: number,
    readonly nome: string,
    readonly problem = false,
  ) {
    super(nome);
  }
  body() {
    return this.problem
      ? { type: `https://pix.bcb.gov.br/api/v2/error/${this.nome}`, title: 'Não Encontrado', status: this.status, detail: 'fake' }
      : { nome: this.nome, mensagem: `fake Efí: ${this.nome}` };
  }
}

export interface FakeSend {
  readonly idEnvio: string;
  readonly request: SendRequest;
  readonly fingerprint: string;
  readonly endToEndId: string;
  status: SentPix['status'];
  readonly solicitacao: string;
  liquidacao?: string;
  spi?: string;
  devolucoes: Array<{ rtrId: string; valor: string; horario: string }>;
}

const alnum = (n: number) => randomBytes(n).toString('hex').slice(0, n);
const stamp = () => new Date().toISOString().replace(/\D/g, '').slice(0, 12);
export const endToEndId = (ispb = '09089356') => `E${ispb}${stamp()}${alnum(11)}`;
/** A request as text with its object keys sorted (a resent body may list them in another order). */
const canonical = (v: unknown): string =>
  JSON.stringify(v, (_k, x: unknown) =>
    x && typeof x === 'object' && !Array.isArray(x)
      ? Object.fromEntries(Object.entries(x as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : 1)))
      : x,
  );

/** Where a refusal is attached: the key, or the bank account `ispb/agencia/conta`. */
export const beneficiaryOf = (r: SendRequest) =>
  'chave' in r.favorecido
    ? r.favorecido.chave
    : `${r.favorecido.contaBanco.codigoBanco}/${r.favorecido.contaBanco.agencia}/${r.favorecido.contaBanco.conta}`;

export class EfiState {
  readonly sends = new Map<string, FakeSend>();
  /** Every PUT that reached the send book, duplicates included (idEnvio -> count). */
  readonly attempts = new Map<string, number>();
  readonly refusals = new Map<string, Refusal>();
  /** The account's pay-ins through API Pix (cobs, the Pix received, devoluções), on the fake PSP's logic. */
  readonly payIns: PspState;
  readonly infractions = new Map<string, Infraction>();
  /** The defense each infraction took (one, ever), and every POST of one (idInfracao -> count). */
  readonly defenses = new Map<string, DefenseRequest>();
  readonly defenseAttempts = new Map<string, number>();
  readonly tokens = new Map<string, number>();
  readonly faults = new Map<EfiFakeOp, EfiFault[]>();
  readonly violations: string[] = [];
  webhookUrl: string | null = null;
  webhookSkipMtls = false;

  constructor(
    readonly pixKey: string,
    private readonly tokenTtlSeconds: number,
  ) {
    this.payIns = new PspState(pixKey, tokenTtlSeconds, this.violations, 'qrcodespix.sejaefi.com.br/v2');
  }

  /** Every Pix the account received: paying its cobs, or told by `receive` (one book, so MED and devoluções see both). */
  get received(): Map<string, Pix> {
    return this.payIns.pixByE2e;
  }

  issueToken() {
    const token = randomBytes(24).toString('base64url');
    this.tokens.set(token, Date.now() + this.tokenTtlSeconds * 1000);
    return {
      access_token: token,
      token_type: 'Bearer',
      expires_in: this.tokenTtlSeconds,
      scope: [
        'cob.write cob.read pix.write pix.read pix.send gn.pix.send.read',
        'gn.infractions.read gn.infractions.write webhook.write webhook.read',
      ].join(' '),
    };
  }

  tokenValid(token: string) {
    const until = this.tokens.get(token);
    return until !== undefined && until > Date.now();
  }

  nextFault(op: EfiFakeOp): EfiFault | undefined {
    return this.faults.get(op)?.shift();
  }

  send(idEnvio: string, req: SendRequest): FakeSend {
    this.attempts.set(idEnvio, (this.attempts.get(idEnvio) ?? 0) + 1);
    const fingerprint = canonical(req);
    const held = this.sends.get(idEnvio);
    if (held) {
      if (held.fingerprint !== fingerprint) this.violations.push(`send ${idEnvio}: another body for one idEnvio`);
      throw new EfiError(409, 'id_envio_duplicado');
    }
    if (req.pagador.chave !== this.pixKey) throw new EfiError(400, 'chave_invalida');
    const refusal = this.refusals.get(beneficiaryOf(req));
    if (refusal && 'status' in refusal) throw new EfiError(refusal.status, refusal.nome);
    const s: FakeSend = {
      idEnvio,
      request: req,
      fingerprint,
      endToEndId: endToEndId(),
      status: 'EM_PROCESSAMENTO',
      solicitacao: new Date().toISOString(),
      devolucoes: [],
    };
    this.sends.set(idEnvio, s);
    return s;
  }

  sent(idEnvio: string): FakeSend {
    const s = this.sends.get(idEnvio);
    if (!s) throw new EfiError(404, 'PixEnviadoNaoEncontrado', true);
    return s;
  }

  /** The send as GET /v2/gn/pix/enviados/id-envio/:idEnvio shows it (the beneficiary masked, as Efí does). */
  view(s: FakeSend): SentPix {
    const f = s.request.favorecido;
    return {
      endToEndId: s.endToEndId,
      idEnvio: s.idEnvio,
      valor: s.request.valor,
      chave: s.request.pagador.chave,
      status: s.status,
      ...(s.request.pagador.infoPagador ? { infoPagador: s.request.pagador.infoPagador } : {}),
      horario: { solicitacao: s.solicitacao, ...(s.liquidacao ? { liquidacao: s.liquidacao } : {}) },
      favorecido:
        'chave' in f
          ? { chave: f.chave, identificacao: { nome: 'FAVORECIDO', cpf: '***.456.789-**' } }
          : {
              contaBanco: {
                nome: f.contaBanco.nome,
                cpf: '***.456.789-**',
                agencia: f.contaBanco.agencia,
                conta: f.contaBanco.conta,
                tipoConta: 'corrente',
              },
            },
      ...(s.devolucoes.length ? { devolucoes: s.devolucoes } : {}),
    };
  }

  /** The send settles (REALIZADO) or fails (NAO_REALIZADO with an SPI code); the callback body Efí posts for it. */
  finish(idEnvio: string, outcome: 'REALIZADO' | 'NAO_REALIZADO', spi = 'AC03') {
    const s = this.sent(idEnvio);
    s.status = outcome;
    if (outcome === 'REALIZADO') s.liquidacao = new Date().toISOString();
    else s.spi = spi;
    return {
      pix: [
        {
          endToEndId: s.endToEndId,
          chave: this.pixKey,
          tipo: 'SOLICITACAO',
          status: outcome,
          valor: s.request.valor,
          horario: outcome === 'REALIZADO' ? s.liquidacao : null,
          gnExtras: {
            idEnvio,
            ...(outcome === 'NAO_REALIZADO' ? { erro: { codigo: spi, origem: 'PSP do usuário recebedor', motivo: 'fake' } } : {}),
          },
        },
      ],
    };
  }

  /** The beneficiary's bank sends back (part of) a settled send. */
  returnSend(idEnvio: string, valor?: string) {
    const s = this.sent(idEnvio);
    if (s.status !== 'REALIZADO') throw new Error(`fake Efí: send ${idEnvio} is ${s.status}, not returnable`);
    s.devolucoes.push({ rtrId: `D09089356${stamp()}${alnum(11)}`, valor: valor ?? s.request.valor, horario: new Date().toISOString() });
  }

  /** A Pix received by the account (the one a MED names), paying the charge `txid` when given. */
  receive(valor: string, e2e = endToEndId('12345678'), txid?: string): Pix {
    const pix: Pix = {
      endToEndId: e2e,
      ...(txid ? { txid } : {}),
      valor,
      chave: this.pixKey,
      horario: new Date().toISOString(),
      devolucoes: [],
    };
    this.received.set(e2e, pix);
    return pix;
  }

  pix(e2e: string): Pix {
    const p = this.received.get(e2e);
    if (!p) throw new EfiError(404, 'pix_nao_encontrado');
    return p;
  }

  openInfraction(e2e: string, o: { tipoSituacao?: string; deadlineDays?: number; createdAt?: Date } = {}): Infraction {
    const pix = this.pix(e2e);
    const created = o.createdAt ?? new Date();
    const i: Infraction = {
      idInfracao: `inf${alnum(16)}`,
      endToEndId: e2e,
      status: 'ABERTA',
      valor: Number(pix.valor),
      razao: 'fake',
      ...(o.tipoSituacao ? { tipoSituacao: o.tipoSituacao } : {}),
      dadosAnalise: {
        abertura: created.toISOString(),
        prazoFinalizacao: new Date(created.getTime() + (o.deadlineDays ?? 7) * 86_400_000).toISOString(),
      },
      criadoEm: created.toISOString(),
      atualizadoEm: created.toISOString(),
    };
    this.infractions.set(i.idInfracao, i);
    return i;
  }

  setInfraction(id: string, status: InfractionStatus) {
    const i = this.infractions.get(id);
    if (!i) throw new Error(`fake Efí: no infraction ${id}`);
    const now = new Date().toISOString();
    const final = status !== 'ABERTA' && status !== 'EM_DEFESA';
    this.infractions.set(id, {
      ...i,
      status,
      atualizadoEm: now,
      dadosAnalise: { ...i.dadosAnalise, ...(final ? { finalizacao: now } : {}) },
    });
  }

  /**
   * The receiver's defense, as Efí's MED page answers it: 404 InfracaoNaoEncontrada for an id it does not hold; 409
   * InfracaoOperacaoInvalida for a second defense (another text for it is also our defect, a violation: we read
   * back before defending) and, our assumption, for an infraction already decided; 422 once its deadline passed.
   * Taken: `defesa` and `recebimentoDefesa` shown, EM_DEFESA (ACEITA when the receiver agrees, `aceito`).
   */
  defend(id: string, req: DefenseRequest) {
    this.defenseAttempts.set(id, (this.defenseAttempts.get(id) ?? 0) + 1);
    const i = this.infractions.get(id);
    if (!i) throw new EfiError(404, 'InfracaoNaoEncontrada', true);
    const held = this.defenses.get(id);
    if (held) {
      if (held.justificativa !== req.justificativa || held.analise !== req.analise)
        this.violations.push(`defense ${id}: a second defense with another body`);
      throw new EfiError(409, 'InfracaoOperacaoInvalida', true);
    }
    if (i.status !== 'ABERTA') throw new EfiError(409, 'InfracaoOperacaoInvalida', true);
    if (Date.parse(i.dadosAnalise?.prazoFinalizacao ?? '') < Date.now()) throw new EfiError(422, 'InfracaoOperacaoInvalida', true);
    const now = new Date().toISOString();
    this.defenses.set(id, req);
    this.infractions.set(id, {
      ...i,
      status: req.analise === 'aceito' ? 'ACEITA' : 'EM_DEFESA',
      defesa: req.justificativa,
      atualizadoEm: now,
      dadosAnalise: { ...i.dadosAnalise, recebimentoDefesa: now },
    });
  }

  /**
   * Efí decides an infraction: `returned` accepts it and returns the whole Pix (a MED_FRAUDE devolução, the MED flow
   * of medReturn), `not_returned` rejects it (REJEITADA).
   */
  close(id: string, outcome: 'returned' | 'not_returned') {
    const i = this.infractions.get(id);
    if (!i) throw new Error(`fake Efí: no infraction ${id}`);
    if (outcome === 'not_returned') return this.setInfraction(id, 'REJEITADA');
    this.setInfraction(id, 'ACEITA');
    this.medReturn(i.endToEndId, this.pix(i.endToEndId).valor);
  }

  /** Efí returns (part of) a received Pix because of a MED: a devolução with natureza MED_FRAUDE or MED_OPERACIONAL. */
  medReturn(e2e: string, valor: string, natureza: 'MED_FRAUDE' | 'MED_OPERACIONAL' = 'MED_FRAUDE') {
    const pix = this.pix(e2e);
    const now = new Date().toISOString();
    pix.devolucoes = [
      ...(pix.devolucoes ?? []),
      {
        id: `med${alnum(12)}`,
        rtrId: `D09089356${stamp()}${alnum(11)}`,
        valor,
        natureza,
        horario: { solicitacao: now, liquidacao: now },
        status: 'DEVOLVIDO',
      },
    ];
    this.payIns.syncCob(pix);
  }
}
