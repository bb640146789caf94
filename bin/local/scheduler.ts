/** Runs scheduled jobs on timers, one run at a time per job, as EventBridge schedules would. */
import type { JobDefinition } from '../../shared/manifest/jobs';
import { lambdaContext, scheduledEvent } from './lambda-events';
import { loadHandler } from './handler-loader';

export function startScheduler(
  jobs: readonly JobDefinition[],
  opts: { intervalMs?: (job: JobDefinition) => number; onError?: (e: unknown) => void } = {},
): { stop(): Promise<void> } {
  const timers: NodeJS.Timeout[] = [];
  const inFlight = new Set<Promise<unknown>>();
  for (const job of jobs) {
    let busy = false;
    const every = opts.intervalMs?.(job) ?? job.everyMinutes * 60_000;
    timers.push(
      setInterval(() => {
        if (busy) return;
        busy = true;
        const run = loadHandler(job.handler)
          .then((h) => h(scheduledEvent(job.id), lambdaContext(job.id, job.timeoutSeconds)))
          .catch((e: unknown) => opts.onError?.(e))
          .finally(() => {
            busy = false;
            inFlight.delete(run);
          });
        inFlight.add(run);
      }, every),
    );
  }
  return {
    async stop() {
      timers.forEach(clearInterval);
      await Promise.all(inFlight);
    },
  };
}
