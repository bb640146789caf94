/**
 * The queue-worker builder, beside httpHandler: Powertools batch processing (partial batch failures, so one
 * bad message never re-runs its batch), each body parsed as JSON and validated with its zod schema before
 * the use case sees it, and the shared instrumentation. A body that fails validation is a failed record: it
 * is retried and then lands in the queue's DLQ, logged with the issues (never the body).
 *
 *   export const handler = sqsHandler({ message: settlementMessage, handle: (m) => ..., metrics: { received: 'X' } });
 */
import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import { MetricUnit } from '@aws-lambda-powertools/metrics';
import type { SQSEvent, SQSRecord } from 'aws-lambda';
import * as z from '../domain/zod';
import { logger, metrics } from '../observability';
import { instrumented } from './instrument';

export interface SqsHandlerOptions<S extends z.core.$ZodType, R = void> {
  /** The message body's schema. */
  readonly message: S;
  /** Runs one valid message; a throw marks the record failed (retried, then dead-lettered). */
  readonly handle: (message: z.infer<S>, record: SQSRecord) => Promise<R>;
  /**
   * Metric names: messages received per invocation, and records reported failed. Each name is a custom metric
   * ($0.30 a month): name one only when a graph or an alarm reads it.
   */
  readonly metrics: { readonly received?: string; readonly failed?: string };
  /** Counts from one message's result (metric name -> value), summed over the batch and published. */
  readonly counts?: (result: R) => Readonly<Record<string, number>>;
  /**
   * Counts of what should not happen (records failed, a message dead-lettered): published only by a batch that
   * saw some. A series costs $0.30 a month in every hour it is published, zeros included; the alarms and graphs
   * reading these take a missing datapoint for none. `metrics.failed` is always one.
   */
  readonly faults?: readonly string[];
}

export class InvalidMessageError extends Error {
  constructor(readonly messageId: string) {
    super(`message ${messageId} does not match its schema`);
    this.name = 'InvalidMessageError';
  }
}

export function parseMessage<S extends z.core.$ZodType>(schema: S, record: Pick<SQSRecord, 'body' | 'messageId'>): z.infer<S> {
  let json: unknown;
  try {
    json = JSON.parse(record.body);
  } catch {
    logger.error('Queue message is not JSON', { messageId: record.messageId });
    throw new InvalidMessageError(record.messageId);
  }
  const parsed = z.safeParse(schema, json);
  if (!parsed.success) {
    logger.error('Queue message does not match its schema', {
      messageId: record.messageId,
      issues: parsed.error.issues.map((i) => ({ path: i.path.join('.'), message: i.message })),
    });
    throw new InvalidMessageError(record.messageId);
  }
  return parsed.data;
}

export function sqsHandler<S extends z.core.$ZodType, R = void>(opts: SqsHandlerOptions<S, R>) {
  const processor = new BatchProcessor(EventType.SQS);
  return instrumented(async (event: SQSEvent, context) => {
    const totals = new Map<string, number>();
    const record = async (r: SQSRecord) => {
      const result = await opts.handle(parseMessage(opts.message, r), r);
      for (const [name, value] of Object.entries(opts.counts?.(result) ?? {})) totals.set(name, (totals.get(name) ?? 0) + value);
    };
    const response = await processPartialResponse(event, record, processor, { context });
    if (opts.metrics.received) metrics.addMetric(opts.metrics.received, MetricUnit.Count, event.Records.length);
    const failed = response.batchItemFailures.length;
    if (opts.metrics.failed && failed > 0) metrics.addMetric(opts.metrics.failed, MetricUnit.Count, failed);
    for (const [name, value] of totals) if (value > 0 || !opts.faults?.includes(name)) metrics.addMetric(name, MetricUnit.Count, value);
    return response;
  });
}
