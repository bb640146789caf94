/**
 * The dLocal client: pay-ins calls signed V2-HMAC-SHA256 (dlocal.signature.ts), payouts v3 calls with an OAuth2
 * bearer token (client credentials; cached and refreshed before it expires, one refresh in flight at a time; a
 * 401 drops it and the call is sent once more with a new one) beside X-Date (ISO 8601 UTC, as pay-ins send it) and
 * X-Version 3.0, as docs.dlocal.com/reference/security-payouts-v3 shows every call after the token request; a
 * connect and a total time limit on every call.
 * Only idempotent reads are retried (once, after no answer or a 5xx). No answer, a 5xx, our credentials refused,
 * or an answer off our schema is ProviderUnavailable; a 4xx comes back as `{refused}` with dLocal's numeric
 * code for the connector to map. Neither a body nor a secret reaches a log line.
 */
import * as z from '../../../domain/zod';
import { ProviderUnavailable } from '../../../application/providers';
import { logger } from '../../../observability';
import { NoAnswer, providerHttp, safeJson, type HttpAnswer, type ProviderHttp } from '../http-client';
import type { DlocalConfig } from '../providers.config';
import { errorSchema, tokenAnswerSchema } from './dlocal.schemas';
import { signedHeaders } from './dlocal.signature';

export const DLOCAL = 'dlocal';

/** The X-Version of every payouts v3 call (docs.dlocal.com/reference/security-payouts-v3). */
export const DLOCAL_PAYOUTS_API_VERSION = '3.0';

/** The headers of one payouts v3 call: the bearer token, X-Date (ISO 8601 UTC, made at each send) and X-Version 3.0. */
export function payoutsHeaders(token: string, withBody: boolean, now: Date = new Date()): Record<string, string> {
  return {
    'x-date': now.toISOString(),
    'x-version': DLOCAL_PAYOUTS_API_VERSION,
    authorization: `Bearer ${token}`,
    ...(withBody ? { 'content-type': 'application/json' } : {}),
  };
}

export type DlocalOp =
  'payments' | 'payment' | 'order' | 'cancel' | 'refunds' | 'refund' | 'token' | 'payouts' | 'payout' | 'methods' | 'chargeback';

/** A definite answer: the parsed 2xx body, or dLocal's refusal (HTTP status and its numeric code, when it gave one). */
export type DlocalAnswer<T> = { readonly ok: T } | { readonly refused: { readonly status: number; readonly code: number | null } };

export interface DlocalCall<S extends z.ZodMiniType> {
  readonly op: DlocalOp;
  readonly method: 'GET' | 'POST';
  readonly path: string;
  readonly schema: S;
  readonly body?: unknown;
  /** An idempotent read: sent once more after no answer or a 5xx. */
  readonly retry?: boolean;
}

export interface DlocalClient {
  payins<S extends z.ZodMiniType>(call: DlocalCall<S>): Promise<DlocalAnswer<z.infer<S>>>;
  payouts<S extends z.ZodMiniType>(call: DlocalCall<S>): Promise<DlocalAnswer<z.infer<S>>>;
  /** Token requests made so far (the tests check the cache). */
  readonly tokenRequests: () => number;
  close(): void;
}

/** A token is refreshed this long before dLocal says it expires (a third of its life, at most 30 s). */
export const refreshMarginMs = (expiresInSeconds: number) => Math.min(30_000, (expiresInSeconds * 1000) / 3);

export function dlocalClient(cfg: DlocalConfig, http?: ProviderHttp, now: () => number = Date.now): DlocalClient {
  const transport =
    http ??
    providerHttp(
      DLOCAL,
      { caPem: cfg.ca_pem },
      { connectMs: cfg.timeouts?.connect_ms ?? 3_000, totalMs: cfg.timeouts?.total_ms ?? 10_000 },
    );
  const base = cfg.base_url.replace(/\/$/, '');
  const payoutsBase = (cfg.payouts?.base_url ?? cfg.base_url).replace(/\/$/, '');
  const credentials = { xLogin: cfg.x_login, xTransKey: cfg.x_trans_key, secretKey: cfg.secret_key };
  // `notSent`: the request certainly never left (refused before the connection, TLS, or no token: a call whose
  // token could not be had never sent its request, so dLocal holds nothing of it): a failover may follow.
  const unavailable = (op: DlocalOp, reason: string, notSent = false) => {
    logger.warn('dLocal call got no usable answer', { provider: DLOCAL, operation: op, reason });
    return new ProviderUnavailable(DLOCAL, op, reason, notSent || op === 'token');
  };

  /** One request; `sent`: an earlier request of the same call may have left (then nothing is "never sent"). */
  async function sendOnce(
    op: DlocalOp,
    method: string,
    url: string,
    headers: Record<string, string>,
    body?: string,
    sent = false,
  ): Promise<HttpAnswer> {
    try {
      return await transport.send({ method, url, headers, ...(body !== undefined ? { body } : {}) });
    } catch (e) {
      throw unavailable(op, e instanceof NoAnswer ? e.reason : String(e), !sent && e instanceof NoAnswer && e.beforeSend);
    }
  }

  /** One call, and for an idempotent read a second one after no answer or a 5xx. */
  async function send(call: DlocalCall<z.ZodMiniType>, url: string, headers: () => Record<string, string>, body?: string) {
    let a: HttpAnswer;
    try {
      a = await sendOnce(call.op, call.method, url, headers(), body);
    } catch (e) {
      if (!call.retry) throw e;
      const firstLeft = !(e instanceof ProviderUnavailable && e.notSent);
      return sendOnce(call.op, call.method, url, headers(), body, firstLeft);
    }
    if (call.retry && (a.status >= 500 || a.status === 429)) a = await sendOnce(call.op, call.method, url, headers(), body, true);
    return a;
  }

  function interpret<S extends z.ZodMiniType>(call: DlocalCall<S>, a: HttpAnswer): DlocalAnswer<z.infer<S>> {
    if (a.status >= 500 || a.status === 429) throw unavailable(call.op, `dLocal answered ${a.status}`);
    if (a.status === 401) throw unavailable(call.op, 'dLocal refused our credentials (401)');
    if (a.status < 200 || a.status > 299) {
      const err = z.safeParse(errorSchema, safeJson(a.text));
      const code = err.success ? err.data.code : null;
      // 3001 invalid credentials, 3002 unregistered IP, 3003 no authorization: our configuration, not a refusal.
      if (a.status === 403 && (code === null || (code >= 3000 && code < 4000)))
        throw unavailable(call.op, `dLocal refused our credentials or address (${a.status}${code === null ? '' : ` code ${code}`})`);
      return { refused: { status: a.status, code } };
    }
    const parsed = z.safeParse(call.schema, safeJson(a.text));
    if (!parsed.success)
      throw unavailable(call.op, `dLocal's answer does not match our schema (${parsed.error.issues[0]?.path.join('.') ?? ''})`);
    return { ok: parsed.data };
  }

  // OAuth2 token of payouts v3: cached; one refresh in flight; refreshed `refreshMarginMs` before expiry.
  let token: { value: string; refreshAt: number } | null = null;
  let inFlight: Promise<string> | null = null;
  let tokenRequests = 0;

  async function fetchToken(): Promise<string> {
    const payouts = cfg.payouts;
    if (!payouts) throw unavailable('token', 'no payouts credentials configured (dlocal.payouts)');
    tokenRequests += 1;
    const body = JSON.stringify({ grant_type: 'client_credentials', client_id: payouts.client_id, client_secret: payouts.client_secret });
    const a = await sendOnce('token', 'POST', `${payoutsBase}/oauth/token`, { 'content-type': 'application/json' }, body);
    if (a.status !== 200) throw unavailable('token', `dLocal refused the token request (${a.status}): check dlocal.payouts`);
    const parsed = z.safeParse(tokenAnswerSchema, safeJson(a.text));
    if (!parsed.success) throw unavailable('token', "dLocal's token answer does not match our schema");
    const issued = now();
    token = {
      value: parsed.data.access_token,
      refreshAt: issued + parsed.data.expires_in * 1000 - refreshMarginMs(parsed.data.expires_in),
    };
    return token.value;
  }

  function bearer(): Promise<string> {
    if (token && now() < token.refreshAt) return Promise.resolve(token.value);
    inFlight ??= fetchToken().finally(() => {
      inFlight = null;
    });
    return inFlight;
  }

  return {
    async payins(call) {
      const body = call.body === undefined ? '' : JSON.stringify(call.body);
      const a = await send(call, `${base}${call.path}`, () => signedHeaders(credentials, body), call.method === 'GET' ? undefined : body);
      return interpret(call, a);
    },
    async payouts(call) {
      const body = call.body === undefined ? undefined : JSON.stringify(call.body);
      // Made at each send (a retried read carries a new X-Date).
      const headersWith = (t: string) => () => payoutsHeaders(t, body !== undefined);
      let a = await send(call, `${payoutsBase}${call.path}`, headersWith(await bearer()), body);
      if (a.status === 401) {
        // The token was revoked or expired early: nothing was done with it; one more call with a fresh one.
        token = null;
        a = await send(call, `${payoutsBase}${call.path}`, headersWith(await bearer()), body);
      }
      return interpret(call, a);
    },
    tokenRequests: () => tokenRequests,
    close: () => transport.close(),
  };
}
