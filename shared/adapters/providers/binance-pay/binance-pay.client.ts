/**
 * The Binance Pay client: every call a POST of a JSON body signed HMAC-SHA512 (binance-pay.signature.ts, headers
 * made at each send, so a retried read carries a new timestamp and nonce), over TLS with `ca_pem` as the only
 * trust anchor when it is given, a connect and a total time limit on every call.
 * Only idempotent reads (order query, refund query, certificates) are retried, once, after no answer, a 5xx or a
 * 429. No answer, a 5xx, an answer that is not Binance's envelope or not our schema, or a result code that is about
 * our call rather than the business (signature, timestamp, API key, "unknown error") is ProviderUnavailable; a
 * business refusal comes back as `{refused}` with Binance's result code for the connector to map. Neither a body,
 * Binance's errorMessage nor a secret reaches a log line.
 */
import * as z from '../../../domain/zod';
import { ProviderUnavailable } from '../../../application/providers';
import { logger } from '../../../observability';
import { NoAnswer, providerHttp, safeJson, type HttpAnswer, type ProviderHttp } from '../http-client';
import type { BinancePayConfig } from '../providers.config';
import { envelopeSchema } from './binance-pay.schemas';
import { signedHeaders } from './binance-pay.signature';
import { BINANCE_PAY, UNAVAILABLE_CODES } from './binance-pay.transformers';

export type BinancePayOp = 'orders' | 'order' | 'close' | 'refunds' | 'refund' | 'certificates';

/** The paths (Binance Pay's pages): create v3, query v2, close, refund, refund query, certificates. */
export const PATHS: Readonly<Record<BinancePayOp, string>> = {
  orders: '/binancepay/openapi/v3/order',
  order: '/binancepay/openapi/v2/order/query',
  close: '/binancepay/openapi/order/close',
  refunds: '/binancepay/openapi/order/refund',
  refund: '/binancepay/openapi/order/refund/query',
  certificates: '/binancepay/openapi/certificates',
};

/** Reads, sent once more after no answer or a 5xx. */
const IDEMPOTENT: ReadonlySet<BinancePayOp> = new Set(['order', 'refund', 'certificates']);

/** A definite answer: the parsed `data`, or Binance's refusal (HTTP status and its result code). */
export type BinancePayAnswer<T> = { readonly ok: T } | { readonly refused: { readonly status: number; readonly code: string } };

export interface BinancePayClient {
  call<S extends z.ZodMiniType>(op: BinancePayOp, body: unknown, schema: S): Promise<BinancePayAnswer<z.infer<S>>>;
  close(): void;
}

export function binancePayClient(cfg: BinancePayConfig, http?: ProviderHttp, now: () => number = Date.now): BinancePayClient {
  const transport =
    http ??
    providerHttp(
      BINANCE_PAY,
      { caPem: cfg.ca_pem },
      { connectMs: cfg.timeouts?.connect_ms ?? 3_000, totalMs: cfg.timeouts?.total_ms ?? 10_000 },
    );
  const base = cfg.base_url.replace(/\/$/, '');
  const credentials = { apiKey: cfg.api_key, secretKey: cfg.secret_key };
  const unavailable = (op: BinancePayOp, reason: string) => {
    logger.warn('Binance Pay call got no usable answer', { provider: BINANCE_PAY, operation: op, reason });
    return new ProviderUnavailable(BINANCE_PAY, op, reason);
  };

  async function sendOnce(op: BinancePayOp, body: string): Promise<HttpAnswer> {
    try {
      return await transport.send({ method: 'POST', url: `${base}${PATHS[op]}`, headers: signedHeaders(credentials, body, now()), body });
    } catch (e) {
      throw unavailable(op, e instanceof NoAnswer ? e.reason : String(e));
    }
  }

  async function send(op: BinancePayOp, body: string): Promise<HttpAnswer> {
    const retry = IDEMPOTENT.has(op);
    let a: HttpAnswer;
    try {
      a = await sendOnce(op, body);
    } catch (e) {
      if (!retry) throw e;
      return sendOnce(op, body);
    }
    if (retry && (a.status >= 500 || a.status === 429)) a = await sendOnce(op, body);
    return a;
  }

  return {
    async call(op, body, schema) {
      const a = await send(op, JSON.stringify(body));
      if (a.status >= 500 || a.status === 429) throw unavailable(op, `Binance Pay answered ${a.status}`);
      const env = z.safeParse(envelopeSchema, safeJson(a.text));
      if (!env.success) throw unavailable(op, `Binance Pay's answer (${a.status}) is not its envelope`);
      const { status, code, data } = env.data;
      if (status === 'SUCCESS' && a.status >= 200 && a.status <= 299) {
        const parsed = z.safeParse(schema, data);
        if (!parsed.success)
          throw unavailable(op, `Binance Pay's answer does not match our schema (${parsed.error.issues[0]?.path.join('.') ?? ''})`);
        return { ok: parsed.data };
      }
      if (UNAVAILABLE_CODES.has(code)) throw unavailable(op, `Binance Pay refused our call, not the business (code ${code})`);
      return { refused: { status: a.status, code } };
    },
    close: () => transport.close(),
  };
}
