/**
 * A fake Efí for the tests and the local live stage: HTTPS (mutual TLS by default, as Efí requires; `mtls: false`
 * takes any client), OAuth2 client credentials (HTTP Basic, JSON body), and the endpoints we call: the send
 * (PUT /v3/gn/pix/:idEnvio), its read-back by idEnvio, the infraction list (MED), a received Pix with its
 * returns (GET /v2/pix/:e2eId) and the payer key's webhook; and PIX pay-ins through the standard API Pix as
 * Efí lays it out (`/v2/cob/:txid`, `/v2/pix/:e2eId/devolucao/:id`: the fake PSP's routes and rules, mounted at
 * `/v2`; pay-ins.ts). Every request is checked against OUR schemas of Efí's rules (efi.schemas.ts) or of API Pix:
 * a mismatch is answered 400 (`json_invalido`, or API Pix's RequisicaoInvalida problem on its routes) and
 * recorded in `violations`, which the tests assert empty. Sends are kept by idEnvio; it settles, fails (each
 * documented refusal, or later with an SPI code), returns, opens and closes infractions, and posts callbacks
 * (sends, and Pix received by its cobs) to `<registered webhook>/pix` as Efí does (one webhook per key), and takes
 * one MED defense per infraction (POST /v2/gn/infracoes/:idInfracao/defesa; state.ts `defend`). It fails
 * on demand per operation (a status, a hang, a lost answer) or as a whole (`outage`: refusing connections,
 * hanging, answering 5xx, losing every answer; test/support/fake-listener.ts).
 */
import { readBody } from '../fake-http';
import { createServer, type Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import * as z from '../../../shared/domain/zod';
import {
  defenseRequestSchema,
  idEnvioSchema,
  idInfracaoSchema,
  infractionQuerySchema,
  sendRequestSchema,
  webhookPutRequestSchema,
  type DefenseRequest,
  type Infraction,
  type InfractionStatus,
} from '../../../shared/adapters/providers/efi/efi.schemas';
import { endToEndIdSchema } from '../../../shared/adapters/providers/api-pix/api-pix.schemas';
import { makeCertificates } from '../fake-psp/certificates';
import { apiPixRoutes } from '../fake-psp/api-pix-routes';
import { Problem } from '../fake-psp/state';
import { listenFake, type Outage } from '../fake-listener';
import { beneficiaryOf, EfiError, EfiState, type EfiFakeOp, type EfiFault, type FakeSend, type Refusal } from './state';
import { payIns, type CallbackAnswer, type FakeEfiPayIns } from './pay-ins';

export { REFUSALS, type EfiFakeOp, type EfiFault, type Refusal } from './state';
export type { CallbackAnswer } from './pay-ins';
export type { Outage } from '../fake-listener';

export interface FakeEfiOptions {
  readonly pixKey?: string;
  readonly mtls?: boolean;
  readonly tokenTtlSeconds?: number;
  /** Infractions per page of the list (Efí's default is 100). */
  readonly pageSize?: number;
  readonly hangMs?: number;
  readonly port?: number;
  /**
   * How the token request's grant may come: Efí's pages show a JSON body; our API Pix connector sends API Pix's
   * form body. Default both; a body in another encoding is a violation.
   */
  readonly tokenEncodings?: ReadonlyArray<'json' | 'form'>;
}

export interface FakeEfi extends FakeEfiPayIns {
  readonly baseUrl: string;
  readonly pixKey: string;
  /** The providers document's `efi` block for this fake. */
  efiConfig(webhookToken: string): Record<string, string>;
  readonly rogueClientCertPem: string;
  readonly rogueClientKeyPem: string;
  readonly requests: ReadonlyArray<{ method: string; path: string; body: unknown; at: number }>;
  readonly violations: string[];
  send(idEnvio: string): FakeSend | undefined;
  attempts(idEnvio: string): number;
  /** Refuse sends to this key (or bank account `ispb/agencia/conta`) as Efí does. */
  refuse(beneficiary: string, how: Refusal): void;
  failNext(op: EfiFakeOp, how: EfiFault, times?: number): void;
  /** Drops every scripted fault not yet met; returns how many there were. */
  clearFaults(): number;
  /** The whole of Efí fails until `outage(null)`: refuse, hang, lost or a status (test/support/fake-listener.ts). */
  outage(how: Outage | null): Promise<void>;
  currentOutage(): Outage | null;
  /** Where callbacks go (as if PUT /v2/webhook/:chave had been called), `/pix` appended as Efí does. */
  setWebhookUrl(url: string): void;
  webhookUrl(): string | null;
  complete(idEnvio: string, opts?: { callback?: boolean }): Promise<CallbackAnswer | null>;
  fail(idEnvio: string, opts?: { spi?: string; callback?: boolean }): Promise<CallbackAnswer | null>;
  returnSend(idEnvio: string, valor?: string): void;
  sendCallback(body: unknown, opts?: { url?: string }): Promise<CallbackAnswer>;
  /** A Pix received (a new end-to-end id unless given; `txid`: the charge it paid, as API Pix read-backs carry it). */
  receive(valor: string, opts?: { endToEndId?: string; txid?: string }): string;
  openInfraction(e2e: string, opts?: { tipoSituacao?: string; deadlineDays?: number; createdAt?: Date }): Infraction;
  setInfraction(id: string, status: InfractionStatus): void;
  /** Efí decides: `returned` (ACEITA and a MED_FRAUDE return of the whole Pix) or `not_returned` (REJEITADA). */
  closeInfraction(id: string, outcome: 'returned' | 'not_returned'): void;
  /** The defense an infraction took (POST /v2/gn/infracoes/:id/defesa), if any. */
  defense(id: string): DefenseRequest | undefined;
  /** Every defense POST for an infraction, refused ones included. */
  defenseAttempts(id: string): number;
  medReturn(e2e: string, valor: string, natureza?: 'MED_FRAUDE' | 'MED_OPERACIONAL'): void;
  close(): Promise<void>;
}

/** An answer Efí gives as a line of text, not JSON (a defense taken: "Defesa de infração MED criada"). */
class PlainText {
  constructor(readonly text: string) {}
}

function reply(res: ServerResponse, status: number, body?: unknown, type = 'application/json') {
  if (res.destroyed) return;
  if (body instanceof PlainText) {
    res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8' });
    return res.end(body.text);
  }
  res.writeHead(status, body === undefined ? {} : { 'content-type': type });
  res.end(body === undefined ? undefined : JSON.stringify(body));
}

const opOf = (method: string, path: string): EfiFakeOp | null => {
  if (path === '/oauth/token') return 'token';
  if (method === 'PUT' && /^\/v3\/gn\/pix\/[^/]+$/.test(path)) return 'send';
  if (path.startsWith('/v2/gn/pix/enviados/id-envio/')) return 'getSent';
  if (path === '/v2/gn/infracoes') return 'listInfractions';
  if (/^\/v2\/gn\/infracoes\/[^/]+\/defesa$/.test(path)) return 'medDefense';
  if (/^\/v2\/pix\/[^/]+$/.test(path)) return 'getPix';
  if (path.startsWith('/v2/webhook/')) return method === 'PUT' ? 'putWebhook' : 'getWebhook';
  return null;
};

export async function startFakeEfi(opts: FakeEfiOptions = {}): Promise<FakeEfi> {
  const certs = await makeCertificates();
  const clientId = 'latam-payments-efi';
  const clientSecret = 'fake-efi-client-secret';
  const state = new EfiState(opts.pixKey ?? 'a1f4102e-a446-4a57-bcce-6fa48899c1d1', opts.tokenTtlSeconds ?? 3600);
  const requests: Array<{ method: string; path: string; body: unknown; at: number }> = [];
  const apiPix = apiPixRoutes(state.payIns, { prefix: '/v2' });
  const tokenEncodings = opts.tokenEncodings ?? ['json', 'form'];
  const pageSize = opts.pageSize ?? 100;

  const check = <S extends z.ZodMiniType>(what: string, schema: S, value: unknown): z.infer<S> => {
    const r = z.safeParse(schema, value);
    if (r.success) return r.data;
    state.violations.push(`${what}: ${r.error.issues.map((i) => `${i.path.join('.') || '(body)'}: ${i.message}`).join('; ')}`);
    throw new EfiError(400, 'json_invalido');
  };
  const json = (what: string, text: string): unknown => {
    try {
      return JSON.parse(text);
    } catch {
      state.violations.push(`${what}: a body that is not JSON`);
      throw new EfiError(400, 'json_invalido');
    }
  };

  async function postCallback(body: unknown, url = state.webhookUrl ? `${state.webhookUrl}/pix` : null): Promise<CallbackAnswer | null> {
    if (!url) return null;
    const r = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    return { status: r.status, body: await r.text() };
  }

  function route(op: EfiFakeOp, method: string, url: URL, text: string, req: IncomingMessage): [number, unknown] {
    const path = url.pathname;
    if (op === 'token') {
      if (method !== 'POST') throw new EfiError(405, 'metodo_invalido');
      const expected = `Basic ${Buffer.from(`${clientId}:${clientSecret}`).toString('base64')}`;
      if (req.headers.authorization !== expected) return [401, { error: 'invalid_client' }];
      const form = req.headers['content-type']?.split(';')[0]?.trim() === 'application/x-www-form-urlencoded';
      if (!tokenEncodings.includes(form ? 'form' : 'json')) {
        state.violations.push(`token body: ${form ? 'form-encoded' : 'JSON'}, which this fake was told to refuse`);
        throw new EfiError(400, 'json_invalido');
      }
      const grant = form ? Object.fromEntries(new URLSearchParams(text)) : json('token body', text);
      check('token body', z.strictObject({ grant_type: z.literal('client_credentials') }), grant);
      return [200, state.issueToken()];
    }
    if (!state.tokenValid((req.headers.authorization ?? '').replace(/^Bearer /, '')))
      return [401, { nome: 'nao_autorizado', mensagem: 'token' }];
    const payIn = apiPix(method, path);
    if (payIn) return payIn.answer(text);
    const last = decodeURIComponent(path.split('/').pop() ?? '');
    if (op === 'send') {
      const idEnvio = check('idEnvio', idEnvioSchema, last);
      if (req.headers['content-type']?.split(';')[0] !== 'application/json') state.violations.push('send: content-type is not JSON');
      const s = state.send(idEnvio, check('PUT /v3/gn/pix body', sendRequestSchema, json('send body', text)));
      const refusal = state.refusals.get(beneficiaryOf(s.request));
      if (refusal && 'spi' in refusal) setImmediate(() => void fail(idEnvio, { spi: refusal.spi }).catch(() => undefined));
      return [201, { idEnvio, e2eId: s.endToEndId, valor: s.request.valor, horario: { solicitacao: s.solicitacao }, status: s.status }];
    }
    if (op === 'getSent' && method === 'GET') return [200, state.view(state.sent(check('idEnvio', idEnvioSchema, last)))];
    if (op === 'getPix' && method === 'GET') return [200, state.pix(check('e2eId', endToEndIdSchema, last))];
    if (op === 'listInfractions' && method === 'GET') {
      const q = check('GET /v2/gn/infracoes query', infractionQuerySchema, Object.fromEntries(url.searchParams));
      const [from, to] = [Date.parse(q.inicio), Date.parse(q.fim)];
      if (to < from) throw new EfiError(400, 'valor_invalido');
      const all = [...state.infractions.values()].filter((i) => {
        const t = Date.parse(i.criadoEm ?? '');
        return t >= from && t <= to;
      });
      const page = Number(q['paginacao.paginaAtual'] ?? 0);
      const pages = Math.max(1, Math.ceil(all.length / pageSize));
      return [
        200,
        {
          parametros: {
            inicio: q.inicio,
            fim: q.fim,
            paginacao: { paginaAtual: page, itensPorPagina: pageSize, quantidadeDePaginas: pages, quantidadeTotalDeItens: all.length },
          },
          infracoes: all.slice(page * pageSize, (page + 1) * pageSize),
        },
      ];
    }
    if (op === 'medDefense') {
      if (method !== 'POST') throw new EfiError(405, 'metodo_invalido');
      if (req.headers['content-type']?.split(';')[0] !== 'application/json') state.violations.push('defense: content-type is not JSON');
      const id = check('idInfracao', idInfracaoSchema, decodeURIComponent(path.split('/')[4] ?? ''));
      state.defend(id, check('POST /v2/gn/infracoes/:idInfracao/defesa body', defenseRequestSchema, json('defense body', text)));
      return [201, new PlainText('Defesa de infração MED criada')];
    }
    if (op === 'putWebhook' || op === 'getWebhook') {
      if (last !== state.pixKey) throw new EfiError(400, 'chave_invalida');
      if (method === 'PUT') {
        state.webhookUrl = check('PUT /v2/webhook body', webhookPutRequestSchema, json('webhook body', text)).webhookUrl;
        state.webhookSkipMtls = req.headers['x-skip-mtls-checking'] === 'true';
        return [201, undefined];
      }
      if (!state.webhookUrl) throw new EfiError(404, 'webhook_nao_encontrado');
      return [200, { webhookUrl: state.webhookUrl, chave: state.pixKey, criacao: new Date().toISOString() }];
    }
    state.violations.push(`no ${method} ${path}`);
    throw new EfiError(404, 'nao_encontrado');
  }

  const mtls = opts.mtls ?? true;
  const server: Server = createServer(
    { key: certs.server.keyPem, cert: certs.server.certPem, ca: [certs.ca.certPem], requestCert: mtls, rejectUnauthorized: mtls },
    (req, res) => {
      void (async () => {
        const text = await readBody(req);
        const url = new URL(req.url ?? '/', 'https://fake-efi');
        const method = req.method ?? 'GET';
        let body: unknown = text;
        try {
          body = text ? JSON.parse(text) : undefined;
        } catch {
          // kept as text
        }
        requests.push({ method, path: url.pathname, body, at: Date.now() });
        const op = apiPix(method, url.pathname)?.op ?? opOf(method, url.pathname);
        if (!op) {
          state.violations.push(`no ${method} ${url.pathname}`);
          return reply(res, 404, new EfiError(404, 'nao_encontrado').body());
        }
        const fault: EfiFault | undefined = listener.faultOf(op === 'token') ?? state.nextFault(op);
        if (fault && 'hang' in fault) return listener.hold(res);
        if (fault && 'status' in fault) return reply(res, fault.status, { nome: 'erro_aplicacao', mensagem: 'scripted failure' });
        try {
          const [status, answer] = route(op, method, url, text, req);
          if (fault && 'hangAfter' in fault) return listener.hold(res);
          if (fault && 'lost' in fault) return listener.drop(res);
          reply(res, status, answer);
        } catch (e) {
          if (fault && 'lost' in fault) return listener.drop(res);
          if (e instanceof EfiError) return reply(res, e.status, e.body());
          if (e instanceof Problem) return reply(res, e.status, e.body(), 'application/problem+json');
          reply(res, 500, { nome: 'erro_aplicacao', mensagem: String(e) });
        }
      })();
    },
  );
  const listener = await listenFake(server, { port: opts.port, hangMs: opts.hangMs });
  const { origin } = listener;

  async function fail(idEnvio: string, o: { spi?: string; callback?: boolean } = {}) {
    const body = state.finish(idEnvio, 'NAO_REALIZADO', o.spi);
    return o.callback === false ? null : postCallback(body);
  }

  return {
    baseUrl: origin,
    pixKey: state.pixKey,
    efiConfig: (webhookToken) => ({
      base_url: origin,
      token_url: `${origin}/oauth/token`,
      client_id: clientId,
      client_secret: clientSecret,
      certificate_pem: certs.client.certPem,
      private_key_pem: certs.client.keyPem,
      ca_pem: certs.ca.certPem,
      pix_key: state.pixKey,
      webhook_token: webhookToken,
    }),
    rogueClientCertPem: certs.rogueClient.certPem,
    rogueClientKeyPem: certs.rogueClient.keyPem,
    requests,
    violations: state.violations,
    send: (idEnvio) => state.sends.get(idEnvio),
    attempts: (idEnvio) => state.attempts.get(idEnvio) ?? 0,
    refuse: (beneficiary, how) => void state.refusals.set(beneficiary, how),
    failNext(op, how, times = 1) {
      state.faults.set(op, [...(state.faults.get(op) ?? []), ...Array.from({ length: times }, () => how)]);
    },
    clearFaults() {
      const pending = [...state.faults.values()].reduce((n, queue) => n + queue.length, 0);
      state.faults.clear();
      return pending;
    },
    outage: (how) => listener.setOutage(how),
    currentOutage: () => listener.outage(),
    ...payIns(state, (body) => postCallback(body)),
    setWebhookUrl(url) {
      state.webhookUrl = url.replace(/\/$/, '');
    },
    webhookUrl: () => state.webhookUrl,
    async complete(idEnvio, o = {}) {
      const body = state.finish(idEnvio, 'REALIZADO');
      return o.callback === false ? null : postCallback(body);
    },
    fail,
    returnSend: (idEnvio, valor) => state.returnSend(idEnvio, valor),
    async sendCallback(body, o = {}) {
      const r = await postCallback(body, o.url ?? (state.webhookUrl ? `${state.webhookUrl}/pix` : null));
      if (!r) throw new Error('fake Efí: no webhook registered');
      return r;
    },
    receive: (valor, o = {}) => state.receive(valor, o.endToEndId, o.txid).endToEndId,
    openInfraction: (e2e, o) => state.openInfraction(e2e, o),
    setInfraction: (id, status) => state.setInfraction(id, status),
    closeInfraction: (id, outcome) => state.close(id, outcome),
    defense: (id) => state.defenses.get(id),
    defenseAttempts: (id) => state.defenseAttempts.get(id) ?? 0,
    medReturn: (e2e, valor, natureza) => state.medReturn(e2e, valor, natureza),
    close: () => listener.close(),
  };
}
