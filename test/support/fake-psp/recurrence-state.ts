/**
 * What the fake PSP holds of Pix Automático (API Pix 2.9.0), apart from HTTP: recurrence locations, recurrences,
 * their confirmation requests, recurring charges with their attempts, and the two webhooks. The rules are the ones
 * the spec and the central bank's regulation state: a charge only on an APROVADA rec, at most one open charge per
 * rec and cycle (its periodicidade), a fixed-amount rec's charges of exactly valorRec, a due date inside the window
 * (10 to 2 days ahead) and the rec's dates, retries (NTAG, at most 3 within 7 days of the due date) only under
 * PERMITE_3R_7D, a cancel only of a CRIADA or APROVADA rec. Each state change yields the callback the PSP posts.
 */
import { randomBytes } from 'node:crypto';
import type {
  Cobr,
  CobrPutRequest,
  LocRec,
  Rec,
  RecPostRequest,
  SolicRec,
  SolicRecPostRequest,
  Tentativa,
} from '../../../shared/adapters/providers/api-pix/api-pix.recurrence.schemas';
import type { RecebedorConfig } from '../../../shared/adapters/providers/providers.config';
import { recurrenceBrCode } from './brcode';
import { Problem } from './state';

/** A callback to post: to `<webhookrec>/rec` or `<webhookcobr>/cobr`. */
export interface RecNotice {
  readonly hook: 'rec' | 'cobr';
  readonly body: unknown;
}

/** The rejection codes that end the charge (2.9.0's description of tentativas.rejeicao.codigo); others end the attempt. */
const FINAL_CODES = new Set(['AC05', 'AM09', 'DENC', 'DS27', 'DTED', 'MIDI', 'MSUC', 'NITX', 'RC09']);
const ISPB = '12345678';
const DAY = 86_400_000;
const alnum = (n: number) => randomBytes(n).toString('base64url').replace(/[-_]/g, 'x').slice(0, n);
const compact = (d: Date) => d.toISOString().slice(0, 10).replace(/-/g, '');
/** Today in São Paulo (UTC-3 all year since 2019). */
export const todayBr = (now = Date.now()) => new Date(now - 3 * 3_600_000).toISOString().slice(0, 10);
const daysBetween = (from: string, to: string) => Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / DAY);
const MONTHS = { MENSAL: 1, TRIMESTRAL: 3, SEMESTRAL: 6, ANUAL: 12 } as const;

/** The cycle a due date falls in, counted from the rec's first date by its periodicidade. */
export function cycleOf(rec: Pick<Rec, 'calendario'>, due: string): number {
  const { dataInicial, periodicidade } = rec.calendario;
  if (periodicidade === 'SEMANAL') return Math.floor(daysBetween(dataInicial, due) / 7);
  const [y1, m1, d1] = dataInicial.split('-').map(Number) as [number, number, number];
  const [y2, m2, d2] = due.split('-').map(Number) as [number, number, number];
  const lastDay = new Date(Date.UTC(y2, m2, 0)).getUTCDate(); // a month without the start's day: its last day
  const months = (y2 - y1) * 12 + (m2 - m1) - (d2 < Math.min(d1, lastDay) ? 1 : 0);
  return Math.floor(months / MONTHS[periodicidade]);
}

interface StoredRec {
  rec: Rec;
  created: number;
  solicitacao: SolicRec[];
}

export class RecurrenceState {
  readonly locs = new Map<number, LocRec>();
  readonly recs = new Map<string, StoredRec>();
  readonly cobrs = new Map<string, Cobr>();
  private readonly cobrRequests = new Map<string, string>();
  webhookRecUrl: { url: string; at: string } | null = null;
  webhookCobrUrl: { url: string; at: string } | null = null;

  constructor(
    readonly recebedor: RecebedorConfig,
    private readonly violations: string[],
    readonly merchant = { cnpj: '12345678000195', nome: 'LOJA AO VIVO' },
    private readonly locationHost = 'pix.example.com/qr/v2/rec',
  ) {}

  postLocRec(): LocRec {
    const id = this.locs.size + 1;
    const loc: LocRec = { id, location: `${this.locationHost}/${randomBytes(16).toString('hex')}`, criacao: new Date().toISOString() };
    this.locs.set(id, loc);
    return loc;
  }

  postRec(req: RecPostRequest): Rec {
    if (req.calendario.dataInicial < todayBr()) throw new Problem(400, 'RecOperacaoInvalida', 'calendario.dataInicial is in the past');
    const loc = req.loc !== undefined ? this.locs.get(req.loc) : undefined;
    if (req.loc !== undefined && !loc) throw new Problem(400, 'RecOperacaoInvalida', 'loc does not exist');
    if (loc?.idRec) throw new Problem(400, 'RecOperacaoInvalida', 'loc is already bound to a rec');
    const now = new Date();
    const idRec = `R${req.politicaRetentativa === 'PERMITE_3R_7D' ? 'R' : 'N'}${ISPB}${compact(now)}${alnum(11)}`;
    if (loc) this.locs.set(loc.id, { ...loc, idRec });
    const rec: Rec = {
      idRec,
      vinculo: req.vinculo,
      calendario: req.calendario,
      ...(req.valor ? { valor: req.valor } : {}),
      politicaRetentativa: req.politicaRetentativa,
      recebedor: { ...this.merchant },
      status: 'CRIADA',
      ...(loc ? { loc: { ...loc, idRec } } : {}),
      atualizacao: [{ status: 'CRIADA', data: now.toISOString() }],
      ativacao: { tipoJornada: 'AGUARDANDO_DEFINICAO' },
    };
    this.recs.set(idRec, { rec, created: now.getTime(), solicitacao: [] });
    return this.generated(rec);
  }

  private stored(idRec: string): StoredRec {
    const s = this.recs.get(idRec);
    if (!s) throw new Problem(404, 'NaoEncontrado', 'no rec with this idRec');
    return s;
  }

  /** RecGerada: what POST /rec and PATCH /rec answer (no payer, no requests, no QR). */
  generated(recOrId: Rec | string): Rec {
    const { pagador: _p, solicitacao: _s, dadosQR: _q, ...rest } = typeof recOrId === 'string' ? this.stored(recOrId).rec : recOrId;
    return rest;
  }

  /** RecCompleta (GET /rec/{idRec}): with its requests, and its QR while a location is bound. */
  complete(idRec: string): Rec {
    const { rec, solicitacao } = this.stored(idRec);
    return {
      ...rec,
      ...(solicitacao.length ? { solicitacao } : {}),
      ...(rec.loc ? { dadosQR: { jornada: 'JORNADA_2', pixCopiaECola: recurrenceBrCode(rec.loc.location) } } : {}),
    };
  }

  list(inicio: string, fim: string, page: number, size: number) {
    const [from, to] = [Date.parse(inicio), Date.parse(fim)];
    const all = [...this.recs.values()].filter((s) => s.created >= from && s.created <= to);
    const pages = Math.max(1, Math.ceil(all.length / size));
    const recs = all.slice(page * size, page * size + size).map((s) => {
      const { dadosQR: _q, ...rest } = this.complete(s.rec.idRec);
      return rest;
    });
    return {
      parametros: {
        inicio,
        fim,
        paginacao: { paginaAtual: page, itensPorPagina: size, quantidadeDePaginas: pages, quantidadeTotalDeItens: all.length },
      },
      recs,
    };
  }

  postSolicRec(req: SolicRecPostRequest): SolicRec {
    const s = this.stored(req.idRec);
    if (s.rec.status !== 'CRIADA') throw new Problem(400, 'SolicRecOperacaoInvalida', `the rec is ${s.rec.status}`);
    if (s.solicitacao.some((x) => ['CRIADA', 'ENVIADA', 'RECEBIDA'].includes(x.status)))
      throw new Problem(400, 'SolicRecOperacaoInvalida', 'the rec already has an open request');
    const doc = s.rec.vinculo.devedor;
    if ((req.destinatario.cpf ?? req.destinatario.cnpj) !== (doc.cpf ?? doc.cnpj))
      throw new Problem(400, 'SolicRecOperacaoInvalida', 'destinatario is not the rec’s devedor');
    const now = new Date().toISOString();
    const solic: SolicRec = {
      idSolicRec: `SC${ISPB}${compact(new Date())}${alnum(11)}`,
      idRec: req.idRec,
      calendario: req.calendario,
      status: 'ENVIADA',
      destinatario: req.destinatario,
      atualizacao: [
        { status: 'CRIADA', data: now },
        { status: 'ENVIADA', data: now },
      ],
      recPayload: {
        idRec: req.idRec,
        vinculo: s.rec.vinculo,
        calendario: s.rec.calendario,
        recebedor: { ...this.merchant, ispbParticipante: ISPB },
      },
    };
    s.solicitacao.push(solic);
    return solic;
  }

  /** The rec moves to `status` (with its end's detail), its open requests with it, and its open charges when it ends. */
  private move(idRec: string, from: readonly Rec['status'][], status: Rec['status'], extra: Partial<Rec> = {}): RecNotice[] {
    const s = this.stored(idRec);
    if (!from.includes(s.rec.status)) throw new Problem(400, 'RecOperacaoInvalida', `a ${s.rec.status} rec cannot become ${status}`);
    const now = new Date().toISOString();
    s.rec = { ...s.rec, ...extra, status, atualizacao: [...s.rec.atualizacao, { status, data: now }] };
    const solicStatus = ({ APROVADA: 'ACEITA', REJEITADA: 'REJEITADA', EXPIRADA: 'EXPIRADA', CANCELADA: 'CANCELADA' } as const)[
      status as 'APROVADA'
    ];
    s.solicitacao = s.solicitacao.map((x) =>
      ['CRIADA', 'ENVIADA', 'RECEBIDA'].includes(x.status) && solicStatus
        ? { ...x, status: solicStatus, atualizacao: [...x.atualizacao, { status: solicStatus, data: now }] }
        : x,
    );
    const notices: RecNotice[] = [this.recNotice(idRec)];
    const by = s.rec.encerramento?.cancelamento?.solicitante;
    if (status === 'CANCELADA' && by)
      for (const c of this.cobrs.values())
        if (c.idRec === idRec && (c.status === 'CRIADA' || c.status === 'ATIVA'))
          notices.push(
            this.endCobr(c.txid, 'CANCELADA', {
              cancelamento: { solicitante: by, codigo: by === 'USUARIO_PAGADOR' ? 'SLBD' : 'SLCR', descricao: 'Recorrência cancelada' },
            }),
          );
    return notices;
  }

  approve(idRec: string, opts: { ispb?: string } = {}): RecNotice[] {
    const s = this.stored(idRec);
    const solic = s.solicitacao.find((x) => ['CRIADA', 'ENVIADA', 'RECEBIDA'].includes(x.status));
    const doc = s.rec.vinculo.devedor.cpf ? { cpf: s.rec.vinculo.devedor.cpf } : { cnpj: s.rec.vinculo.devedor.cnpj };
    const pagador = { ispbParticipante: opts.ispb ?? solic?.destinatario.ispbParticipante ?? '87654321', ...doc, codMun: '3550308' };
    return this.move(idRec, ['CRIADA'], 'APROVADA', { pagador, ativacao: { tipoJornada: solic ? 'JORNADA_1' : 'JORNADA_2' } });
  }

  reject(idRec: string): RecNotice[] {
    return this.move(idRec, ['CRIADA'], 'REJEITADA', {
      encerramento: { rejeicao: { codigo: 'AP13', descricao: 'Rejeitada pelo usuário pagador' } },
    });
  }

  expire(idRec: string): RecNotice[] {
    return this.move(idRec, ['CRIADA'], 'EXPIRADA');
  }

  cancel(idRec: string, by: 'USUARIO_PAGADOR' | 'USUARIO_RECEBEDOR'): RecNotice[] {
    const cancelamento = {
      solicitante: by,
      codigo: by === 'USUARIO_PAGADOR' ? 'SLDB' : 'SLCR',
      descricao:
        by === 'USUARIO_PAGADOR' ? 'Cancelamento solicitado pelo usuário pagador' : 'Cancelamento solicitado pelo usuário recebedor',
    };
    return this.move(idRec, ['CRIADA', 'APROVADA'], 'CANCELADA', { encerramento: { cancelamento } });
  }

  recNotice(idRec: string): RecNotice {
    const { idRec: id, status, atualizacao, encerramento, ativacao } = this.stored(idRec).rec;
    return {
      hook: 'rec',
      body: { recs: [{ idRec: id, status, atualizacao, ...(encerramento ? { encerramento } : {}), ...(ativacao ? { ativacao } : {}) }] },
    };
  }

  cobrNotice(txid: string): RecNotice {
    const { idRec, status, atualizacao, tentativas, pix } = this.cobr(txid);
    return {
      hook: 'cobr',
      body: { cobsr: [{ idRec, txid, status, atualizacao, ...(tentativas ? { tentativas } : {}), ...(pix ? { pix } : {}) }] },
    };
  }

  putCobr(txid: string, req: CobrPutRequest): { created: boolean; cobr: Cobr } {
    const fingerprint = JSON.stringify(req);
    const existing = this.cobrs.get(txid);
    if (existing) {
      if (this.cobrRequests.get(txid) !== fingerprint) {
        this.violations.push(`two different requests for one cobr txid ${txid}`);
        throw new Problem(409, 'CobROperacaoInvalida', 'txid already used by another cobr');
      }
      return { created: false, cobr: existing };
    }
    const rec = this.recs.get(req.idRec)?.rec;
    const refuse = (detail: string) => new Problem(400, 'CobROperacaoInvalida', detail);
    if (!rec) throw refuse('cobr.idRec names no rec of this receiver');
    if (rec.status !== 'APROVADA') throw refuse(`the rec is ${rec.status}, not APROVADA`);
    const { conta, tipoConta, agencia } = this.recebedor;
    if (req.recebedor.conta !== conta || req.recebedor.tipoConta !== tipoConta || req.recebedor.agencia !== agencia)
      throw refuse('cobr.recebedor is not the receiver’s account');
    if (rec.valor?.valorRec && req.valor.original !== rec.valor.valorRec) throw refuse('cobr.valor.original is not the rec’s valorRec');
    const due = req.calendario.dataDeVencimento;
    const ahead = daysBetween(todayBr(), due);
    if (ahead < 2 || ahead > 10) throw refuse('cobr.calendario.dataDeVencimento must be 2 to 10 days ahead');
    if (due < rec.calendario.dataInicial || (rec.calendario.dataFinal && due > rec.calendario.dataFinal))
      throw refuse('cobr.calendario.dataDeVencimento is outside the rec’s dates');
    const cycle = cycleOf(rec, due);
    for (const other of this.cobrs.values())
      if (
        other.idRec === rec.idRec &&
        ['CRIADA', 'ATIVA', 'CONCLUIDA'].includes(other.status) &&
        cycleOf(rec, other.calendario.dataDeVencimento) === cycle
      )
        throw refuse('the rec already has a charge in this cycle');
    const now = new Date();
    const cobr: Cobr = {
      idRec: rec.idRec,
      txid,
      ...(req.infoAdicional ? { infoAdicional: req.infoAdicional } : {}),
      calendario: { criacao: todayBr(now.getTime()), dataDeVencimento: due },
      valor: req.valor,
      ajusteDiaUtil: req.ajusteDiaUtil,
      politicaRetentativa: rec.politicaRetentativa ?? 'NAO_PERMITE',
      status: 'CRIADA',
      recebedor: { ...this.merchant, ...req.recebedor },
      atualizacao: [{ status: 'CRIADA', data: now.toISOString() }],
    };
    this.cobrs.set(txid, cobr);
    this.cobrRequests.set(txid, fingerprint);
    return { created: true, cobr };
  }

  cobr(txid: string): Cobr {
    const c = this.cobrs.get(txid);
    if (!c) throw new Problem(404, 'NaoEncontrado', 'no cobr with this txid');
    return c;
  }

  private attempt(tipo: Tentativa['tipo'], date: string): Tentativa {
    const now = new Date().toISOString();
    const e2e = `E${ISPB}${now.replace(/\D/g, '').slice(0, 12)}${alnum(11)}`;
    return {
      dataLiquidacao: date,
      tipo,
      status: 'AGENDADA',
      endToEndId: e2e,
      atualizacao: [
        { status: 'SOLICITADA', data: now },
        { status: 'AGENDADA', data: now },
      ],
    };
  }

  /** The payer's PSP scheduled the charge's instruction: ATIVA, with its attempt on the due date. */
  activate(txid: string): RecNotice {
    const c = this.cobr(txid);
    if (c.status !== 'CRIADA') return this.cobrNotice(txid);
    const now = new Date().toISOString();
    this.cobrs.set(txid, {
      ...c,
      status: 'ATIVA',
      atualizacao: [...(c.atualizacao ?? []), { status: 'ATIVA', data: now }],
      tentativas: [this.attempt('AGND', c.calendario.dataDeVencimento)],
    });
    return this.cobrNotice(txid);
  }

  private endCobr(txid: string, status: Cobr['status'], encerramento?: Cobr['encerramento'], patch: Partial<Cobr> = {}): RecNotice {
    const c = this.cobr(txid);
    const now = new Date().toISOString();
    this.cobrs.set(txid, {
      ...c,
      ...patch,
      status,
      ...(encerramento ? { encerramento } : {}),
      atualizacao: [...(c.atualizacao ?? []), { status, data: now }],
    });
    return this.cobrNotice(txid);
  }

  private pending(txid: string): { cobr: Cobr; index: number } {
    const cobr = this.cobr(txid);
    const index = (cobr.tentativas ?? []).findIndex((t) => t.status === 'AGENDADA' || t.status === 'SOLICITADA');
    if (cobr.status !== 'ATIVA' || index < 0) throw new Error(`fake PSP: cobr ${txid} is ${cobr.status} with no scheduled attempt`);
    return { cobr, index };
  }

  private setAttempt(cobr: Cobr, index: number, patch: Partial<Tentativa>): Tentativa[] {
    const now = new Date().toISOString();
    return (cobr.tentativas ?? []).map((t, i) =>
      i === index ? { ...t, ...patch, atualizacao: [...(t.atualizacao ?? []), { status: patch.status ?? t.status, data: now }] } : t,
    );
  }

  /** The scheduled attempt is paid: CONCLUIDA with its Pix. */
  settle(txid: string): { notice: RecNotice; pix: NonNullable<Cobr['pix']>[number] } {
    const { cobr, index } = this.pending(txid);
    const tentativas = this.setAttempt(cobr, index, { status: 'PAGA' });
    const pix = { endToEndId: tentativas[index]!.endToEndId, txid, valor: cobr.valor.original, horario: new Date().toISOString() };
    return { notice: this.endCobr(txid, 'CONCLUIDA', undefined, { tentativas, pix: [pix] }), pix };
  }

  /**
   * The scheduled attempt fails: REJEITADA with `code`, or EXPIRADA (the day passed unpaid: no funds). A final code ends
   * the charge REJEITADA; otherwise it ends EXPIRADA unless the rec allows retries and fewer than 3 were made.
   */
  fail(txid: string, code?: string): RecNotice {
    const { cobr, index } = this.pending(txid);
    const rejeicao = code ? { codigo: code, descricao: 'Tentativa rejeitada pelo PSP pagador' } : undefined;
    const tentativas = this.setAttempt(cobr, index, code ? { status: 'REJEITADA', rejeicao } : { status: 'EXPIRADA' });
    const retries = tentativas.filter((t) => t.tipo === 'NTAG').length;
    if (code && FINAL_CODES.has(code)) return this.endCobr(txid, 'REJEITADA', { rejeicao }, { tentativas });
    if (cobr.politicaRetentativa === 'PERMITE_3R_7D' && retries < 3) {
      this.cobrs.set(txid, { ...cobr, tentativas });
      return this.cobrNotice(txid);
    }
    return rejeicao
      ? this.endCobr(txid, 'REJEITADA', { rejeicao }, { tentativas })
      : this.endCobr(txid, 'EXPIRADA', undefined, { tentativas });
  }

  /** POST /cobr/{txid}/retentativa/{data}: a new attempt (NTAG) after a failed one, under PERMITE_3R_7D only. */
  retry(txid: string, date: string): Cobr {
    const cobr = this.cobr(txid);
    const refuse = (detail: string) => new Problem(400, 'CobROperacaoInvalida', detail);
    if (cobr.politicaRetentativa !== 'PERMITE_3R_7D')
      throw refuse('A política configurada na recorrência não permite retentativa de cobrança.');
    if (cobr.status !== 'ATIVA') throw refuse(`the cobr is ${cobr.status}`);
    const tentativas = cobr.tentativas ?? [];
    if (tentativas.some((t) => t.status === 'AGENDADA' || t.status === 'SOLICITADA')) throw refuse('the cobr has a scheduled attempt');
    if (tentativas.filter((t) => t.tipo === 'NTAG').length >= 3) throw refuse('at most 3 retries');
    const after = daysBetween(cobr.calendario.dataDeVencimento, date);
    if (after < 1 || after > 7 || date < todayBr()) throw refuse('a retry is 1 to 7 days after the due date, not in the past');
    this.cobrs.set(txid, { ...cobr, tentativas: [...tentativas, this.attempt('NTAG', date)] });
    return this.cobr(txid);
  }
}
