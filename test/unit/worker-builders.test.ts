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
import { settlementMessage } from '../../shared/application/payout-ports';
import { deliveryMessage } from '../../shared/application/webhook-ports';

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

  it("runs at the schedule's time and publishes the run's counts", async () => {
    const added: [string, number][] = [];
    jest.spyOn(metrics, 'addMetric').mockImplementation((name, _unit, value) => (added.push([name, value]), metrics));
    let ranAt: Date | undefined;
    const handler = scheduledHandler({
      run: async (now) => {
        ranAt = now;
        return { expired: 3 };
      },
      metrics: (r) => ({ Expired: r.expired }),
    });
    const result = await handler({ time: '2026-11-22T10:00:00Z' }, context);
    expect(ranAt?.toISOString()).toBe('2026-11-22T10:00:00.000Z');
    expect(result).toEqual({ expired: 3 });
    expect(added).toEqual([['Expired', 3]]);
  });
});
