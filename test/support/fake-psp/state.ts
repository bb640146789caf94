/**
 * What the fake PSP holds and how it behaves, apart from HTTP: cobs and the Pix received against them,
 * devoluções, the registered webhook, tokens, and the faults a test scripts. Every rule here is one a real
 * PSP of the standard enforces: one txid or devolução id names one request, removal only from ATIVA, a
 * devolução never more than what is left of its Pix.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import type { Cob, CobPutRequest, Devolucao, DevolucaoRequest, Pix } from '../../../shared/adapters/providers/api-pix/api-pix.schemas';
import { dynamicBrCode } from './brcode';
import type { RecurrenceOp } from './recurrence-routes';

export type FakeOp =
  'token' | 'putCob' | 'getCob' | 'patchCob' | 'putDevolucao' | 'getDevolucao' | 'putWebhook' | 'getWebhook' | RecurrenceOp;
/** A status, no answer at all, or (lost) the call carried out and its connection dropped without an answer. */
export type Fault = { status: number } | { hang: true } | { lost: true };
export type DevolucaoStatus = Devolucao['status'];

/** An RFC 7807 problem as the spec's error types name them. */
export class Problem extends Error {
  constructor(
    readonly status: number,
    readonly type: string,
    readonly detail: string,
  ) {
    super(detail);
  }
  body() {
    return { type: `https://pix.bcb.gov.br/api/v2/error/${this.type}`, title: this.type, status: this.status, detail: this.detail };
  }
}

const cents = (v: string) => Math.round(Number(v) * 100);
const money = (c: number) => (c / 100).toFixed(2);
const alnum = (n: number) => randomBytes(n).toString('hex').slice(0, n);

export class PspState {
  readonly cobs = new Map<string, Cob>();
  private readonly cobRequests = new Map<string, string>();
  private readonly devolucaoRequests = new Map<string, string>();
  readonly pixByE2e = new Map<string, Pix & { txid?: string }>();
  readonly tokens = new Map<string, number>();
  readonly faults = new Map<FakeOp, Fault[]>();
  webhookUrl: string | null = null;
  webhookCreatedAt = '';
  devolucaoOutcome: DevolucaoStatus = 'EM_PROCESSAMENTO';
  revoked = false;

  /**
   * `violations` may be another fake's (a PSP serving these routes beside its own shares one list);
   * `locationHost` is where the PSP's QR locations live.
   */
  constructor(
    readonly pixKey: string,
    private readonly tokenTtlSeconds: number,
    readonly violations: string[] = [],
    private readonly locationHost = 'pix.example.com/qr/v2',
  ) {}

  issueToken(): { access_token: string; token_type: string; expires_in: number; scope: string } {
    const token = randomBytes(24).toString('base64url');
    this.tokens.set(token, Date.now() + this.tokenTtlSeconds * 1000);
    this.revoked = false;
    return {
      access_token: token,
      token_type: 'Bearer',
      expires_in: this.tokenTtlSeconds,
      scope: 'cob.write cob.read pix.write pix.read webhook.write webhook.read',
    };
  }

  tokenValid(token: string): boolean {
    if (this.revoked) return false;
    const until = this.tokens.get(token);
    return until !== undefined && until > Date.now();
  }

  nextFault(op: FakeOp): Fault | undefined {
    return this.faults.get(op)?.shift();
  }

  putCob(txid: string, req: CobPutRequest): { created: boolean; cob: Cob } {
    const fingerprint = JSON.stringify(req);
    const existing = this.cobs.get(txid);
    if (existing) {
      if (this.cobRequests.get(txid) !== fingerprint) {
        this.violations.push(`two different requests for one txid ${txid}`);
        throw new Problem(409, 'CobOperacaoInvalida', 'txid already used by another cob');
      }
      return { created: false, cob: existing };
    }
    if (req.chave !== this.pixKey) throw new Problem(400, 'CobOperacaoInvalida', 'chave is not a key of this account');
    const location = `${this.locationHost}/${randomUUID().replace(/-/g, '')}`;
    const cob: Cob = {
      calendario: { criacao: new Date().toISOString(), expiracao: req.calendario.expiracao },
      txid,
      revisao: 0,
      loc: { id: this.cobs.size + 1, location, tipoCob: 'cob', criacao: new Date().toISOString() },
      location,
      status: 'ATIVA',
      ...(req.devedor ? { devedor: req.devedor } : {}),
      valor: { original: req.valor.original },
      chave: req.chave,
      ...(req.solicitacaoPagador ? { solicitacaoPagador: req.solicitacaoPagador } : {}),
      pixCopiaECola: dynamicBrCode(location, req.valor.original),
    };
    this.cobs.set(txid, cob);
    this.cobRequests.set(txid, fingerprint);
    return { created: true, cob };
  }

  cob(txid: string): Cob {
    const cob = this.cobs.get(txid);
    if (!cob) throw new Problem(404, 'CobNaoEncontrado', 'no cob with this txid');
    return cob;
  }

  removeCob(txid: string): Cob {
    const cob = this.cob(txid);
    if (cob.status !== 'ATIVA') throw new Problem(400, 'CobOperacaoInvalida', `a ${cob.status} cob cannot be removed`);
    const removed: Cob = { ...cob, status: 'REMOVIDA_PELO_USUARIO_RECEBEDOR', revisao: cob.revisao + 1 };
    this.cobs.set(txid, removed);
    return removed;
  }

  /** A payer pays an ATIVA cob: CONCLUIDA with its Pix. */
  pay(txid: string, opts: { amount?: string; endToEndId?: string } = {}): Pix {
    const cob = this.cob(txid);
    if (cob.status !== 'ATIVA') throw new Error(`fake PSP: cob ${txid} is ${cob.status}, not payable`);
    const pix: Pix = {
      endToEndId: opts.endToEndId ?? `E12345678${new Date().toISOString().replace(/\D/g, '').slice(0, 12)}${alnum(11)}`,
      txid,
      valor: opts.amount ?? cob.valor.original,
      chave: cob.chave,
      horario: new Date().toISOString(),
    };
    this.pixByE2e.set(pix.endToEndId, pix);
    this.cobs.set(txid, { ...cob, status: 'CONCLUIDA', pix: [pix] });
    return pix;
  }

  /** The cob a Pix paid shows it as it is now (its devoluções included). */
  syncCob(pix: Pix) {
    if (!pix.txid) return;
    const cob = this.cobs.get(pix.txid);
    if (cob) this.cobs.set(pix.txid, { ...cob, pix: [pix] });
  }

  putDevolucao(e2eid: string, id: string, req: DevolucaoRequest): { created: boolean; devolucao: Devolucao } {
    const pix = this.pixByE2e.get(e2eid);
    if (!pix) throw new Problem(404, 'PixNaoEncontrado', 'no Pix with this endToEndId');
    const key = `${e2eid}/${id}`;
    const existing = pix.devolucoes?.find((d) => d.id === id);
    if (existing) {
      if (this.devolucaoRequests.get(key) !== JSON.stringify(req)) {
        this.violations.push(`two different requests for one devolução id ${id}`);
        throw new Problem(409, 'DevolucaoOperacaoInvalida', 'id already used by another devolução');
      }
      return { created: false, devolucao: existing };
    }
    const left =
      cents(pix.valor) - (pix.devolucoes ?? []).filter((d) => d.status !== 'NAO_REALIZADO').reduce((s, d) => s + cents(d.valor), 0);
    if (cents(req.valor) > left) throw new Problem(400, 'DevolucaoOperacaoInvalida', `at most ${money(left)} is left to return`);
    const now = new Date().toISOString();
    const devolucao: Devolucao = {
      id,
      rtrId: `D12345678${now.replace(/\D/g, '').slice(0, 12)}${alnum(11)}`,
      valor: req.valor,
      natureza: req.natureza ?? 'ORIGINAL',
      ...(req.descricao ? { descricao: req.descricao } : {}),
      horario: { solicitacao: now, ...(this.devolucaoOutcome !== 'EM_PROCESSAMENTO' ? { liquidacao: now } : {}) },
      status: this.devolucaoOutcome,
    };
    pix.devolucoes = [...(pix.devolucoes ?? []), devolucao];
    this.devolucaoRequests.set(key, JSON.stringify(req));
    this.syncCob(pix);
    return { created: true, devolucao };
  }

  devolucao(e2eid: string, id: string): Devolucao {
    const d = this.pixByE2e.get(e2eid)?.devolucoes?.find((x) => x.id === id);
    if (!d) throw new Problem(404, 'DevolucaoNaoEncontrada', 'no devolução with this id');
    return d;
  }

  settleDevolucao(e2eid: string, id: string, status: 'DEVOLVIDO' | 'NAO_REALIZADO'): Pix {
    const pix = this.pixByE2e.get(e2eid);
    const d = this.devolucao(e2eid, id);
    if (!pix) throw new Error('fake PSP: no such Pix');
    const settled: Devolucao = { ...d, status, horario: { ...d.horario, liquidacao: new Date().toISOString() } };
    pix.devolucoes = (pix.devolucoes ?? []).map((x) => (x.id === id ? settled : x));
    this.syncCob(pix);
    return pix;
  }

  /**
   * The PSP returns (part of) a received Pix because of the central bank's special return mechanism (MED): a
   * devolução it makes itself (its own id, never ours), with natureza MED_FRAUDE or MED_OPERACIONAL, DEVOLVIDO.
   */
  medReturn(e2eid: string, valor: string, natureza: 'MED_FRAUDE' | 'MED_OPERACIONAL'): Pix {
    const pix = this.pixByE2e.get(e2eid);
    if (!pix) throw new Error('fake PSP: no such Pix');
    const now = new Date().toISOString();
    const devolucao: Devolucao = {
      id: `MED${alnum(20)}`,
      rtrId: `D12345678${now.replace(/\D/g, '').slice(0, 12)}${alnum(11)}`,
      valor,
      natureza,
      horario: { solicitacao: now, liquidacao: now },
      status: 'DEVOLVIDO',
    };
    pix.devolucoes = [...(pix.devolucoes ?? []), devolucao];
    this.syncCob(pix);
    return pix;
  }

  age(txid: string, seconds: number) {
    const cob = this.cob(txid);
    const criacao = new Date(Date.parse(cob.calendario.criacao) - seconds * 1000).toISOString();
    this.cobs.set(txid, { ...cob, calendario: { ...cob.calendario, criacao } });
  }
}
