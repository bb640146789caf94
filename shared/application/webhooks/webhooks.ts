/**
 * Webhook dispatch and delivery (SPEC.md 6, DESIGN.md 5): the table's stream hands every committed event to
 * the delivery queue, and the sender signs, posts, records every attempt and retries on the schedule until
 * delivered, gone (410) or dead-lettered.
 */
import { AppError } from '../../domain/errors';
import type { DomainEvent } from '../../domain/events';
import { delayBeforeAttempt, hop, nextStep, type DeliveryAttempt } from '../../domain/webhooks/retry';
import type { Principal } from '../access';
import type { Clock, MerchantRepository } from '../ports';
import type { DeliveryMessage, DeliveryQueue, EventStore } from './webhook-ports';

export interface DeliveryTarget {
  readonly url: URL;
  readonly address: string;
  readonly family: 4 | 6;
}

export interface WebhookDeps {
  readonly events: EventStore;
  readonly queue: DeliveryQueue;
  readonly merchants: Pick<MerchantRepository, 'get' | 'getWebhookSecrets'>;
  readonly clock: Clock;
  readonly schedule: () => readonly number[];
  /** SSRF guard: resolves and checks a URL, or throws with the reason. */
  readonly checkUrl: (url: string, livemode: boolean) => Promise<DeliveryTarget>;
  readonly signHeaders: (a: {
    eventId: string;
    eventType: string;
    timestampSec: number;
    rawBody: string;
    secrets: string[];
  }) => Record<string, string>;
  readonly send: (req: {
    target: DeliveryTarget;
    body: string;
    headers: Record<string, string>;
  }) => Promise<{ ok: boolean; status?: number; error?: string; durationMs: number }>;
}

/**
 * Committed events onto the delivery queue, attempt 0. The table's stream calls this for every event item its
 * transaction inserted (functions/webhooks/dispatch-events.handler.ts), so an event that committed is
 * dispatched whatever happens to the process that committed it; a restart of the local stack calls it for
 * events whose delivery was on the lost queue.
 */
export async function dispatchEvents(deps: Pick<WebhookDeps, 'queue'>, events: readonly Pick<DomainEvent, 'event_id'>[]) {
  if (events.length === 0) return;
  await deps.queue.send(events.map((e) => ({ event_id: e.event_id, attempt: 0 })));
}

const FINAL = new Set(['delivered', 'gone', 'dead_lettered', 'no_endpoint']);

async function secretsOf(deps: WebhookDeps, merchantId: string, now: Date): Promise<string[]> {
  const s = await deps.merchants.getWebhookSecrets(merchantId);
  if (!s) return [];
  const previousValid = s.previous && s.previous_expires_at && Date.parse(s.previous_expires_at) > now.getTime();
  return previousValid ? [s.current, s.previous as string] : [s.current];
}

/**
 * What one queue message came to: an attempt whose outcome is the event's new delivery status, no attempt
 * because the event has no usable endpoint, or nothing to do (another hop, or already final).
 */
export type DeliveryOutcome = 'delivered' | 'retrying' | 'dead_lettered' | 'gone' | 'no_endpoint' | 'deferred' | 'skipped';

/** One queue message: the attempt it names, or another hop when its time has not come. */
export async function deliverMessage(deps: WebhookDeps, msg: DeliveryMessage): Promise<DeliveryOutcome> {
  const now = deps.clock.now();
  if (msg.not_before && msg.not_before > now.getTime() + 1000) {
    const h = hop((msg.not_before - now.getTime()) / 1000, now.getTime());
    await deps.queue.send([{ ...msg, not_before: msg.not_before }], h.delaySeconds);
    return 'deferred';
  }
  const event = await deps.events.get(msg.event_id);
  if (!event || (!msg.manual && FINAL.has(event.delivery_status))) return 'skipped';
  const merchant = await deps.merchants.get(event.merchant_id);
  const target = event.notification_url ?? merchant?.notification_url ?? null;
  const at = now.toISOString();
  const attempt = (status: number | null, error: string | null, duration: number, url = target): DeliveryAttempt => ({
    attempt: msg.attempt,
    at,
    url,
    status,
    error,
    duration_ms: Math.round(duration),
  });
  if (!target) {
    await deps.events.recordAttempt(event.event_id, attempt(null, 'no notification_url for this object or merchant', 0), 'no_endpoint');
    return 'no_endpoint';
  }
  let checked: DeliveryTarget;
  try {
    checked = await deps.checkUrl(target, event.livemode);
  } catch (e) {
    await deps.events.recordAttempt(event.event_id, attempt(null, `refused: ${(e as Error).message}`, 0), 'no_endpoint');
    return 'no_endpoint';
  }
  const body = JSON.stringify(event.payload);
  const headers = deps.signHeaders({
    eventId: event.event_id,
    eventType: event.type,
    timestampSec: Math.floor(now.getTime() / 1000),
    rawBody: body,
    secrets: await secretsOf(deps, event.merchant_id, now),
  });
  const result = await deps.send({ target: checked, body, headers });
  const schedule = deps.schedule();
  const step = nextStep(result, msg.attempt, schedule);
  const status = step === 'delivered' ? 'delivered' : step === 'gone' ? 'gone' : step === 'retry' ? 'retrying' : 'dead_lettered';
  await deps.events.recordAttempt(event.event_id, attempt(result.status ?? null, result.error ?? null, result.durationMs), status);
  if (step === 'retry') {
    const wait = delayBeforeAttempt(schedule, msg.attempt + 1) ?? 0;
    const h = hop(wait, now.getTime());
    await deps.queue.send(
      [{ event_id: event.event_id, attempt: msg.attempt + 1, not_before: h.notBefore, manual: msg.manual }],
      h.delaySeconds,
    );
  } else if (step === 'dead_letter') {
    await deps.queue.sendToDeadLetter({ event_id: event.event_id, attempt: msg.attempt });
  }
  return status;
}

/** Delivery metrics of one message's outcome (summed over a batch by the webhook sender). */
export function deliveryCounts(outcome: DeliveryOutcome): Record<string, number> {
  const attempted = outcome === 'delivered' || outcome === 'retrying' || outcome === 'dead_lettered' || outcome === 'gone';
  return {
    WebhookAttempts: attempted ? 1 : 0,
    WebhookAttemptsFailed: attempted && outcome !== 'delivered' ? 1 : 0,
    WebhookDelivered: outcome === 'delivered' ? 1 : 0,
    WebhookDeadLettered: outcome === 'dead_lettered' ? 1 : 0,
    WebhookNoEndpoint: outcome === 'no_endpoint' ? 1 : 0,
  };
}

async function ownEvent(deps: Pick<WebhookDeps, 'events'>, principal: Principal, eventId: string) {
  const e = await deps.events.get(eventId);
  if (!e || e.merchant_id !== principal.merchant.merchant_id || e.livemode !== principal.livemode) throw new AppError('EVENT_NOT_FOUND');
  return e;
}

export async function listEvents(
  deps: Pick<WebhookDeps, 'events'>,
  principal: Principal,
  q: { type?: string; object_id?: string; delivery_status?: string; limit: number; cursor?: string },
) {
  return deps.events.list(principal.merchant.merchant_id, principal.mode, {
    type: q.type,
    objectId: q.object_id,
    deliveryStatus: q.delivery_status,
    limit: q.limit,
    cursor: q.cursor,
  });
}

export async function getEvent(deps: Pick<WebhookDeps, 'events'>, principal: Principal, eventId: string) {
  return ownEvent(deps, principal, eventId);
}

export async function resendEvent(deps: Pick<WebhookDeps, 'events' | 'queue'>, principal: Principal, eventId: string) {
  const e = await ownEvent(deps, principal, eventId);
  await deps.queue.send([{ event_id: e.event_id, attempt: 0, manual: true }]);
  return e;
}
