/**
 * The Adyen Checkout client: the API key in X-API-Key, an Idempotency-Key derived from our id on every POST, a
 * connect and a total time limit on every call, answers checked against our schemas. What goes wrong becomes
 * ProviderUnavailable (no usable answer: the outcome is unknown, nothing is retried here; the intent and the
 * reconciliation job settle it) or ProviderRejected (Adyen's definite no, reduced to a code of ours). Nothing of a
 * request body (card data) or a response body is logged.
 */
import * as z from '../../../domain/zod';
import { ProviderRejected, ProviderUnavailable } from '../../../application/providers';
import { logger } from '../../../observability';
import { NoAnswer, providerHttp, safeJson, type HttpAnswer, type ProviderHttp } from '../http-client';
import type { AdyenConfig } from '../providers.config';
import { serviceErrorSchema } from './adyen.schemas';

export const ADYEN = 'adyen';

/** The Disputes API's operations (DisputeService v30), each named as its endpoint. */
export const ADYEN_DISPUTE_OPS = [
  'retrieveApplicableDefenseReasons',
  'supplyDefenseDocument',
  'deleteDisputeDefenseDocument',
  'defendDispute',
  'acceptDispute',
] as const;
export type AdyenDisputeOp = (typeof ADYEN_DISPUTE_OPS)[number];

export type AdyenOp = 'payments' | 'paymentDetails' | 'refunds' | 'cancels' | 'storedPaymentMethods' | AdyenDisputeOp;

const isDisputeOp = (op: AdyenOp) => (ADYEN_DISPUTE_OPS as readonly string[]).includes(op);

export interface AdyenClient {
  /**
   * POSTs `body` to `path` with the Idempotency-Key (null: none, for a call whose repeat must reach Adyen again); the
   * parsed body of a 2xx answer.
   */
  post<S extends z.ZodMiniType>(op: AdyenOp, path: string, schema: S, body: unknown, idempotencyKey: string | null): Promise<z.infer<S>>;
  /** GETs `path` (with its query); the parsed body of a 2xx answer. */
  get<S extends z.ZodMiniType>(op: AdyenOp, path: string, schema: S): Promise<z.infer<S>>;
  /** DELETEs `path` (with its query): resolves on a 2xx answer (Adyen's 204 has no body). */
  delete(op: AdyenOp, path: string): Promise<void>;
  /** The same client (API key, transport, error classification) on another of Adyen's API roots (the Disputes API's). */
  at(baseUrl: string): AdyenClient;
  close(): void;
}

/** Adyen's error (ServiceError.errorCode, e.g. "101" invalid card number) as a stable code of ours. */
export function errorCodeOf(a: HttpAnswer): string {
  const parsed = z.safeParse(serviceErrorSchema, safeJson(a.text));
  const code = parsed.success ? (parsed.data.errorCode ?? '') : '';
  return /^[A-Za-z0-9_]{1,20}$/.test(code) ? `adyen_${code}` : `http_${a.status}`;
}

/** 704: a request with this Idempotency-Key is still in flight (or was sent with another body): the outcome is unknown. */
const IDEMPOTENCY_IN_FLIGHT = 'adyen_704';

export function adyenClient(cfg: AdyenConfig, http?: ProviderHttp): AdyenClient {
  const transport =
    http ??
    providerHttp(ADYEN, { caPem: cfg.ca_pem }, { connectMs: cfg.timeouts?.connect_ms ?? 3_000, totalMs: cfg.timeouts?.total_ms ?? 10_000 });
  return clientOver(cfg, transport, cfg.base_url);
}

function clientOver(cfg: AdyenConfig, transport: ProviderHttp, baseUrl: string): AdyenClient {
  const base = baseUrl.replace(/\/$/, '');
  // `notSent`: the connection was refused or its TLS failed before the request left: Adyen holds nothing of it.
  const unavailable = (op: AdyenOp, reason: string, notSent = false) => {
    logger.warn('Adyen call got no usable answer', { provider: ADYEN, operation: op, reason });
    return new ProviderUnavailable(ADYEN, op, reason, notSent);
  };

  async function send(op: AdyenOp, method: 'POST' | 'GET' | 'DELETE', path: string, body?: unknown, idempotencyKey?: string | null) {
    let a: HttpAnswer;
    try {
      a = await transport.send({
        method,
        url: `${base}${path}`,
        headers: {
          'x-api-key': cfg.api_key,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
          ...(idempotencyKey == null ? {} : { 'idempotency-key': idempotencyKey }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
    } catch (e) {
      throw unavailable(op, e instanceof NoAnswer ? e.reason : String(e), e instanceof NoAnswer && e.beforeSend);
    }
    if (a.status === 401 || a.status === 403)
      throw unavailable(
        op,
        isDisputeOp(op)
          ? `Adyen refused our API key (${a.status}): check api_key and that its credential has Adyen's dispute management role`
          : `Adyen refused our API key (${a.status}): check api_key`,
      );
    if (a.status >= 500 || a.status === 429) throw unavailable(op, `Adyen answered ${a.status}`);
    if (a.status < 200 || a.status > 299) {
      const code = errorCodeOf(a);
      if (code === IDEMPOTENCY_IN_FLIGHT) throw unavailable(op, 'the same Idempotency-Key is still being processed');
      logger.warn('Adyen refused a call', { provider: ADYEN, operation: op, status: a.status, code });
      throw new ProviderRejected(ADYEN, op, code, a.status);
    }
    return a;
  }
  const parse = <S extends z.ZodMiniType>(op: AdyenOp, schema: S, a: HttpAnswer): z.infer<S> => {
    const parsed = z.safeParse(schema, safeJson(a.text));
    if (!parsed.success)
      throw unavailable(op, `Adyen's answer does not match our schema (${parsed.error.issues[0]?.path.join('.') ?? ''})`);
    return parsed.data;
  };

  return {
    post: async (op, path, schema, body, idempotencyKey) => parse(op, schema, await send(op, 'POST', path, body, idempotencyKey)),
    get: async (op, path, schema) => parse(op, schema, await send(op, 'GET', path)),
    async delete(op, path) {
      await send(op, 'DELETE', path);
    },
    at: (other) => clientOver(cfg, transport, other),
    close: () => transport.close(),
  };
}
