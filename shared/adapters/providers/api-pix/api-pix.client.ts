/**
 * The API Pix client: OAuth2 client credentials (HTTP Basic) over mutual TLS, the access token cached per
 * container until shortly before it expires (refreshed once and the call retried once on a 401), JSON calls
 * whose answers are checked against our schemas of the published spec. What goes wrong becomes
 * ProviderUnavailable (no usable answer: the outcome is unknown) or ProviderRejected (the PSP's definite no,
 * reduced to a code of ours: its problem text never travels further).
 */
import { clientCredentialsToken } from '../oauth-token';
import * as z from '../../../domain/zod';
import { ProviderRejected, ProviderUnavailable } from '../../../application/providers';
import { logger } from '../../../observability';
import { NoAnswer, providerHttp, safeJson, type HttpAnswer, type ProviderHttp } from '../http-client';
import type { ApiPixConfig } from '../providers.config';
import { problemSchema } from './api-pix.schemas';

export const API_PIX = 'api_pix';

/** Refresh this long before the token's own expiry. */

type Op = 'token' | 'putCob' | 'getCob' | 'patchCob' | 'putDevolucao' | 'getDevolucao' | 'putWebhook' | 'getWebhook';

export interface ApiPixClient {
  /** The parsed body of a 2xx answer, or null for a 404 (when `notFoundIsNull`). */
  call<S extends z.ZodMiniType>(
    op: Op,
    method: string,
    path: string,
    schema: S,
    body?: unknown,
    notFoundIsNull?: boolean,
  ): Promise<z.infer<S> | null>;
  /** Obtains a fresh token (providers check). */
  token(): Promise<string>;
  close(): void;
}

/** A PSP problem type (RFC 7807 `type`, e.g. https://pix.bcb.gov.br/api/v2/error/CobOperacaoInvalida) as our stable code. */
export function problemCode(a: HttpAnswer): string {
  const parsed = z.safeParse(problemSchema, safeJson(a.text));
  const type = parsed.success ? parsed.data.type : '';
  const name = type.split('/').pop() ?? '';
  return /^[A-Za-z]{3,60}$/.test(name) ? name.replace(/([a-z])([A-Z])/g, '$1_$2').toLowerCase() : `http_${a.status}`;
}

export function apiPixClient(cfg: ApiPixConfig, http?: ProviderHttp): ApiPixClient {
  const transport =
    http ??
    providerHttp(
      API_PIX,
      { certificatePem: cfg.certificate_pem, privateKeyPem: cfg.private_key_pem, caPem: cfg.ca_pem },
      { connectMs: cfg.timeouts?.connect_ms ?? 3_000, totalMs: cfg.timeouts?.total_ms ?? 10_000 },
    );
  const base = cfg.base_url.replace(/\/$/, '');

  const unavailable = (op: Op, reason: string) => {
    logger.warn('API Pix call got no usable answer', { provider: API_PIX, operation: op, reason });
    return new ProviderUnavailable(API_PIX, op, reason);
  };

  const token = clientCredentialsToken({
    transport,
    tokenUrl: cfg.token_url,
    clientId: cfg.client_id,
    clientSecret: cfg.client_secret,
    encoding: 'form',
    unavailable: (reason) => unavailable('token', reason),
  });

  async function send(op: Op, method: string, path: string, body: unknown, bearer: string): Promise<HttpAnswer> {
    try {
      return await transport.send({
        method,
        url: `${base}${path}`,
        headers: { authorization: `Bearer ${bearer}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
        body: body !== undefined ? JSON.stringify(body) : undefined,
      });
    } catch (e) {
      throw unavailable(op, e instanceof NoAnswer ? e.reason : String(e));
    }
  }

  return {
    async call(op, method, path, schema, body, notFoundIsNull = false) {
      let a = await send(op, method, path, body, await token());
      if (a.status === 401 || a.status === 403) a = await send(op, method, path, body, await token(true));
      // One more try of an idempotent call (every API Pix call we make is: PUT by our id, GET, PATCH to one status).
      if (a.status >= 500 || a.status === 429) a = await send(op, method, path, body, await token());
      if (a.status === 404 && notFoundIsNull) return null;
      if (a.status === 401 || a.status === 403) throw unavailable(op, `the PSP refused our token (${a.status}) after a refresh`);
      if (a.status >= 500 || a.status === 429) throw unavailable(op, `the PSP answered ${a.status}`);
      if (a.status < 200 || a.status > 299) {
        const code = problemCode(a);
        logger.warn('API Pix refused a call', { provider: API_PIX, operation: op, status: a.status, code });
        throw new ProviderRejected(API_PIX, op, code, a.status);
      }
      const parsed = z.safeParse(schema, safeJson(a.text));
      if (!parsed.success)
        throw unavailable(op, `the PSP's answer does not match the API Pix schema (${parsed.error.issues[0]?.path.join('.') ?? ''})`);
      return parsed.data;
    },
    token: () => token(true),
    close: () => transport.close(),
  };
}
