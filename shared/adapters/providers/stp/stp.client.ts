/**
 * The STP client: JSON over HTTPS (the configured CA, when given, as the only trust anchor), every call signed
 * by the caller with the configured key, answers checked against our schemas and unwrapped from STP's
 * `resultado` envelope. No answer, a 5xx, or an answer that is not STP's shape becomes ProviderUnavailable
 * (the outcome is unknown); STP's refusals come back as `{id, descripcionError}` for the connector to map.
 * Neither a body nor the key ever reaches a log line.
 */
import * as z from '../../../domain/zod';
import { ProviderUnavailable } from '../../../application/providers';
import { logger } from '../../../observability';
import { NoAnswer, providerHttp, safeJson, type HttpAnswer, type ProviderHttp } from '../http-client';
import type { StpConfig } from '../providers.config';

export const STP = 'stp';

export type StpOp = 'registra' | 'consulta' | 'consultaOrden';

export interface StpClient {
  /**
   * One call; `retry` sends an idempotent call (a query) once more after a 5xx or no answer. `path` is appended
   * to base_url, or is a whole https URL (the efws API). `accept`: non-2xx statuses whose body is STP's answer
   * (consultaOrden answers "nothing found" with a 400).
   */
  call<S extends z.ZodMiniType>(
    op: StpOp,
    method: 'PUT' | 'POST',
    path: string,
    body: unknown,
    schema: S,
    retry: boolean,
    accept?: readonly number[],
  ): Promise<z.infer<S>>;
  close(): void;
}

export function stpClient(cfg: StpConfig, http?: ProviderHttp): StpClient {
  const transport =
    http ??
    providerHttp(STP, { caPem: cfg.ca_pem }, { connectMs: cfg.timeouts?.connect_ms ?? 3_000, totalMs: cfg.timeouts?.total_ms ?? 10_000 });
  const base = cfg.base_url.replace(/\/$/, '');
  const unavailable = (op: StpOp, reason: string) => {
    logger.warn('STP call got no usable answer', { provider: STP, operation: op, reason });
    return new ProviderUnavailable(STP, op, reason);
  };

  async function send(op: StpOp, method: string, path: string, body: unknown): Promise<HttpAnswer> {
    try {
      return await transport.send({
        method,
        url: path.startsWith('https://') ? path : `${base}${path}`,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    } catch (e) {
      throw unavailable(op, e instanceof NoAnswer ? e.reason : String(e));
    }
  }

  return {
    async call(op, method, path, body, schema, retry, accept = []) {
      let a: HttpAnswer;
      try {
        a = await send(op, method, path, body);
      } catch (e) {
        if (!retry) throw e;
        a = await send(op, method, path, body);
      }
      if (retry && (a.status >= 500 || a.status === 429)) a = await send(op, method, path, body);
      if ((a.status < 200 || a.status > 299) && !accept.includes(a.status)) throw unavailable(op, `STP answered ${a.status}`);
      const parsed = z.safeParse(schema, safeJson(a.text));
      if (!parsed.success)
        throw unavailable(op, `STP's answer does not match its schema (${parsed.error.issues[0]?.path.join('.') ?? ''})`);
      return parsed.data;
    },
    close: () => transport.close(),
  };
}
