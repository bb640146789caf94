/**
 * HTTPS to a provider: mutual TLS with the configured client certificate (and, when given, the configured CA as
 * the only trust anchor), a connect and a total time limit on every call, and a classification of what went
 * wrong that the connectors map to ProviderUnavailable (no answer: outcome unknown) or to a definite refusal.
 * Nothing of a request or response body is logged here.
 */
import { Agent, request } from 'node:https';
import type { TLSSocket } from 'node:tls';
import { recordProviderCall } from '../../observability/provider-metrics';

export interface TlsIdentity {
  readonly certificatePem?: string;
  readonly privateKeyPem?: string;
  readonly privateKeyPassphrase?: string;
  /** When present, the only certificate authority trusted for the provider's server certificate. */
  readonly caPem?: string;
}

export interface Timeouts {
  readonly connectMs: number;
  readonly totalMs: number;
}

export const DEFAULT_TIMEOUTS: Timeouts = { connectMs: 3_000, totalMs: 10_000 };

export interface HttpAnswer {
  readonly status: number;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  readonly text: string;
}

/** The call got no HTTP answer: `reason` says which limit or failure, for logs and the 502 message (never a body). */
export class NoAnswer extends Error {
  constructor(
    readonly reason: string,
    /** The failure came before the connection was made (refused, DNS, TLS handshake, connect limit): nothing was sent. */
    readonly beforeSend = false,
  ) {
    super(reason);
    this.name = 'NoAnswer';
  }
}

/** An answer's body as JSON, or undefined when it is empty or not JSON (the caller's schema then refuses it). */
export function safeJson(text: string): unknown {
  try {
    return text ? JSON.parse(text) : undefined;
  } catch {
    return undefined;
  }
}

export interface ProviderHttp {
  send(req: { method: string; url: string; headers?: Record<string, string>; body?: string }): Promise<HttpAnswer>;
  close(): void;
}

/** A TLS handshake the provider refused (our certificate) or we refused (theirs), said plainly. */
function describe(e: NodeJS.ErrnoException): string {
  const code = e.code ?? '';
  if (/CERT|SELF_SIGNED|UNABLE_TO_VERIFY|DEPTH_ZERO|ERR_TLS_CERT/.test(code))
    return `TLS: the provider's certificate is not trusted (${code})`;
  if (/alert|handshake|certificate required|bad certificate|unknown ca/i.test(e.message) || code.startsWith('ERR_SSL'))
    return 'TLS: the provider refused the handshake (is certificate_pem/private_key_pem the client certificate it issued?)';
  if (code === 'ECONNRESET') return 'connection reset by the provider (a refused client certificate looks like this too)';
  if (code === 'ECONNREFUSED') return 'connection refused';
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return `DNS: ${code}`;
  return code || e.message;
}

export function providerHttp(provider: string, tls: TlsIdentity, timeouts: Timeouts): ProviderHttp {
  const agent = new Agent({
    keepAlive: true,
    maxSockets: 16,
    cert: tls.certificatePem,
    key: tls.privateKeyPem,
    passphrase: tls.privateKeyPassphrase,
    ...(tls.caPem ? { ca: [tls.caPem] } : {}),
  });
  return {
    send({ method, url, headers = {}, body }) {
      const started = performance.now();
      return new Promise<HttpAnswer>((resolve, reject) => {
        let settled = false;
        const finish = (err: Error | null, answer?: HttpAnswer) => {
          if (settled) return;
          settled = true;
          clearTimeout(total);
          const failed = err !== null || (answer !== undefined && (answer.status >= 500 || [401, 403, 429].includes(answer.status)));
          recordProviderCall(provider, performance.now() - started, failed);
          if (err) reject(err);
          else resolve(answer as HttpAnswer);
        };
        const req = request(url, {
          method,
          agent,
          headers: { accept: 'application/json', ...headers, ...(body !== undefined ? { 'content-length': Buffer.byteLength(body) } : {}) },
        });
        const total = setTimeout(() => {
          req.destroy();
          finish(new NoAnswer(`no answer within ${timeouts.totalMs} ms`));
        }, timeouts.totalMs);
        // Until the TLS connection is made nothing of the request has left: a failure then is "never sent".
        let connected = false;
        req.on('socket', (socket: TLSSocket) => {
          if (!socket.connecting) {
            connected = true; // a kept-alive connection
            return;
          }
          const connect = setTimeout(() => {
            req.destroy();
            finish(new NoAnswer(`no TLS connection within ${timeouts.connectMs} ms`, true));
          }, timeouts.connectMs);
          socket.once('secureConnect', () => {
            connected = true;
            clearTimeout(connect);
          });
          socket.once('close', () => clearTimeout(connect));
        });
        req.on('error', (e: NodeJS.ErrnoException) => finish(new NoAnswer(describe(e), !connected)));
        req.on('response', (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('error', (e: NodeJS.ErrnoException) => finish(new NoAnswer(describe(e))));
          res.on('end', () =>
            finish(null, { status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }),
          );
        });
        req.end(body);
      });
    },
    close: () => agent.destroy(),
  };
}
