/**
 * A fake STP (SPEI, Mexico) for the tests and the local live stage: HTTPS with its own CA, the two endpoints
 * we call (PUT /ordenPago/registra, POST /ordenPago/consOrdEnvRastreo under /speiws/rest, and the received
 * deposit query POST /efws/API/consultaOrden), each request checked
 * against our schemas of STP's rules and its firma verified with the public half of the key it hands out
 * (a mismatch is answered as STP answers and recorded in `violations`, which the tests assert empty). It
 * settles, cancels and returns orders on demand, telling us by the order-state callback or only by the query,
 * posts incoming deposits (abonos), and fails in every way one can (a status, a hang, a lost answer).
 */
import { readBody } from '../fake-http';
import { createServer, type Server } from 'node:https';
import type { ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { generateKeyPairSync } from 'node:crypto';
import { makeCertificates } from '../fake-psp/certificates';
import { StpState, type FakeOrder, type ReceivedOrder, type StpFault, type StpOp } from './state';

export type { StpFault, StpOp } from './state';

const API = '/speiws/rest';
/** STP's efws API (the order query by claveRastreo), on the same origin as in production. */
const EFWS = '/efws/API';

export interface FakeStpOptions {
  readonly empresa?: string;
  /** The company's STP account (646 180 + 4-digit prefix + 7 + check digit). */
  readonly cuentaOrdenante?: string;
  readonly hangMs?: number;
  readonly port?: number;
}

export interface FakeStp {
  readonly baseUrl: string;
  readonly empresa: string;
  readonly cuentaOrdenante: string;
  /** The providers document's `stp` entry for this fake (encrypted key with its passphrase, its CA). */
  stpConfig(webhookToken: string): Record<string, string>;
  /** Where STP posts state changes and deposits: `<base>/providers/stp/<token>` (set in STP's portal). */
  setCallbackBase(url: string): void;
  readonly requests: ReadonlyArray<{ method: string; path: string; body: unknown; at: number }>;
  readonly violations: readonly string[];
  order(claveRastreo: string): FakeOrder | undefined;
  registrations(claveRastreo: string): number;
  refuseAccount(clabe: string, id: number): void;
  failNext(op: StpOp, how: StpFault, times?: number): void;
  /** The order settles (LQ), is cancelled (CN) or returned (D); `callback: false` leaves it to the query. */
  settle(claveRastreo: string, opts?: { callback?: boolean }): Promise<CallbackAnswer | null>;
  cancel(claveRastreo: string, opts?: { callback?: boolean }): Promise<CallbackAnswer | null>;
  returnOrder(claveRastreo: string, opts?: { callback?: boolean }): Promise<CallbackAnswer | null>;
  /** Posts a body to <base>/estado (a retry, a forgery, an out-of-order change). */
  sendEstado(body: unknown, opts?: { token?: string }): Promise<CallbackAnswer>;
  /**
   * Posts an incoming deposit to <base>/abono, after taking it as received (its query then finds it); with
   * `unrecorded` STP holds no such deposit (a forged or mistaken callback: its query answers not found).
   */
  sendAbono(body: unknown, opts?: { unrecorded?: boolean }): Promise<CallbackAnswer>;
  /** STP takes a deposit for the company without posting its abono (its query then shows it). */
  receive(body: Record<string, unknown>): void;
  /** Deposits STP took for the company (claveRastreo -> the received order its query shows). */
  received(claveRastreo: string): ReceivedOrder | undefined;
  close(): Promise<void>;
}

export interface CallbackAnswer {
  readonly status: number;
  readonly body: unknown;
}

function send(res: ServerResponse, status: number, body: unknown) {
  if (res.destroyed) return;
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

export async function startFakeStp(opts: FakeStpOptions = {}): Promise<FakeStp> {
  const certs = await makeCertificates();
  const passphrase = 'fake-stp-passphrase';
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const keyPem = privateKey.export({ type: 'pkcs8', format: 'pem', cipher: 'aes-256-cbc', passphrase }).toString();
  const empresa = opts.empresa ?? 'LATAMPAY';
  const cuentaOrdenante = opts.cuentaOrdenante ?? '646180123400000007';
  const state = new StpState(empresa, cuentaOrdenante, publicKey);
  const requests: Array<{ method: string; path: string; body: unknown; at: number }> = [];
  const sockets = new Set<Socket>();
  const hung = new Set<ServerResponse>();
  let callbackBase: string | null = null;

  const hang = (res: ServerResponse) => {
    hung.add(res);
    setTimeout(() => res.destroy(), opts.hangMs ?? 60_000).unref();
  };

  const server: Server = createServer({ key: certs.server.keyPem, cert: certs.server.certPem }, (req, res) => {
    void (async () => {
      const text = await readBody(req);
      const path = new URL(req.url ?? '/', 'https://fake-stp').pathname;
      const method = req.method ?? 'GET';
      let body: unknown;
      try {
        body = text ? JSON.parse(text) : undefined;
      } catch {
        state.violations.push(`${method} ${path}: a body that is not JSON`);
        return send(res, 400, { error: 'not JSON' });
      }
      requests.push({ method, path, body, at: Date.now() });
      const op: StpOp | null =
        method === 'PUT' && path === `${API}/ordenPago/registra`
          ? 'registra'
          : method === 'POST' && path === `${API}/ordenPago/consOrdEnvRastreo`
            ? 'consulta'
            : method === 'POST' && path === `${EFWS}/consultaOrden`
              ? 'consultaOrden'
              : null;
      if (!op) {
        state.violations.push(`no ${method} ${path}`);
        return send(res, 404, { error: 'not found' });
      }
      if (req.headers['content-type']?.split(';')[0] !== 'application/json') state.violations.push(`${op}: content-type is not JSON`);
      const fault = state.nextFault(op);
      if (fault && 'hang' in fault) return hang(res);
      if (fault && 'status' in fault) return send(res, fault.status, { error: 'scripted failure' });
      if (op === 'consultaOrden') {
        const a = state.consultaOrden(body);
        return send(res, a.status, a.body);
      }
      const answer = op === 'registra' ? state.registra(body) : state.consulta(body);
      if (fault && 'hangAfter' in fault) return hang(res);
      send(res, 200, answer);
    })();
  });
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  server.on('tlsClientError', () => undefined);
  await new Promise<void>((r) => server.listen(opts.port ?? 0, '127.0.0.1', r));
  const addr = server.address();
  const port = typeof addr === 'object' && addr ? addr.port : 0;
  const origin = `https://127.0.0.1:${port}`;

  async function post(suffix: 'estado' | 'abono', body: unknown, base = callbackBase): Promise<CallbackAnswer> {
    if (!base) throw new Error('fake STP: no callback base set');
    const r = await fetch(`${base}/${suffix}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    const t = await r.text();
    let parsed: unknown = t;
    try {
      parsed = JSON.parse(t);
    } catch {
      // kept as text
    }
    return { status: r.status, body: parsed };
  }

  const move = async (clave: string, estado: 'LQ' | 'CN' | 'D', o: { callback?: boolean } = {}) => {
    const body = state.move(clave, estado);
    return o.callback === false ? null : post('estado', body);
  };

  return {
    baseUrl: `${origin}${API}`,
    empresa,
    cuentaOrdenante,
    stpConfig: (webhookToken) => ({
      base_url: `${origin}${API}`,
      empresa,
      cuenta_ordenante: cuentaOrdenante,
      private_key_pem: keyPem,
      private_key_passphrase: passphrase,
      ca_pem: certs.ca.certPem,
      webhook_token: webhookToken,
    }),
    setCallbackBase(url) {
      callbackBase = url.replace(/\/$/, '');
    },
    requests,
    violations: state.violations,
    order: (clave) => state.orders.get(clave),
    registrations: (clave) => state.registrations.get(clave) ?? 0,
    refuseAccount: (clabe, id) => void state.refusedAccounts.set(clabe, id),
    failNext(op, how, times = 1) {
      state.faults.set(op, [...(state.faults.get(op) ?? []), ...Array.from({ length: times }, () => how)]);
    },
    settle: (clave, o) => move(clave, 'LQ', o),
    cancel: (clave, o) => move(clave, 'CN', o),
    returnOrder: (clave, o) => move(clave, 'D', o),
    sendEstado: (body, o = {}) => post('estado', body, o.token && callbackBase ? callbackBase.replace(/[^/]+$/, o.token) : callbackBase),
    sendAbono(body, o = {}) {
      if (!o.unrecorded && body && typeof body === 'object') state.receive(body as Record<string, unknown>);
      return post('abono', body);
    },
    receive: (body) => state.receive(body),
    received: (clave) => state.received.get(clave),
    async close() {
      for (const res of hung) res.destroy();
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
