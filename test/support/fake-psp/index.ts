/**
 * A fake Brazilian PSP speaking API Pix v2 for the tests and the local live stage: HTTPS with mutual TLS
 * (certificates made at start; a client without one signed by its CA is refused at the handshake), OAuth2
 * client credentials, and the cob, devolução and webhook endpoints. Every request body and path parameter is
 * checked against our schemas of the published spec: a mismatch is answered 400 with a problem body and
 * recorded in `violations`, which the tests assert empty. It calls the registered webhook as a PSP does, and
 * fails in every way one can (a status, a hang, a revoked token), on demand.
 */
import { readBody } from '../fake-http';
import { createServer, type Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import * as z from '../../../shared/domain/zod';
import {
  cobPatchRequestSchema,
  cobPutRequestSchema,
  devolucaoIdSchema,
  devolucaoRequestSchema,
  endToEndIdSchema,
  txidSchema,
  webhookPutRequestSchema,
  type Cob,
  type Pix,
} from '../../../shared/adapters/providers/api-pix/api-pix.schemas';
import { makeCertificates } from './certificates';
import { Problem, PspState, type DevolucaoStatus, type FakeOp, type Fault } from './state';

export type { FakeOp } from './state';

export interface FakePspOptions {
  readonly pixKey?: string;
  readonly clientId?: string;
  readonly clientSecret?: string;
  readonly tokenTtlSeconds?: number;
  /** How long a hung call is held before the socket is dropped (default 60 s; close() drops it at once). */
  readonly hangMs?: number;
  readonly port?: number;
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
  failNext(op: FakeOp, how: Fault, times?: number): void;
  /** The outage ends: drops every scripted fault not yet met; returns how many there were. */
  clearFaults(): number;
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
  const sockets = new Set<Socket>();
  const hung = new Set<ServerResponse>();

  /** A schema check of what we were sent: a mismatch is a violation and a 400 problem. */
  const check = <S extends z.ZodMiniType>(what: string, schema: S, value: unknown): z.infer<S> => {
    const r = z.safeParse(schema, value);
    if (r.success) return r.data;
    const detail = r.error.issues.map((i) => `${i.path.join('.') || '(body)'}: ${i.message}`).join('; ');
    state.violations.push(`${what}: ${detail}`);
    throw new Problem(400, 'RequisicaoInvalida', detail);
  };
  const json = (text: string) => {
    try {
      return text ? JSON.parse(text) : undefined;
    } catch {
      state.violations.push('a body that is not JSON');
      throw new Problem(400, 'RequisicaoInvalida', 'body is not JSON');
    }
  };

  async function route(op: FakeOp | null, method: string, path: string, text: string, req: IncomingMessage): Promise<[number, unknown]> {
    if (path === '/oauth/token' && method === 'POST') {
      const auth = req.headers.authorization ?? '';
      const expected = `Basic ${Buffer.from(`${clientId}:${clientSecret}`).toString('base64')}`;
      if (auth !== expected) return [401, { error: 'invalid_client' }];
      if (new URLSearchParams(text).get('grant_type') !== 'client_credentials') return [400, { error: 'unsupported_grant_type' }];
      return [200, state.issueToken()];
    }
    const bearer = (req.headers.authorization ?? '').replace(/^Bearer /, '');
    if (!state.tokenValid(bearer)) throw new Problem(401, 'AcessoNegado', 'missing, expired or revoked token');
    let m: RegExpExecArray | null;
    if ((m = /^\/cob\/([^/]+)$/.exec(path))) {
      const txid = check('txid', txidSchema, decodeURIComponent(m[1] as string));
      if (method === 'PUT') {
        const r = state.putCob(txid, check('PUT /cob body', cobPutRequestSchema, json(text)));
        return [r.created ? 201 : 200, r.cob];
      }
      if (method === 'GET') return [200, state.cob(txid)];
      if (method === 'PATCH') {
        const body = check('PATCH /cob body', cobPatchRequestSchema, json(text));
        if (body.status !== 'REMOVIDA_PELO_USUARIO_RECEBEDOR') throw new Problem(400, 'CobOperacaoInvalida', 'only removal is supported');
        return [200, state.removeCob(txid)];
      }
    }
    if ((m = /^\/pix\/([^/]+)\/devolucao\/([^/]+)$/.exec(path))) {
      const e2e = check('e2eid', endToEndIdSchema, decodeURIComponent(m[1] as string));
      const id = check('devolução id', devolucaoIdSchema, decodeURIComponent(m[2] as string));
      if (method === 'PUT') {
        const r = state.putDevolucao(e2e, id, check('PUT /devolucao body', devolucaoRequestSchema, json(text)));
        return [r.created ? 201 : 200, r.devolucao];
      }
      if (method === 'GET') return [200, state.devolucao(e2e, id)];
    }
    if ((m = /^\/webhook\/([^/]+)$/.exec(path))) {
      if (decodeURIComponent(m[1] as string) !== state.pixKey) throw new Problem(404, 'ChaveNaoEncontrada', 'not a key of this account');
      if (method === 'PUT') {
        state.webhookUrl = check('PUT /webhook body', webhookPutRequestSchema, json(text)).webhookUrl;
        state.webhookCreatedAt = new Date().toISOString();
        return [200, undefined];
      }
      if (method === 'GET') {
        if (!state.webhookUrl) throw new Problem(404, 'WebhookNaoEncontrado', 'no webhook registered');
        return [200, { webhookUrl: state.webhookUrl, chave: state.pixKey, criacao: state.webhookCreatedAt }];
      }
    }
    void op;
    throw new Problem(404, 'NaoEncontrado', `no ${method} ${path}`);
  }

  const opOf = (method: string, path: string): FakeOp | null => {
    if (path === '/oauth/token') return 'token';
    if (path.startsWith('/cob/')) return method === 'PUT' ? 'putCob' : method === 'PATCH' ? 'patchCob' : 'getCob';
    if (path.startsWith('/pix/')) return method === 'PUT' ? 'putDevolucao' : 'getDevolucao';
    if (path.startsWith('/webhook/')) return method === 'PUT' ? 'putWebhook' : 'getWebhook';
    return null;
  };

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
        const op = opOf(method, path);
        const fault = op ? state.nextFault(op) : undefined;
        if (fault && 'hang' in fault) {
          hung.add(res);
          setTimeout(() => res.destroy(), opts.hangMs ?? 60_000).unref();
          return;
        }
        if (fault)
          return send(
            res,
            fault.status,
            new Problem(fault.status, 'ServicoIndisponivel', 'scripted failure').body(),
            'application/problem+json',
          );
        try {
          const [status, answer] = await route(op, method, path, text, req);
          send(res, status, answer);
        } catch (e) {
          if (e instanceof Problem) return send(res, e.status, e.body(), 'application/problem+json');
          send(res, 500, new Problem(500, 'ErroInterno', String(e)).body(), 'application/problem+json');
        }
      })();
    },
  );
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  server.on('tlsClientError', () => undefined); // a refused client certificate: the client sees the handshake fail
  await new Promise<void>((r) => server.listen(opts.port ?? 0, '127.0.0.1', r));
  const addr = server.address();
  const port = typeof addr === 'object' && addr ? addr.port : 0;
  const origin = `https://127.0.0.1:${port}`;

  async function postCallback(body: unknown, url = state.webhookUrl ? `${state.webhookUrl}/pix` : null) {
    if (!url) return null;
    const r = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    return { status: r.status, body: await r.text() };
  }

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
    async close() {
      for (const res of hung) res.destroy();
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
