/**
 * One webhook POST (DESIGN.md section 5) to an address already approved by ssrf-guard.ts.
 *
 * - Connects to exactly `address`: the request's `lookup` returns it, so the host name is never
 *   resolved again (no DNS-rebinding window). The Host header and the TLS server name (SNI and
 *   certificate check) stay the URL's host name.
 * - Never follows redirects: a 3xx is a failure carrying its status.
 * - `timeoutMs` bounds the whole exchange (connect, TLS, headers and body): then error 'timeout'.
 * - Reads and discards at most 64 KB of response body, then closes the connection.
 * - ok = 2xx. Never throws.
 */
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { isIP } from 'node:net';
import { performance } from 'node:perf_hooks';

export const MAX_RESPONSE_BYTES = 64 * 1024;
export const DEFAULT_TIMEOUT_MS = 10_000;

export interface DeliverInput {
  url: URL | string;
  /** The address ssrf-guard checked; the only one connected to. */
  address: string;
  family: 4 | 6;
  body: string | Buffer;
  /** Extra headers (signatures); content-type, content-length, host and user-agent are set here. */
  headers: Record<string, string>;
  timeoutMs?: number;
  userAgent: string;
}

export interface DeliveryResult {
  ok: boolean;
  status?: number;
  /** 'timeout', a socket/TLS error code (ECONNREFUSED, CERT_HAS_EXPIRED...) or a message. */
  error?: string;
  durationMs: number;
}

const OVERRIDDEN = new Set(['host', 'content-type', 'content-length', 'user-agent', 'transfer-encoding', 'connection']);

const canonicalIp = (ip: string) => (isIP(ip) === 6 ? new URL(`http://[${ip}]/`).hostname : ip);

export function deliver({
  url,
  address,
  family,
  body,
  headers,
  timeoutMs = DEFAULT_TIMEOUT_MS,
  userAgent,
}: DeliverInput): Promise<DeliveryResult> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);

  return new Promise<DeliveryResult>((resolve) => {
    let settled = false;
    let status: number | undefined;
    let req: http.ClientRequest | undefined;
    const finish = (result: Omit<DeliveryResult, 'durationMs'>) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      req?.destroy();
      resolve({ ...result, durationMs: elapsed() });
    };
    const fail = (error: string) => finish(status === undefined ? { ok: false, error } : { ok: false, status, error });
    const timer = setTimeout(() => fail('timeout'), timeoutMs);

    try {
      const target = typeof url === 'string' ? new URL(url) : url;
      const secure = target.protocol === 'https:';
      if (!secure && target.protocol !== 'http:') return fail(`unsupported protocol ${target.protocol}`);
      const hostname = target.hostname.startsWith('[') ? target.hostname.slice(1, -1) : target.hostname;
      const literal = isIP(hostname) !== 0;
      // A literal IP host is connected to directly (Node skips lookup), so it must be the checked one.
      if (literal && canonicalIp(hostname) !== canonicalIp(address))
        return fail(`address ${address} does not match the URL host ${hostname}`);

      const lookup: LookupFunction = (_name, options, callback) => {
        if (options.all) callback(null, [{ address, family }]);
        else callback(null, address, family);
      };
      const payload = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
      const outgoing: Record<string, string> = {};
      for (const [name, value] of Object.entries(headers)) if (!OVERRIDDEN.has(name.toLowerCase())) outgoing[name.toLowerCase()] = value;
      Object.assign(outgoing, {
        host: target.host,
        'content-type': 'application/json',
        'content-length': String(payload.length),
        'user-agent': userAgent,
        connection: 'close',
      });

      const options: https.RequestOptions = {
        method: 'POST',
        hostname,
        port: target.port === '' ? (secure ? 443 : 80) : Number(target.port),
        path: `${target.pathname}${target.search}`,
        headers: outgoing,
        lookup,
        family,
        agent: false, // a fresh connection each time: nothing pooled under another resolution
        ...(secure && !literal ? { servername: hostname } : {}),
      };

      req = (secure ? https : http).request(options, (res) => {
        status = res.statusCode ?? 0;
        let received = 0;
        res.on('data', (chunk: Buffer) => {
          received += chunk.length;
          if (received >= MAX_RESPONSE_BYTES) done();
        });
        res.on('end', () => done());
        res.on('error', (e: NodeJS.ErrnoException) => fail(e.code ?? e.message));
        res.on('close', () => fail('connection closed before the response ended'));
        function done() {
          finish({ ok: status! >= 200 && status! < 300, status });
        }
      });
      req.on('error', (e: NodeJS.ErrnoException) => fail(e.code ?? e.message));
      req.end(payload);
    } catch (e) {
      fail((e as NodeJS.ErrnoException).code ?? (e as Error).message);
    }
  });
}
