/**
 * `npm run cli -- events tail [--events GLOBS]`: a live log of the merchant's events and their real webhook
 * deliveries, one line per change, read from the events API: the event when it is created, then each
 * delivery attempt with the receiver's status code (or the error) and what it led to (retrying, delivered,
 * gone, dead-lettered, no endpoint). Events created after the command started; runs until SIGINT.
 */
import {
  backoffMs,
  EventFeed,
  eventMatcher,
  getEvent,
  isoMinus,
  sleep,
  type ApiClient,
  type DeliveryAttemptView,
  type EventSummary,
} from './api-client';
import type { CliIo } from './io';

export interface EventsTailOptions {
  readonly client: ApiClient;
  /** Comma-separated globs such as `payment.*,payout.completed`; default every event. */
  readonly events?: string;
  readonly intervalMs?: number;
  readonly signal: AbortSignal;
  readonly io: CliIo;
}

/** Delivery statuses after which nothing more happens unless someone resends. */
const FINAL = new Set(['delivered', 'gone', 'dead_lettered', 'no_endpoint']);

const OUTCOME: Readonly<Record<string, string>> = {
  pending: 'pending',
  retrying: 'retrying',
  delivered: 'delivered',
  gone: 'gone (410: no more attempts)',
  dead_lettered: 'dead-lettered',
  no_endpoint: 'not sent (no endpoint)',
};

interface Tracked {
  readonly event: EventSummary;
  /** Attempts already printed. */
  printed: number;
  status: string;
  /** Last individual read, for events older than the listing window (ms). */
  checkedAt: number;
}

/** `<time>  <event id>  <type>  <what happened>`. */
const row = (at: string, e: Pick<EventSummary, 'event_id' | 'type'>, what: string) => `${at}  ${e.event_id}  ${e.type}  ${what}`;

/** One attempt: its number, the status code or error, the time it took, the URL, and where it left the event. */
export function attemptLine(e: Pick<EventSummary, 'event_id' | 'type'>, a: DeliveryAttemptView, n: number, outcome: string): string {
  const answer = a.status !== null ? String(a.status) : `error: ${a.error ?? 'unknown'}`;
  return row(a.at, e, `attempt ${n}  ${answer}  ${a.duration_ms} ms  ${a.url ?? '-'}  -> ${OUTCOME[outcome] ?? outcome}`);
}

export async function runEventsTail(o: EventsTailOptions): Promise<number> {
  const matches = eventMatcher(o.events);
  const interval = o.intervalMs ?? 1000;
  const feed = new EventFeed(o.client);
  const tracked = new Map<string, Tracked>();
  try {
    await feed.start(o.signal);
  } catch (e) {
    o.io.err(`Cannot read the events API at ${o.client.target.baseUrl}: ${(e as Error).message}`);
    return 1;
  }
  o.io.err(`Tailing ${o.events ? `events matching ${o.events}` : 'every event'} at ${o.client.target.baseUrl} (^C to quit)`);

  /** Prints the attempts not printed yet, from a fresh read of the event. */
  const catchUp = async (t: Tracked) => {
    const detail = await getEvent(o.client, t.event.event_id, o.signal);
    const fresh = detail.attempts.slice(t.printed);
    fresh.forEach((a, i) => {
      const outcome = i < fresh.length - 1 ? 'retrying' : detail.delivery_status;
      o.io.out(attemptLine(t.event, a, t.printed + i + 1, outcome));
    });
    t.printed = detail.attempts.length;
    t.status = detail.delivery_status;
    t.checkedAt = Date.now();
  };
  const changed = (t: Tracked, s: EventSummary) => s.attempt_count > t.printed || s.delivery_status !== t.status;

  let lastError = '';
  while (!o.signal.aborted) {
    let wait = interval;
    try {
      const open = [...tracked.values()].filter((t) => !FINAL.has(t.status)).map((t) => t.event.created_at);
      const oldestOpen = open.length ? open.reduce((a, b) => (a < b ? a : b)) : undefined;
      const { fresh, read } = await feed.next(o.signal, oldestOpen);
      for (const e of fresh) {
        if (!matches(e.type)) continue;
        o.io.out(row(e.created_at, e, `created  ${e.object_id}`));
        tracked.set(e.event_id, { event: e, printed: 0, status: 'pending', checkedAt: Date.now() });
      }
      const listed = new Map(read.map((s) => [s.event_id, s]));
      for (const t of tracked.values()) {
        const s = listed.get(t.event.event_id);
        if (s ? changed(t, s) : !FINAL.has(t.status) && Date.now() - t.checkedAt > 15_000) await catchUp(t);
      }
      // Settled events drop out once they are older than the newest read minus a minute.
      const newest = read[0]?.created_at;
      if (newest) for (const [id, t] of tracked) if (FINAL.has(t.status) && t.event.created_at < isoMinus(newest, 60)) tracked.delete(id);
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
