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

type Op =
  | 'token'
  | 'putCob'
  | 'getCob'
  | 'patchCob'
  | 'putDevolucao'
  | 'getDevolucao'
  | 'putWebhook'
  | 'getWebhook'
  // Pix Automático (api-pix.recurrence.ts)
  | ApiPixRecurrenceOp;

/** The Pix Automático calls (api-pix.recurrence.ts), by name: the client's metrics and the fake PSP's faults. */
export type ApiPixRecurrenceOp =
  | 'postLocRec'
  | 'postRec'
  | 'getRec'
  | 'listRec'
  | 'patchRec'
  | 'postSolicRec'
  | 'putCobr'
  | 'getCobr'
  | 'postRetentativa'
  | 'putWebhookRec'
  | 'getWebhookRec'
  | 'putWebhookCobr'
  | 'getWebhookCobr';

/** Creates whose 4xx (the API's problem types) means nothing was created: "not processed" (DESIGN.md 9.2). */
const NOT_PROCESSED_ON_4XX: ReadonlySet<Op> = new Set<Op>(['putCob', 'postLocRec', 'postRec', 'postSolicRec', 'putCobr']);

export interface ApiPixClient {
  /** The parsed body of a 2xx answer, or null for a 404 (when `notFoundIsNull`). */
  call<S extends z.ZodMiniType>(
    op: Op,
    method: string,
    path: string,
    schema: S,
    body?: unknown,
    notFoundIsNull?: boolean,
    /**
     * False for a call the PSP does not key by an id of ours (a POST: /locrec, /rec, /solicrec, a retry request): it is
     * sent once, never again after a 5xx or a 429 (a second one could create a second object).
     */
    idempotent?: boolean,
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

/**
 * Which PSP this client speaks to: the document's block name (`api_pix`, or `efi` when Efí's block serves pay-ins
 * through the same standard API) and how its token endpoint takes the client credentials (API Pix: a form; Efí: JSON).
 */
export interface ApiPixPsp {
  readonly name: string;
  readonly tokenEncoding: 'form' | 'json';
}
export const API_PIX_PSP: ApiPixPsp = { name: API_PIX, tokenEncoding: 'form' };

export function apiPixClient(cfg: ApiPixConfig, http?: ProviderHttp, psp: ApiPixPsp = API_PIX_PSP): ApiPixClient {
  const transport =
    http ??
    providerHttp(
      psp.name,
      { certificatePem: cfg.certificate_pem, privateKeyPem: cfg.private_key_pem, caPem: cfg.ca_pem },
      { connectMs: cfg.timeouts?.connect_ms ?? 3_000, totalMs: cfg.timeouts?.total_ms ?? 10_000 },
    );
  const base = cfg.base_url.replace(/\/$/, '');

  // A call whose token could not be had never sent its request: the PSP holds nothing of it.
  const unavailable = (op: Op, reason: string, notSent = false) => {
    logger.warn('API Pix call got no usable answer', { provider: psp.name, operation: op, reason });
    return new ProviderUnavailable(psp.name, op, reason, notSent || op === 'token');
  };

  const token = clientCredentialsToken({
    transport,
    tokenUrl: cfg.token_url,
    clientId: cfg.client_id,
    clientSecret: cfg.client_secret,
    encoding: psp.tokenEncoding,
    unavailable: (reason) => unavailable('token', reason),
  });

  /** One request; `sent` says whether an earlier request of the same call already left (then nothing is "never sent"). */
  async function send(op: Op, method: string, path: string, body: unknown, bearer: string, sent = false): Promise<HttpAnswer> {
    try {
      return await transport.send({
        method,
        url: `${base}${path}`,
        headers: { authorization: `Bearer ${bearer}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
        body: body !== undefined ? JSON.stringify(body) : undefined,
      });
    } catch (e) {
      throw unavailable(op, e instanceof NoAnswer ? e.reason : String(e), !sent && e instanceof NoAnswer && e.beforeSend);
    }
  }

  return {
    async call(op, method, path, schema, body, notFoundIsNull = false, idempotent = true) {
      let a = await send(op, method, path, body, await token());
      // A refused token sent nothing that counted; a 5xx may have been acted on.
      if (a.status === 401 || a.status === 403) a = await send(op, method, path, body, await token(true));
      // One more try of an idempotent call (PUT by our id, GET, PATCH to one status); a POST is sent once.
      if (idempotent && (a.status >= 500 || a.status === 429)) a = await send(op, method, path, body, await token(), true);
      if (a.status === 404 && notFoundIsNull) return null;
      if (a.status === 401 || a.status === 403) throw unavailable(op, `the PSP refused our token (${a.status}) after a refresh`);
      if (a.status >= 500 || a.status === 429) throw unavailable(op, `the PSP answered ${a.status}`);
      if (a.status < 200 || a.status > 299) {
        const code = problemCode(a);
        logger.warn('API Pix refused a call', { provider: psp.name, operation: op, status: a.status, code });
        // A cob refused (4xx, the API's problem types) was not created: "not processed" (DESIGN.md 9.2). A 409
        // (a txid in use) is not that: the PSP may hold a cob of ours.
        throw new ProviderRejected(psp.name, op, code, a.status, NOT_PROCESSED_ON_4XX.has(op) && a.status !== 409);
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
