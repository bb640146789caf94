/**
 * A fake Brazilian PSP speaking API Pix v2 for the tests and the local live stage: HTTPS with mutual TLS
 * (certificates made at start; a client without one signed by its CA is refused at the handshake), OAuth2
 * client credentials, and the cob, devolução and webhook endpoints (the first two in api-pix-routes.ts, which
 * the fake Efí mounts too). Every request body and path parameter is checked against our schemas of the
 * published spec: a mismatch is answered 400 with a problem body and recorded in `violations`, which the tests
 * assert empty. It calls the registered webhook as a PSP does, and fails in every way one can, on demand: per
 * operation (a status, a hang, a lost answer), a revoked token, or the whole PSP down (`outage`: refusing
 * connections, hanging, answering 5xx, losing every answer; test/support/fake-listener.ts).
 */
import { readBody } from '../fake-http';
import { createServer, type Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { webhookPutRequestSchema, type Cob, type Pix } from '../../../shared/adapters/providers/api-pix/api-pix.schemas';
import { listenFake, type Outage } from '../fake-listener';
import { apiPixRoutes, requestChecks } from './api-pix-routes';
import { makeCertificates } from './certificates';
import { Problem, PspState, type DevolucaoStatus, type FakeOp, type Fault } from './state';
import * as z from '../../../shared/domain/zod';
import {
  cobrNotificationSchema,
  recNotificationSchema,
  type Cobr,
  type Rec,
} from '../../../shared/adapters/providers/api-pix/api-pix.recurrence.schemas';
import type { RecebedorConfig } from '../../../shared/adapters/providers/providers.config';
import { recurrenceRoutes } from './recurrence-routes';
import { RecurrenceState, type RecNotice } from './recurrence-state';

export type { FakeOp } from './state';
export type { Outage } from '../fake-listener';

export interface FakePspOptions {
  readonly pixKey?: string;
  readonly clientId?: string;
  readonly clientSecret?: string;
  readonly tokenTtlSeconds?: number;
  /** How long a hung call is held before the socket is dropped (default 60 s; close() drops it at once). */
  readonly hangMs?: number;
  readonly port?: number;
  /** The receiving account every cobr must name (the `recebedor` of the api_pix block). */
  readonly recebedor?: RecebedorConfig;
}

/** How a state change's callback goes out: posted (default), withheld (`false`), or posted twice (`'twice'`). */
export type CallbackHow = boolean | 'twice';
/** The statuses the callbacks of one change were answered (none when withheld or no webhook is registered). */
export interface Told {
  readonly callbacks: number[];
}

export interface FakePsp {
  readonly baseUrl: string;
  readonly tokenUrl: string;
  readonly caPem: string;
  readonly clientCertPem: string;
  readonly clientKeyPem: string;
  readonly rogueClientCertPem: string;
  readonly rogueClientKeyPem: string;
  readonly clientId: string;
  readonly clientSecret: string;
  readonly pixKey: string;
  apiPixConfig(webhookToken: string): Record<string, string>;
  readonly requests: ReadonlyArray<{ method: string; path: string; body: unknown; at: number }>;
  readonly violations: readonly string[];
  cob(txid: string): Cob | undefined;
  /** The next `times` calls of `op` fail: a status, a hang, or `{lost: true}` (carried out, no answer). */
  failNext(op: FakeOp, how: Fault, times?: number): void;
  /** The outage ends: drops every scripted fault not yet met; returns how many there were. */
  clearFaults(): number;
  /** The whole PSP fails until `outage(null)`: refuse, hang, lost or a status (test/support/fake-listener.ts). */
  outage(how: Outage | null): Promise<void>;
  currentOutage(): Outage | null;
  revokeTokens(): void;
  pay(
    txid: string,
    opts?: { amount?: string; callback?: boolean; endToEndId?: string },
  ): Promise<{ endToEndId: string; callbackStatus: number | null }>;
  sendCallback(body: unknown, opts?: { url?: string }): Promise<{ status: number; body: string }>;
  setDevolucaoOutcome(status: DevolucaoStatus): void;
  settleDevolucao(e2eid: string, id: string, status: 'DEVOLVIDO' | 'NAO_REALIZADO', opts?: { callback?: boolean }): Promise<void>;
  /** A MED return of a received Pix (MED_FRAUDE by default), told on the webhook unless `callback: false`. */
  medReturn(
    e2eid: string,
    valor: string,
    opts?: { natureza?: 'MED_FRAUDE' | 'MED_OPERACIONAL'; callback?: boolean },
  ): Promise<{ pix: Pix; callback: { status: number; body: string } | null }>;
  age(txid: string, seconds: number): void;
  webhookUrl(): string | null;
  // Pix Automático (recurrence-state.ts): what it holds, and the payer's side of each change.
  readonly recebedor: RecebedorConfig;
  rec(idRec: string): Rec | undefined;
  recs(): Rec[];
  cobr(txid: string): Cobr | undefined;
  cobrs(): Cobr[];
  approveRec(idRec: string, opts?: { ispb?: string; callback?: CallbackHow }): Promise<Told>;
  rejectRec(idRec: string, opts?: { callback?: CallbackHow }): Promise<Told>;
  expireRec(idRec: string, opts?: { callback?: CallbackHow }): Promise<Told>;
  /** The payer cancels the recurrence in the bank app (its open charges are cancelled with it). */
  payerCancelRec(idRec: string, opts?: { callback?: CallbackHow }): Promise<Told>;
  /** The charge's scheduled attempt is paid: CONCLUIDA with the attempt's endToEndId (also a received Pix). */
  settleCobr(txid: string, opts?: { callback?: CallbackHow }): Promise<Told & { endToEndId: string }>;
  /** The charge's scheduled attempt fails: with an SPI rejection `code`, or none (the day passed unpaid). */
  failCobrAttempt(txid: string, opts?: { code?: string; callback?: CallbackHow }): Promise<Told>;
  /** The callbacks the PSP sends on its own (a charge scheduled, a retry, a receiver's cancel): off withholds them. */
  autoCallbacks(on: boolean): void;
  webhookRecUrl(): string | null;
  webhookCobrUrl(): string | null;
  close(): Promise<void>;
}

const API = '/api/v2';

function send(res: ServerResponse, status: number, body?: unknown, type = 'application/json') {
  if (res.destroyed) return;
  res.writeHead(status, body === undefined ? {} : { 'content-type': type });
  res.end(body === undefined ? undefined : JSON.stringify(body));
}

export async function startFakePsp(opts: FakePspOptions = {}): Promise<FakePsp> {
  const certs = await makeCertificates();
  const clientId = opts.clientId ?? 'latam-payments';
  const clientSecret = opts.clientSecret ?? 'fake-psp-client-secret';
  const state = new PspState(opts.pixKey ?? '7d9f0335-8dcc-4054-9bf9-0dbd61d36906', opts.tokenTtlSeconds ?? 3600);
  const requests: Array<{ method: string; path: string; body: unknown; at: number }> = [];
  const { check, json } = requestChecks(state.violations);
  const apiPix = apiPixRoutes(state);
  const recebedor: RecebedorConfig = opts.recebedor ?? { agencia: '0001', conta: '1234567', tipoConta: 'CORRENTE' };
  const recState = new RecurrenceState(recebedor, state.violations);
  let auto = true;
  const recurrence = recurrenceRoutes(recState, state.violations, (n) => {
    if (auto) void tell(n, true).catch(() => undefined);
  });

  /** The operation a call is (for its scripted faults), and how it is answered. */
  function route(
    method: string,
    path: string,
    req: IncomingMessage,
    query: URLSearchParams,
  ): { op: FakeOp | null; answer: (text: string) => [number, unknown] } {
    if (path === '/oauth/token') {
      const answer = (text: string): [number, unknown] => {
        if (method !== 'POST') throw new Problem(404, 'NaoEncontrado', `no ${method} ${path}`);
        const expected = `Basic ${Buffer.from(`${clientId}:${clientSecret}`).toString('base64')}`;
        if (req.headers.authorization !== expected) return [401, { error: 'invalid_client' }];
        if (new URLSearchParams(text).get('grant_type') !== 'client_credentials') return [400, { error: 'unsupported_grant_type' }];
        return [200, state.issueToken()];
      };
      return { op: 'token', answer };
    }
    const authorised = (f: (text: string) => [number, unknown]) => (text: string) => {
      if (!state.tokenValid((req.headers.authorization ?? '').replace(/^Bearer /, '')))
        throw new Problem(401, 'AcessoNegado', 'missing, expired or revoked token');
      return f(text);
    };
    const mine = apiPix(method, path);
    if (mine) return { op: mine.op, answer: authorised((text) => mine.answer(text)) };
    const rec = recurrence(method, path, query);
    if (rec) return { op: rec.op, answer: authorised((text) => rec.answer(text)) };
    const m = /^\/webhook\/([^/]+)$/.exec(path);
    const op: FakeOp | null = m ? (method === 'PUT' ? 'putWebhook' : 'getWebhook') : null;
    const answer = authorised((text): [number, unknown] => {
      if (m && decodeURIComponent(m[1] as string) !== state.pixKey)
        throw new Problem(404, 'ChaveNaoEncontrada', 'not a key of this account');
      if (m && method === 'PUT') {
        state.webhookUrl = check('PUT /webhook body', webhookPutRequestSchema, json(text)).webhookUrl;
        state.webhookCreatedAt = new Date().toISOString();
        return [200, undefined];
      }
      if (m && method === 'GET') {
        if (!state.webhookUrl) throw new Problem(404, 'WebhookNaoEncontrado', 'no webhook registered');
        return [200, { webhookUrl: state.webhookUrl, chave: state.pixKey, criacao: state.webhookCreatedAt }];
      }
      throw new Problem(404, 'NaoEncontrado', `no ${method} ${path}`);
    });
    return { op, answer };
  }

  const problem = (res: ServerResponse, e: Problem) => send(res, e.status, e.body(), 'application/problem+json');
  const server: Server = createServer(
    { key: certs.server.keyPem, cert: certs.server.certPem, ca: [certs.ca.certPem], requestCert: true, rejectUnauthorized: true },
    (req, res) => {
      void (async () => {
        const text = await readBody(req);
        const url = new URL(req.url ?? '/', 'https://fake-psp');
        const path = url.pathname.startsWith(API) ? url.pathname.slice(API.length) : url.pathname;
        const method = req.method ?? 'GET';
        let body: unknown = text;
        try {
          body = text ? JSON.parse(text) : undefined;
        } catch {
          // kept as text (the token endpoint's form body)
        }
        requests.push({ method, path, body, at: Date.now() });
        const { op, answer } = route(method, path, req, url.searchParams);
        const fault: Fault | undefined = listener.faultOf(op === 'token') ?? (op ? state.nextFault(op) : undefined);
        if (fault && 'hang' in fault) return listener.hold(res);
        if (fault && 'status' in fault) return problem(res, new Problem(fault.status, 'ServicoIndisponivel', 'scripted failure'));
        try {
          const [status, value] = answer(text);
          if (fault && 'lost' in fault) return listener.drop(res);
          send(res, status, value);
        } catch (e) {
          if (fault && 'lost' in fault) return listener.drop(res);
          problem(res, e instanceof Problem ? e : new Problem(500, 'ErroInterno', String(e)));
        }
      })();
    },
  );
  const listener = await listenFake(server, { port: opts.port, hangMs: opts.hangMs });
  const { origin } = listener;

  async function postCallback(body: unknown, url = state.webhookUrl ? `${state.webhookUrl}/pix` : null) {
    if (!url) return null;
    const r = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    return { status: r.status, body: await r.text() };
  }

  /** Posts a Pix Automático callback (checked against the spec like every answer of the fake) as `how` says. */
  async function tell(n: RecNotice, how: CallbackHow = true): Promise<number[]> {
    const hook = n.hook === 'rec' ? recState.webhookRecUrl : recState.webhookCobrUrl;
    const schema = n.hook === 'rec' ? recNotificationSchema : cobrNotificationSchema;
    const items = (n.body as Record<string, unknown[]>)[n.hook === 'rec' ? 'recs' : 'cobsr'] ?? [];
    for (const item of items) {
      const r = z.safeParse(schema, item);
      if (!r.success)
        state.violations.push(`fake callback /${n.hook}: ${r.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
    }
    if (!hook || how === false) return [];
    const statuses: number[] = [];
    for (let i = 0; i < (how === 'twice' ? 2 : 1); i++) {
      const r = await fetch(`${hook.url}/${n.hook}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(n.body),
      });
      await r.text();
      statuses.push(r.status);
    }
    return statuses;
  }
  const told = async (notices: RecNotice[], how: CallbackHow = true): Promise<Told> => {
    const callbacks: number[] = [];
    for (const n of notices) callbacks.push(...(await tell(n, how)));
    return { callbacks };
  };
  const held = <T>(f: () => T): T | undefined => {
    try {
      return f();
    } catch {
      return undefined;
    }
  };

  return {
    baseUrl: `${origin}${API}`,
    tokenUrl: `${origin}/oauth/token`,
    caPem: certs.ca.certPem,
    clientCertPem: certs.client.certPem,
    clientKeyPem: certs.client.keyPem,
    rogueClientCertPem: certs.rogueClient.certPem,
    rogueClientKeyPem: certs.rogueClient.keyPem,
    clientId,
    clientSecret,
    pixKey: state.pixKey,
    apiPixConfig: (webhookToken) => ({
      base_url: `${origin}${API}`,
      token_url: `${origin}/oauth/token`,
      client_id: clientId,
      client_secret: clientSecret,
      certificate_pem: certs.client.certPem,
      private_key_pem: certs.client.keyPem,
      ca_pem: certs.ca.certPem,
      pix_key: state.pixKey,
      webhook_token: webhookToken,
    }),
    requests,
    violations: state.violations,
    cob: (txid) => state.cobs.get(txid),
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
    revokeTokens() {
      state.revoked = true;
    },
    async pay(txid, o = {}) {
      const pix = state.pay(txid, o);
      const r = o.callback === false ? null : await postCallback({ pix: [pix] });
      return { endToEndId: pix.endToEndId, callbackStatus: r?.status ?? null };
    },
    async sendCallback(body, o = {}) {
      const r = await postCallback(body, o.url ?? (state.webhookUrl ? `${state.webhookUrl}/pix` : undefined));
      if (!r) throw new Error('fake PSP: no webhook registered');
      return r;
    },
    setDevolucaoOutcome(status) {
      state.devolucaoOutcome = status;
    },
    async settleDevolucao(e2eid, id, status, o = {}) {
      const pix = state.settleDevolucao(e2eid, id, status);
      if (o.callback !== false) await postCallback({ pix: [pix] });
    },
    async medReturn(e2eid, valor, o = {}) {
      const pix = state.medReturn(e2eid, valor, o.natureza ?? 'MED_FRAUDE');
      return { pix, callback: o.callback === false ? null : await postCallback({ pix: [pix] }) };
    },
    age: (txid, seconds) => state.age(txid, seconds),
    webhookUrl: () => state.webhookUrl,
    recebedor,
    rec: (idRec) => held(() => recState.complete(idRec)),
    recs: () => [...recState.recs.keys()].map((id) => recState.complete(id)),
    cobr: (txid) => recState.cobrs.get(txid),
    cobrs: () => [...recState.cobrs.values()],
    approveRec: (idRec, o = {}) => told(recState.approve(idRec, { ispb: o.ispb }), o.callback),
    rejectRec: (idRec, o = {}) => told(recState.reject(idRec), o.callback),
    expireRec: (idRec, o = {}) => told(recState.expire(idRec), o.callback),
    payerCancelRec: (idRec, o = {}) => told(recState.cancel(idRec, 'USUARIO_PAGADOR'), o.callback),
    async settleCobr(txid, o = {}) {
      const { notice, pix } = recState.settle(txid);
      // The Pix that paid it is a Pix received like any other (a devolução can be asked of it).
      state.pixByE2e.set(pix.endToEndId, { ...pix, chave: state.pixKey });
      return { ...(await told([notice], o.callback)), endToEndId: pix.endToEndId };
    },
    failCobrAttempt: (txid, o = {}) => told([recState.fail(txid, o.code)], o.callback),
    autoCallbacks(on) {
      auto = on;
    },
    webhookRecUrl: () => recState.webhookRecUrl?.url ?? null,
    webhookCobrUrl: () => recState.webhookCobrUrl?.url ?? null,
    close: () => listener.close(),
  };
}
