/**
 * The Efí client: our own, on the shared provider HTTP (http-client.ts), not Efí's SDK. Why: sdk-node-apis-efi
 * 2.0.1 reads the certificate from a file path, or from a base64 PEM only without a CA of our choosing; builds a
 * new https.Agent for every call (a TLS handshake each time); sets no timeout on its axios calls; hard-codes the
 * production and homologation hosts (a fake cannot stand in); rethrows Efí's bodies (prose included) as errors;
 * declares node >= 22 (our functions run on 20); and brings axios, qrcode, a second zod and @types/node at run
 * time. This client keeps what the API Pix client proved: mutual TLS from the in-memory PEMs (nothing on disk),
 * the configured CA as the only trust anchor, connect and total limits on every call, the OAuth2 token cached
 * per container until a minute before it expires (refreshed once and the call retried once on a 401/403).
 *
 * Efí's token request is `POST /oauth/token` with HTTP Basic and a JSON body `{"grant_type":
 * "client_credentials"}` (as the SDK sends it to the Pix API); its errors are `{nome, mensagem}` or, on reads,
 * RFC 7807 problems. What goes wrong is ProviderUnavailable (no usable answer) or EfiRefusal (a definite 4xx:
 * its status and Efí's `nome`, a snake_case code; the `mensagem` never leaves this file) for the connector to map.
 */
import { clientCredentialsToken } from '../oauth-token';
import * as z from '../../../domain/zod';
import { ProviderUnavailable } from '../../../application/providers';
import { logger } from '../../../observability';
import { NoAnswer, providerHttp, safeJson, type HttpAnswer, type ProviderHttp } from '../http-client';
import type { EfiConfig } from '../providers.config';
import { problemSchema } from '../api-pix/api-pix.schemas';
import { efiErrorSchema } from './efi.schemas';

export const EFI = 'efi';

export type EfiOp = 'token' | 'send' | 'getSent' | 'listInfractions' | 'medDefense' | 'getPix' | 'putWebhook' | 'getWebhook';

/** Efí's definite no: the HTTP status and its error name (`nome`, or a problem type as snake_case), never its text. */
export class EfiRefusal extends Error {
  constructor(
    readonly operation: EfiOp,
    readonly status: number,
    readonly efiName: string,
  ) {
    super(`efi ${operation} refused (${status}): ${efiName}`);
    this.name = 'EfiRefusal';
  }
}

/** The error name of a refusal: Efí's `nome` when it is a code, a problem's type as snake_case, else http_<status>. */
export function refusalName(a: HttpAnswer): string {
  const body = safeJson(a.text);
  const e = z.safeParse(efiErrorSchema, body);
  if (e.success && /^[a-z][a-z0-9_]{1,60}$/.test(e.data.nome)) return e.data.nome;
  const p = z.safeParse(problemSchema, body);
  const last = p.success ? (p.data.type.split('/').pop() ?? '') : '';
  return /^[A-Za-z]{3,60}$/.test(last) ? last.replace(/([a-z])([A-Z])/g, '$1_$2').toLowerCase() : `http_${a.status}`;
}

export interface EfiCallOptions {
  /** A 404 answers null instead of a refusal (a read of something that may not exist). */
  readonly notFoundIsNull?: boolean;
  /** Send once more after no answer, a 5xx or a 429 (reads only: a send is never repeated here). */
  readonly retry?: boolean;
  readonly headers?: Record<string, string>;
}

export interface EfiClient {
  call<S extends z.ZodMiniType>(
    op: EfiOp,
    method: string,
    path: string,
    schema: S,
    body?: unknown,
    options?: EfiCallOptions,
  ): Promise<z.infer<S> | null>;
  /** A fresh token (providers check). */
  token(): Promise<string>;
  close(): void;
}

export function efiClient(cfg: EfiConfig, http?: ProviderHttp): EfiClient {
  const transport =
    http ??
    providerHttp(
      EFI,
      { certificatePem: cfg.certificate_pem, privateKeyPem: cfg.private_key_pem, caPem: cfg.ca_pem },
      { connectMs: cfg.timeouts?.connect_ms ?? 3_000, totalMs: cfg.timeouts?.total_ms ?? 10_000 },
    );
  const base = cfg.base_url.replace(/\/$/, '');

  // A call whose token could not be had, or whose connection was never made, sent nothing.
  const unavailable = (op: EfiOp, reason: string, notSent = false) => {
    logger.warn('Efí call got no usable answer', { provider: EFI, operation: op, reason });
    return new ProviderUnavailable(EFI, op, reason, notSent || op === 'token');
  };

  const token = clientCredentialsToken({
    transport,
    tokenUrl: cfg.token_url,
    clientId: cfg.client_id,
    clientSecret: cfg.client_secret,
    encoding: 'json',
    unavailable: (reason) => unavailable('token', reason),
  });

  async function send(op: EfiOp, method: string, path: string, body: unknown, bearer: string, headers: Record<string, string>) {
    return transport.send({
      method,
      url: `${base}${path}`,
      headers: { authorization: `Bearer ${bearer}`, ...headers, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
      body: body !== undefined ? JSON.stringify(body) : undefined,
    });
  }

  async function attempt(op: EfiOp, method: string, path: string, body: unknown, headers: Record<string, string>, retry: boolean) {
    // Whether an earlier request of this call may have left (then a later failure is never "not sent").
    let sent = false;
    const once = async (force = false) => {
      try {
        return await send(op, method, path, body, await token(force), headers);
      } catch (e) {
        if (e instanceof NoAnswer) throw unavailable(op, e.reason, e.beforeSend && !sent);
        throw e;
      }
    };
    let a: HttpAnswer;
    try {
      a = await once();
    } catch (e) {
      if (!retry || !(e instanceof ProviderUnavailable) || op === 'token') throw e;
      sent = !e.notSent;
      a = await once();
    }
    if (a.status >= 500 || a.status === 429) sent = true;
    if (a.status === 401 || a.status === 403) a = await once(true);
    if (retry && (a.status >= 500 || a.status === 429)) a = await once();
    return a;
  }

  return {
    async call(op, method, path, schema, body, options = {}) {
      const a = await attempt(op, method, path, body, options.headers ?? {}, options.retry ?? false);
      if (a.status === 404 && options.notFoundIsNull) return null;
      if (a.status === 401 || a.status === 403)
        throw unavailable(op, `Efí refused our token (${a.status}) after a refresh (is the scope enabled?)`);
      if (a.status >= 500 || a.status === 429) throw unavailable(op, `Efí answered ${a.status} (${refusalName(a)})`);
      if (a.status < 200 || a.status > 299) {
        const name = refusalName(a);
        logger.warn('Efí refused a call', { provider: EFI, operation: op, status: a.status, code: name });
        throw new EfiRefusal(op, a.status, name);
      }
      const parsed = z.safeParse(schema, safeJson(a.text));
      if (!parsed.success)
        throw unavailable(op, `Efí's answer does not match our schema (${parsed.error.issues[0]?.path.join('.') ?? ''})`);
      return parsed.data;
    },
    token: () => token(true),
    close: () => transport.close(),
  };
}
