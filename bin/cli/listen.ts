/**
 * `npm run cli -- listen --forward-to URL [--events payment.*,payout.*]`, like `stripe listen`: follows the
 * merchant's event log through the events API and POSTs each new matching event to a local URL, signed
 * exactly as a real delivery is (shared/application/webhooks/webhooks.ts deliverMessage: the body is the event
 * payload as JSON, the headers come from shared/domain/webhooks/signature.ts) but with a listen secret
 * printed at start instead of the merchant's. No retries: one POST per event, one printed line per POST.
 */
import { randomBytes } from 'node:crypto';
import { SECRET_PREFIX, signatureHeaders, standardKey } from '../../shared/domain/webhooks/signature';
import {
  backoffMs,
  EventFeed,
  eventMatcher,
  getEvent,
  networkReason,
  sleep,
  TargetError,
  type ApiClient,
  type EventSummary,
} from './api-client';
import type { CliIo } from './io';

/** Real deliveries' User-Agent starts the same way (shared/wiring/webhooks.ts). */
export const LISTEN_USER_AGENT = 'latam-payments-webhooks/1.0 (npm run cli -- listen)';
export const FORWARD_TIMEOUT_MS = 10_000;

export interface ListenOptions {
  readonly client: ApiClient;
  readonly forwardTo: string;
  /** Comma-separated globs such as `payment.*,payout.completed`; default every event. */
  readonly events?: string;
  /** Default: a new `whsec_` + base64 of 32 random bytes. */
  readonly secret?: string;
  /** How often the events API is read (default 1000 ms). */
  readonly intervalMs?: number;
  readonly signal: AbortSignal;
  readonly io: CliIo;
}

/** A signing secret in the merchant secret's format: `whsec_` + base64 of 32 random bytes. */
export const newListenSecret = () => `${SECRET_PREFIX}${randomBytes(32).toString('base64')}`;

/** The forward URL, checked: an absolute http(s) URL (else a usage error). */
export function forwardUrl(raw: string | undefined): URL {
  let url: URL;
  try {
    url = new URL(raw ?? '');
  } catch {
    throw new TargetError(`--forward-to must be a URL such as http://localhost:4242/webhooks${raw ? `, not ${raw}` : ''}.`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new TargetError(`--forward-to must be http or https, not ${url.protocol}`);
  return url;
}

/** What the forward URL answered: its status code, or why there was none. */
export type ForwardResult = { status: number } | { error: string };

/** One signed POST of the event's payload to the URL (no redirects followed, 10 s limit). */
export async function forwardEvent(
  e: { event_id: string; type: string; payload: Record<string, unknown> },
  url: URL,
  secret: string,
  signal: AbortSignal,
): Promise<ForwardResult> {
  // Byte for byte what deliverMessage sends: JSON.stringify of the stored payload (keys in the stored order).
  const body = JSON.stringify(e.payload);
  const headers = signatureHeaders({
    eventId: e.event_id,
    eventType: e.type,
    timestampSec: Math.floor(Date.now() / 1000),
    rawBody: body,
    secrets: [secret],
  });
  try {
    const res = await fetch(url, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json', 'user-agent': LISTEN_USER_AGENT },
      body,
      redirect: 'manual',
      signal: AbortSignal.any([signal, AbortSignal.timeout(FORWARD_TIMEOUT_MS)]),
    });
    await res.arrayBuffer().catch(() => undefined);
    return { status: res.status };
  } catch (err) {
    return { error: networkReason(err) };
  }
}

/** The line printed per delivery: time, event type, event id, what the URL answered. */
export function deliveryLine(at: Date, e: Pick<EventSummary, 'type' | 'event_id'>, url: URL, r: ForwardResult): string {
  const outcome = 'status' in r ? `[${r.status}]` : `[ERROR ${r.error}]`;
  return `${at.toISOString()}  ${e.type}  ${e.event_id}  ${outcome} POST ${url.href}`;
}

/** Runs until `signal` aborts; 0 then, 1 when the events API cannot be read at start. */
export async function runListen(o: ListenOptions): Promise<number> {
  const url = forwardUrl(o.forwardTo);
  const secret = o.secret ?? newListenSecret();
  standardKey(secret); // throws on a malformed --secret
  const matches = eventMatcher(o.events);
  const interval = o.intervalMs ?? 1000;
  const feed = new EventFeed(o.client);
  try {
    await feed.start(o.signal);
  } catch (e) {
    o.io.err(`Cannot read the events API at ${o.client.target.baseUrl}: ${(e as Error).message}`);
    return 1;
  }
  o.io.out(`Ready! Your webhook signing secret is ${secret} (^C to quit)`);
  o.io.out(`Forwarding ${o.events ? `events matching ${o.events}` : 'every event'} from ${o.client.target.baseUrl} to ${url.href}`);

  let lastError = '';
  while (!o.signal.aborted) {
    let wait = interval;
    try {
      const { fresh } = await feed.next(o.signal);
      for (const summary of fresh) {
        if (o.signal.aborted) break;
        if (!matches(summary.type)) continue;
        let result: ForwardResult;
        try {
          result = await forwardEvent(await getEvent(o.client, summary.event_id, o.signal), url, secret, o.signal);
        } catch (e) {
          result = { error: `cannot read the event: ${(e as Error).message}` };
        }
        if (!o.signal.aborted) o.io.out(deliveryLine(new Date(), summary, url, result));
      }
      lastError = '';
    } catch (e) {
      if (o.signal.aborted) break;
      const message = `Reading events failed (retrying): ${(e as Error).message}`;
      if (message !== lastError) o.io.err(message);
      lastError = message;
      wait = backoffMs(e, Math.max(interval, 2000));
    }
    await sleep(wait, o.signal);
  }
  return 0;
}
