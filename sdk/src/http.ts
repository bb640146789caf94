/**
 * The transport: one request over fetch with the key, a per-attempt timeout, the caller's AbortSignal,
 * and bounded retries with exponential backoff and jitter. A request is retried only when that is
 * safe: reads, and writes sent with an X-Idempotency-Key (the same key on every attempt, so the API
 * creates the object once). Retried: no answer (network error, timeout), 429 (after Retry-After),
 * 409 "still processing this key", and 5xx.
 */
import { randomUUID } from 'node:crypto';
import { APIError, ConnectionError, errorFromResponse, TimeoutError } from './errors.ts';

export const VERSION = '0.1.0';

export interface TransportOptions {
  readonly apiKey: string;
  readonly baseUrl: string;
  /** Milliseconds to wait for each attempt's answer. Default 30 000. */
  readonly timeout?: number;
  /** Retries after the first attempt, for requests safe to retry. Default 2. */
  readonly maxNetworkRetries?: number;
  /** The longest Retry-After (seconds) honoured by waiting; a longer one is thrown at once. Default 60. */
  readonly maxRetryAfter?: number;
  /** A fetch implementation (tests, proxies). Default: the global fetch. */
  readonly fetch?: typeof fetch;
}

/** Per call: `client.payouts.create(params, { idempotencyKey, signal, timeout })`. */
export interface RequestOptions {
  /** Sent as X-Idempotency-Key on creates and changes; generated (a UUID) when absent. */
  readonly idempotencyKey?: string;
  /** Aborts the call (and any wait between retries); the call rejects with the signal's reason. */
  readonly signal?: AbortSignal;
  readonly timeout?: number;
  readonly maxNetworkRetries?: number;
}

export interface RequestSpec {
  readonly method: 'GET' | 'POST';
  readonly path: string;
  readonly query?: Readonly<Record<string, string | number | boolean | undefined>>;
  readonly body?: unknown;
  /** Sends an X-Idempotency-Key (and so may be retried). */
  readonly idempotent?: boolean;
  /** A POST without side effects (a validation): retried like a read. */
  readonly safe?: boolean;
}

/** What the API answered besides the body, as stripe-node's `lastResponse`. */
export interface ResponseInfo {
  readonly status: number;
  /** The X-Request-Id: quote it to support. */
  readonly requestId?: string;
  /** The X-Idempotency-Key sent (a create or change). */
  readonly idempotencyKey?: string;
  /** The API answered from its record of this idempotency key (a retry of a request it had already done). */
  readonly replayed: boolean;
  readonly headers: Headers;
}

/** A result with its `lastResponse` (not enumerable: JSON.stringify and equality checks see only the body). */
export type WithResponse<T> = T & { readonly lastResponse: ResponseInfo };

const BASE_DELAY_MS = 500;
const MAX_DELAY_MS = 8_000;

/** Exponential backoff with jitter: between half and all of min(8 s, 0.5 s * 2^attempt). */
export function backoffMs(attempt: number, random: () => number = Math.random): number {
  const ceiling = Math.min(MAX_DELAY_MS, BASE_DELAY_MS * 2 ** attempt);
  return Math.round(ceiling * (0.5 + random() / 2));
}

function retryableStatus(error: APIError): boolean {
  const status = error.status ?? 0;
  return status === 429 || status >= 500 || (status === 409 && /^(IDEMPOTENCY_IN_PROGRESS|idempotency_conflict)$/.test(error.code ?? ''));
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

export class Transport {
  readonly baseUrl: string;
  private readonly fetch: typeof fetch;

  constructor(private readonly options: TransportOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.fetch = options.fetch ?? globalThis.fetch.bind(globalThis);
  }

  async request<T>(spec: RequestSpec, opts: RequestOptions = {}): Promise<WithResponse<T>> {
    const url = new URL(`${this.baseUrl}${spec.path}`);
    for (const [k, v] of Object.entries(spec.query ?? {})) if (v !== undefined) url.searchParams.set(k, String(v));
    const headers: Record<string, string> = {
      accept: 'application/json',
      'x-api-key': this.options.apiKey,
      'user-agent': `latam-payments-node/${VERSION}`,
    };
    if (spec.body !== undefined) headers['content-type'] = 'application/json';
    if (spec.idempotent) headers['x-idempotency-key'] = opts.idempotencyKey ?? randomUUID();
    const body = spec.body === undefined ? undefined : JSON.stringify(spec.body);
    const safeToRetry = spec.method === 'GET' || spec.idempotent === true || spec.safe === true;
    const maxRetries = safeToRetry ? Math.max(0, opts.maxNetworkRetries ?? this.options.maxNetworkRetries ?? 2) : 0;
    const timeout = opts.timeout ?? this.options.timeout ?? 30_000;
    const maxRetryAfterMs = (this.options.maxRetryAfter ?? 60) * 1000;

    for (let attempt = 0; ; attempt++) {
      const last = attempt >= maxRetries;
      const timer = AbortSignal.timeout(timeout);
      const signal = opts.signal ? AbortSignal.any([opts.signal, timer]) : timer;
      let res: Response;
      let text: string;
      try {
        res = await this.fetch(url, { method: spec.method, headers, body, signal });
        text = await res.text();
      } catch (e) {
        if (opts.signal?.aborted) throw opts.signal.reason;
        const tries = `(attempt ${attempt + 1} of ${maxRetries + 1})`;
        const failure = timer.aborted
          ? new TimeoutError(`No answer from ${spec.method} ${spec.path} within ${timeout} ms ${tries}`, {}, { cause: e })
          : new ConnectionError(`Could not reach ${url.origin}: ${(e as Error).message} ${tries}`, {}, { cause: e });
        if (last) throw failure;
        await sleep(backoffMs(attempt), opts.signal);
        continue;
      }
      const parsed = parseJson(text);
      if (res.ok) {
        if (parsed === undefined)
          throw new APIError(`Not JSON from ${spec.method} ${spec.path}`, { status: res.status, headers: res.headers });
        const lastResponse: ResponseInfo = {
          status: res.status,
          requestId: res.headers.get('x-request-id') ?? undefined,
          idempotencyKey: headers['x-idempotency-key'],
          replayed: res.headers.get('idempotent-replayed') === 'true',
          headers: res.headers,
        };
        if (typeof parsed === 'object' && parsed !== null)
          Object.defineProperty(parsed, 'lastResponse', { value: lastResponse, enumerable: false });
        return parsed as WithResponse<T>;
      }
      const error = errorFromResponse(res.status, res.headers, parsed);
      if (last || !retryableStatus(error)) throw error;
      const retryAfterMs = retryAfterToMs(res.headers.get('retry-after'));
      if (retryAfterMs !== undefined && retryAfterMs > maxRetryAfterMs) throw error;
      await sleep(retryAfterMs ?? backoffMs(attempt), opts.signal);
    }
  }
}

/** Retry-After as seconds or an HTTP date, in milliseconds from now. */
export function retryAfterToMs(header: string | null, now = Date.now()): number | undefined {
  if (header === null || header.trim() === '') return undefined;
  const seconds = Number(header);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const at = Date.parse(header);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

function parseJson(text: string): unknown {
  if (!text) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
