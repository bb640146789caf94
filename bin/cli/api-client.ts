/**
 * The developer tools' HTTP client (listen, trigger, events tail): the public API only, over fetch.
 * Target: --base-url and --api-key, else the local stack's sandbox.json (written by `npm start`) in
 * --state-dir, $LOCAL_STATE_DIR or .local. API errors come back as ApiError with the API's code and message,
 * whichever of the three error shapes (SPEC.md 7) the route answers with.
 */
import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as z from 'zod';

export interface ApiTarget {
  readonly baseUrl: string;
  readonly apiKey: string;
}

/** A target that cannot be worked out: the CLI prints it with the usage text (exit 2). */
export class TargetError extends Error {}

/** A non-2xx answer: HTTP status, the API's error code and message, the request id when it gave one. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly requestId?: string,
    /** Retry-After of a 429, in seconds. */
    readonly retryAfterSec?: number,
  ) {
    super(`${status} ${code}: ${message}${requestId ? ` (request ${requestId})` : ''}`);
  }
}

const sandboxFile = z.object({ base_url: z.string().url(), api_key: z.string().min(1) });

/** Flags first; what they leave out comes from sandbox.json. */
export function resolveTarget(flags: { baseUrl?: string; apiKey?: string; stateDir?: string }): ApiTarget {
  let { baseUrl, apiKey } = flags;
  if (!baseUrl || !apiKey) {
    const file = join(flags.stateDir ?? process.env.LOCAL_STATE_DIR ?? '.local', 'sandbox.json');
    if (!existsSync(file)) {
      throw new TargetError(`No ${file}: start the local stack with "npm start", or pass --base-url URL --api-key sk_test_...`);
    }
    const parsed = sandboxFile.safeParse(JSON.parse(readFileSync(file, 'utf8')));
    if (!parsed.success) throw new TargetError(`${file} has no base_url and api_key.`);
    baseUrl ??= parsed.data.base_url;
    apiKey ??= parsed.data.api_key;
  }
  if (!/^https?:\/\/[^/]+/.test(baseUrl)) throw new TargetError(`--base-url must be an http(s) URL, not ${baseUrl}.`);
  if (!/^sk_(test|live)_/.test(apiKey)) throw new TargetError('--api-key must be an sk_test_ (or sk_live_) key.');
  return { baseUrl: baseUrl.replace(/\/+$/, ''), apiKey };
}

/** The three error bodies: {error:{code,message}}, {detail,error_code} (/cashier), {error_message} (process). */
const errorBody = z.union([
  z.object({ error: z.object({ code: z.string(), message: z.string(), request_id: z.string().optional() }) }),
  z.object({ detail: z.string(), error_code: z.string() }),
  z.object({ error_message: z.string(), failure_code: z.string().nullish() }),
]);

export function apiError(status: number, body: unknown, headers: Headers = new Headers()): ApiError {
  const requestId = headers.get('x-request-id') ?? undefined;
  const retryAfter = Number(headers.get('retry-after') ?? NaN);
  const e = errorBody.safeParse(body);
  const [code, message, id] = !e.success
    ? [`HTTP_${status}`, 'unexpected response body', requestId]
    : 'error' in e.data
      ? [e.data.error.code, e.data.error.message, e.data.error.request_id ?? requestId]
      : 'detail' in e.data
        ? [e.data.error_code, e.data.detail, requestId]
        : [e.data.failure_code ?? 'failed', e.data.error_message, requestId];
  return new ApiError(status, code, message, id, Number.isFinite(retryAfter) ? retryAfter : undefined);
}

export interface ApiResponse {
  readonly status: number;
  readonly body: unknown;
}

export interface ApiClient {
  readonly target: ApiTarget;
  /** Any answer; throws ApiError unless 2xx or one of `accept`. Network failures throw as they are. */
  request(method: string, path: string, opts?: { body?: unknown; accept?: number[]; signal?: AbortSignal }): Promise<ApiResponse>;
  /** A 2xx body parsed with `schema` (extra fields pass through). */
  get<T>(path: string, schema: z.ZodType<T>, signal?: AbortSignal): Promise<T>;
  /** POST with a fresh X-Idempotency-Key; a 2xx body parsed with `schema`. */
  post<T>(path: string, body: unknown, schema: z.ZodType<T>, signal?: AbortSignal): Promise<T>;
}

export const USER_AGENT = 'latam-payments-cli/1.0';

export function createApiClient(target: ApiTarget, fetchImpl: typeof fetch = fetch): ApiClient {
  const request: ApiClient['request'] = async (method, path, opts = {}) => {
    const headers: Record<string, string> = { 'x-api-key': target.apiKey, accept: 'application/json', 'user-agent': USER_AGENT };
    if (opts.body !== undefined) headers['content-type'] = 'application/json';
    if (method === 'POST') headers['x-idempotency-key'] = randomUUID();
    const res = await fetchImpl(`${target.baseUrl}${path}`, {
      method,
      headers,
      body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
      signal: opts.signal,
    });
    const text = await res.text();
    let body: unknown;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      body = text;
    }
    if (!res.ok && !opts.accept?.includes(res.status)) throw apiError(res.status, body, res.headers);
    return { status: res.status, body };
  };
  const parse = <T>(schema: z.ZodType<T>, r: ApiResponse, what: string): T => {
    const parsed = schema.safeParse(r.body);
    if (!parsed.success) throw new Error(`Unexpected answer from ${what}: ${parsed.error.issues.map((i) => i.path.join('.')).join(', ')}`);
    return parsed.data;
  };
  return {
    target,
    request,
    get: async (path, schema, signal) => parse(schema, await request('GET', path, { signal }), `GET ${path}`),
    post: async (path, body, schema, signal) => parse(schema, await request('POST', path, { body, signal }), `POST ${path}`),
  };
}

// The events API (shared/http/views/event.view.ts).

export const deliveryAttempt = z.object({
  attempt: z.number(),
  at: z.string(),
  url: z.string().nullable(),
  status: z.number().nullable(),
  error: z.string().nullable(),
  duration_ms: z.number(),
});
export type DeliveryAttemptView = z.infer<typeof deliveryAttempt>;

export const eventSummary = z.object({
  event_id: z.string(),
  type: z.string(),
  object_id: z.string(),
  created_at: z.string(),
  delivery_status: z.string(),
  attempt_count: z.number(),
});
export type EventSummary = z.infer<typeof eventSummary>;

export const eventDetail = eventSummary.extend({ payload: z.record(z.string(), z.unknown()), attempts: z.array(deliveryAttempt) });
export type EventDetail = z.infer<typeof eventDetail>;

export const eventPage = z.object({ data: z.array(eventSummary), has_more: z.boolean(), next_cursor: z.string().nullable() });

export const getEvent = (client: ApiClient, eventId: string, signal?: AbortSignal) =>
  client.get(`/api/v1/events/${encodeURIComponent(eventId)}`, eventDetail, signal);

/**
 * The merchant's events created at or after `sinceIso`, newest first: pages of 100 until one reaches
 * past `sinceIso`, at most `maxPages` requests.
 */
export async function recentEvents(
  client: ApiClient,
  sinceIso: string,
  opts: { maxPages?: number; signal?: AbortSignal; query?: Record<string, string> } = {},
): Promise<EventSummary[]> {
  const out: EventSummary[] = [];
  let cursor: string | null = null;
  for (let page = 0; page < (opts.maxPages ?? 5); page++) {
    const q = new URLSearchParams({ limit: '100', ...opts.query, ...(cursor ? { cursor } : {}) });
    const r: z.infer<typeof eventPage> = await client.get(`/api/v1/events?${q}`, eventPage, opts.signal);
    for (const e of r.data) if (e.created_at >= sinceIso) out.push(e);
    const last = r.data[r.data.length - 1];
    if (!r.has_more || !r.next_cursor || (last && last.created_at < sinceIso)) break;
    cursor = r.next_cursor;
  }
  return out;
}

/** Comma-separated globs (`payment.*,payout.completed`) as one test; none means every event. */
export function eventMatcher(globs: string | undefined): (type: string) => boolean {
  const list = (globs ?? '')
    .split(',')
    .map((g) => g.trim())
    .filter(Boolean);
  if (list.length === 0) return () => true;
  const res = list.map((g) => new RegExp(`^${g.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*')}$`));
  return (type) => res.some((re) => re.test(type));
}

/** ISO time `seconds` before `iso`. */
export const isoMinus = (iso: string, seconds: number) => new Date(Date.parse(iso) - seconds * 1000).toISOString();

/** Resolves after `ms`, or at once when `signal` aborts (never rejects). */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}

/** A fetch failure as a short reason: the socket error code (ECONNREFUSED...) or the message. */
export function networkReason(e: unknown): string {
  const cause = (e as { cause?: { code?: string; message?: string } }).cause;
  if ((e as Error).name === 'TimeoutError') return 'timeout';
  return cause?.code ?? cause?.message ?? (e as Error).message ?? String(e);
}

/** How long to wait after a failed poll: Retry-After when rate limited, else `fallbackMs`. */
export const backoffMs = (e: unknown, fallbackMs: number) =>
  e instanceof ApiError && e.status === 429 ? Math.max(1, e.retryAfterSec ?? 5) * 1000 : fallbackMs;

/**
 * Follows the merchant's event log from the moment start() runs: next() returns the events not returned
 * before, oldest first. It reads back `windowSec` behind the newest event it knows, so an event that shows
 * up in the list a little late (the listing index is eventually consistent) is still caught once.
 */
export class EventFeed {
  private readonly seen = new Map<string, string>();
  private watermark = '';

  constructor(
    private readonly client: ApiClient,
    private readonly windowSec = 30,
  ) {}

  /** What exists now is the past: remembered, never returned. */
  async start(signal?: AbortSignal): Promise<void> {
    const first = await recentEvents(this.client, '', { maxPages: 1, signal });
    const newest = first[0]?.created_at;
    this.remember(newest && first.length >= 100 ? await recentEvents(this.client, isoMinus(newest, this.windowSec), { signal }) : first);
  }

  /** New events, oldest first, and every summary read: the window, or back to `since` when that is older. */
  async next(signal?: AbortSignal, since?: string): Promise<{ fresh: EventSummary[]; read: EventSummary[] }> {
    const windowStart = this.watermark ? isoMinus(this.watermark, this.windowSec) : '';
    const read = await recentEvents(this.client, since !== undefined && since < windowStart ? since : windowStart, { signal });
    const fresh = read
      .filter((e) => e.created_at >= windowStart && !this.seen.has(e.event_id))
      .sort((a, b) => a.created_at.localeCompare(b.created_at) || a.event_id.localeCompare(b.event_id));
    this.remember(fresh);
    return { fresh, read };
  }

  private remember(events: readonly EventSummary[]) {
    for (const e of events) {
      this.seen.set(e.event_id, e.created_at);
      if (e.created_at > this.watermark) this.watermark = e.created_at;
    }
    if (!this.watermark) return;
    const forget = isoMinus(this.watermark, 2 * this.windowSec);
    for (const [id, at] of this.seen) if (at < forget) this.seen.delete(id);
  }
}
