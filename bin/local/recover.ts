/**
 * What a restart of the local stack sends again. fauxqs keeps its queues in memory only, so a stop or a
 * crash (Ctrl-C, kill -9, a laptop going to sleep for good) loses every message on them: webhook
 * deliveries (dispatched from the table's stream, not delivered yet, or waiting for their next retry) and
 * sandbox settlement steps (payouts processing, refunds pending, and the refund step of a payout that
 * completes then is refunded), and the stream pollers' place (events not dispatched yet, credits not folded
 * yet). On AWS, SQS and the event source mappings keep these;
 * locally the table says what was in flight, so at start-up, before any consumer runs, this puts it
 * back on the queues. Every consumer step is conditional
 * on the state it finds, so a message that was not lost after all does nothing more the second time.
 * Local only: it scans the table, which a deployed stage never does.
 */
import { ScanCommand, type ScanCommandInput } from '@aws-sdk/lib-dynamodb';
import { documentClient } from '../../shared/adapters/aws-clients';
import { resumeSettlements } from '../../shared/application/payouts';
import { ledgerFoldDeps, settlementDeps, tableName, webhookDeps } from '../../shared/wiring';
import { sweepPendingCredits } from '../../shared/application/balance';

/** Delivery statuses after which no message is waiting on the webhooks queue. */
const FINAL_DELIVERY = ['delivered', 'gone', 'dead_lettered', 'no_endpoint'];

export interface Recovered {
  /**
   * Events not delivered yet: committed but not dispatched (the stream poller reads from the moment it starts;
   * an event source mapping would have kept its place), or dispatched with their delivery or next retry on
   * the lost queue.
   */
  readonly deliveries: number;
  /** Money in flight (payouts processing or owed their sandbox return, refunds pending) whose step was on the lost queue. */
  readonly settlements: number;
  /**
   * Credits still pending their fold: the stream poller reads from the moment it starts (an event source
   * mapping would have kept its place in the stream), so what the last run committed and did not fold is
   * folded now instead of by the sweep job a minute later.
   */
  readonly credits: number;
}

async function scan(input: Omit<ScanCommandInput, 'TableName' | 'ExclusiveStartKey'>): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const r = await documentClient().send(new ScanCommand({ ...input, TableName: tableName(), ExclusiveStartKey: start }));
    items.push(...(r.Items ?? []));
    start = r.LastEvaluatedKey;
  } while (start);
  return items;
}

export async function recoverInFlightWork(now = new Date()): Promise<Recovered> {
  // Not final: never dispatched, or the message for its next attempt was on the queue.
  const finals = FINAL_DELIVERY.map((_, i) => `:f${i}`).join(', ');
  const undelivered = await scan({
    FilterExpression: `#entity = :event AND NOT (#status IN (${finals}))`,
    ExpressionAttributeNames: { '#entity': 'entity', '#status': 'delivery_status' },
    ExpressionAttributeValues: { ':event': 'event', ...Object.fromEntries(FINAL_DELIVERY.map((s, i) => [`:f${i}`, s])) },
    ProjectionExpression: 'event_id, attempts',
    ConsistentRead: true,
  });
  await webhookDeps().queue.send(
    undelivered.map((e) => ({ event_id: String(e.event_id), attempt: Array.isArray(e.attempts) ? e.attempts.length : 0 })),
  );

  // Everything on the settlement work index (payouts processing or owed their sandbox return, refunds
  // pending): all of it, the queue that held their steps is gone.
  const { resumed } = await resumeSettlements(settlementDeps(), now, 0, 10_000);

  const { folded } = await sweepPendingCredits(ledgerFoldDeps(), now, 0);

  return { deliveries: undelivered.length, settlements: resumed, credits: folded };
}
