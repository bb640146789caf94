/**
 * The scheduled-job builder, beside httpHandler and sqsHandler. The schedule's own time is "now", so a late
 * or replayed run does exactly what was due then; the job's counts become metrics, and a run that did work
 * is logged with them.
 *
 *   export const handler = scheduledHandler({ run: (now) => expireDue(deps, now), metrics: (r) => ({ Expired: r.expired }) });
 */
import { MetricUnit } from '@aws-lambda-powertools/metrics';
import type { ScheduledEvent } from 'aws-lambda';
import { logger, metrics } from '../observability';
import { instrumented } from './instrument';

export interface ScheduledHandlerOptions<R> {
  readonly run: (now: Date) => Promise<R>;
  /** Metrics to publish (name -> value) from the run's result: counts, or seconds for a name ending in `Seconds`. */
  readonly metrics: (result: R) => Readonly<Record<string, number>>;
  /** A log line when the run did something worth an operator's attention. */
  readonly log?: (result: R) => { level: 'info' | 'warn'; message: string } | null;
}

export function scheduledHandler<R extends Record<string, number>>(opts: ScheduledHandlerOptions<R>) {
  return instrumented(async (event: Partial<ScheduledEvent>) => {
    const now = event.time ? new Date(event.time) : new Date();
    const result = await opts.run(now);
    for (const [name, value] of Object.entries(opts.metrics(result))) {
      metrics.addMetric(name, name.endsWith('Seconds') ? MetricUnit.Seconds : MetricUnit.Count, value);
    }
    const line = opts.log?.(result);
    if (line) logger[line.level](line.message, { ...result });
    return result;
  });
}
