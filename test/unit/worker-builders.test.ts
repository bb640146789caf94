/**
 * sqsHandler and scheduledHandler: message bodies are validated before the use case sees them, an invalid
 * or failing record is reported as a partial batch failure (so only it is retried and then dead-lettered),
 * counts become metrics, and the schedule's own time is "now". No AWS.
 */
import type { Context, SQSEvent, SQSRecord } from 'aws-lambda';
import * as z from 'zod';
import { metrics } from '../../shared/observability';
import { scheduledHandler } from '../../shared/workers/scheduled-handler';
import { sqsHandler } from '../../shared/workers/sqs-handler';
import { settlementMessage } from '../../shared/application/ports';
import { deliveryMessage } from '../../shared/application/webhooks';

const context = { awsRequestId: 'aws-1', functionName: 'worker', getRemainingTimeInMillis: () => 30_000 } as unknown as Context;

const record = (messageId: string, body: string): SQSRecord =>
  ({
    messageId,
    receiptHandle: `rh-${messageId}`,
    body,
    attributes: {},
    messageAttributes: {},
    md5OfBody: '',
    eventSource: 'aws:sqs',
    eventSourceARN: 'arn:aws:sqs:us-east-1:000000000000:q',
    awsRegion: 'us-east-1',
  }) as SQSRecord;

describe('sqsHandler', () => {
  const added: [string, number][] = [];
  beforeEach(() => {
    added.length = 0;
    jest.spyOn(metrics, 'addMetric').mockImplementation((name, _unit, value) => (added.push([name, value]), metrics));
  });
  afterEach(() => jest.restoreAllMocks());

  it('hands each valid message, parsed, to the use case and reports only the bad records as failures', async () => {
    const seen: unknown[] = [];
    const handler = sqsHandler({
      message: z.object({ id: z.string(), n: z.number().int() }),
      handle: async (m) => {
        if (m.n === 13) throw new Error('use case failed');
        seen.push(m);
      },
      metrics: { received: 'TestMessages', failed: 'TestFailures' },
    });
    const event: SQSEvent = {
      Records: [
        record('ok-1', JSON.stringify({ id: 'a', n: 1 })),
        record('not-json', '{oops'),
        record('wrong-shape', JSON.stringify({ id: 'b', n: 'one' })),
        record('throws', JSON.stringify({ id: 'c', n: 13 })),
        record('ok-2', JSON.stringify({ id: 'd', n: 2, extra: true })),
      ],
    };
    const res = await handler(event, context);
    expect(res.batchItemFailures.map((f) => f.itemIdentifier).sort()).toEqual(['not-json', 'throws', 'wrong-shape']);
    expect(seen).toEqual([
      { id: 'a', n: 1 },
      { id: 'd', n: 2 },
    ]);
    expect(added).toEqual([
      ['TestMessages', 5],
      ['TestFailures', 3],
    ]);
  });

  it('sums the per-message counts over the batch and publishes them beside the received and failed counts', async () => {
    const handler = sqsHandler({
      message: z.object({ ok: z.boolean() }),
      handle: async (m) => (m.ok ? 'good' : 'bad'),
      metrics: { received: 'TestMessages' },
      counts: (r: string) => ({ TestGood: r === 'good' ? 1 : 0, TestBad: r === 'bad' ? 1 : 0 }),
    });
    const body = (ok: boolean) => JSON.stringify({ ok });
    await handler({ Records: [record('1', body(true)), record('2', body(false)), record('3', body(true))] }, context);
    expect(added).toEqual([
      ['TestMessages', 3],
      ['TestGood', 2],
      ['TestBad', 1],
    ]);
    added.length = 0;
    await handler({ Records: [record('4', body(false))] }, context); // a new invocation starts from zero
    expect(added).toEqual([
      ['TestMessages', 1],
      ['TestGood', 0],
      ['TestBad', 1],
    ]);
  });

  it('publishes a fault count (and records failed) only from a batch that saw some: no zero series every hour', async () => {
    const handler = sqsHandler({
      message: z.object({ ok: z.boolean() }),
      handle: async (m) => (m.ok ? 'good' : 'bad'),
      metrics: { received: 'TestMessages', failed: 'TestFailures' },
      counts: (r: string) => ({ TestGood: r === 'good' ? 1 : 0, TestBad: r === 'bad' ? 1 : 0 }),
      faults: ['TestBad'],
    });
    const body = (ok: boolean) => JSON.stringify({ ok });
    await handler({ Records: [record('1', body(true))] }, context);
    expect(added).toEqual([
      ['TestMessages', 1],
      ['TestGood', 1],
    ]);
    added.length = 0;
    await handler({ Records: [record('2', body(false)), record('3', '{oops'), record('4', body(true))] }, context);
    expect(added).toEqual([
      ['TestMessages', 3],
      ['TestFailures', 1],
      ['TestGood', 1],
      ['TestBad', 1],
    ]);
  });

  it('the real message schemas accept what the producers send and refuse what they never send', () => {
    expect(settlementMessage.safeParse({ payout_id: 'po_x', step: 'settle' }).success).toBe(true);
    expect(settlementMessage.safeParse({ payout_id: 'po_x', step: 'teleport' }).success).toBe(false);
    expect(settlementMessage.safeParse({ step: 'start' }).success).toBe(false);
    expect(deliveryMessage.safeParse({ event_id: 'evt_x', attempt: 0, not_before: 1, manual: true }).success).toBe(true);
    expect(deliveryMessage.safeParse({ event_id: 'evt_x', attempt: -1 }).success).toBe(false);
    expect(deliveryMessage.safeParse({ event_id: '', attempt: 0 }).success).toBe(false);
  });
});

describe('scheduledHandler', () => {
  afterEach(() => jest.restoreAllMocks());

  it("runs at the schedule's time and publishes the run's counts, and ages in seconds", async () => {
    const added: [string, string, number][] = [];
    jest.spyOn(metrics, 'addMetric').mockImplementation((name, unit, value) => (added.push([name, String(unit), value]), metrics));
    let ranAt: Date | undefined;
    const handler = scheduledHandler({
      run: async (now) => {
        ranAt = now;
        return { expired: 3, oldestAgeSeconds: 42 };
      },
      metrics: (r) => ({ Expired: r.expired, OldestAgeSeconds: r.oldestAgeSeconds }),
    });
    const result = await handler({ time: '2026-11-22T10:00:00Z' }, context);
    expect(ranAt?.toISOString()).toBe('2026-11-22T10:00:00.000Z');
    expect(result).toEqual({ expired: 3, oldestAgeSeconds: 42 });
    expect(added).toEqual([
      ['Expired', 'Count', 3],
      ['OldestAgeSeconds', 'Seconds', 42],
    ]);
  });
});
