/** Shared by the benchmark scripts: counting DynamoDB calls in the service's own client, timing a case, printing the report. */
import { performance } from 'node:perf_hooks';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';

/** Counts every command the client sends, by name; `describe()` lists the counts since the last `reset()`. */
export function countCalls(client: DynamoDBClient) {
  let calls: Record<string, number> = {};
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const name = String(context.commandName ?? 'unknown').replace(/Command$/, '');
      calls[name] = (calls[name] ?? 0) + 1;
      return next(args);
    },
    { step: 'initialize', name: 'benchCounter' },
  );
  return {
    reset: () => (calls = {}),
    describe: () =>
      Object.entries(calls)
        .map(([c, n]) => `${c} ${n}`)
        .join(', ') || 'none',
  };
}

/** The p-quantile of sorted samples, formatted to 0.1. */
export const quantile = (sorted: readonly number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!.toFixed(1);

export interface CaseOptions {
  readonly iterations: number;
  /** Requests sent first and not measured (handler modules, caches). */
  readonly warmup: number;
  readonly calls: ReturnType<typeof countCalls>;
  /** Prepares request number i (untimed) and returns the timed request. */
  readonly prepare: (i: number) => Promise<() => Promise<Response>>;
  readonly ok: (status: number) => boolean;
  /** Extra text for the calls column, from the last response's body. */
  readonly note?: (body: string) => string;
}

/** Times one case request by request and returns its report row: median, p95, DynamoDB calls of the last request. */
export async function measureCase(name: string, o: CaseOptions): Promise<string> {
  const samples: number[] = [];
  let perRequest = '';
  for (let i = 0; i < o.iterations + o.warmup; i++) {
    const send = await o.prepare(i);
    o.calls.reset();
    const t = performance.now();
    const res = await send();
    const body = await res.text();
    const ms = performance.now() - t;
    if (!o.ok(res.status)) throw new Error(`${name}: ${res.status} ${body.slice(0, 300)}`);
    if (i >= o.warmup) samples.push(ms);
    if (i === o.iterations + o.warmup - 1) perRequest = `${o.calls.describe()}${o.note?.(body) ?? ''}`;
  }
  samples.sort((a, b) => a - b);
  return `| ${name} | ${quantile(samples, 0.5)} | ${quantile(samples, 0.95)} | ${perRequest} |`;
}

export function printReport(title: string, header: string, rows: readonly string[]) {
  console.log(title);
  console.log(header);
  console.log(
    `|${header
      .split('|')
      .slice(1, -1)
      .map(() => '---')
      .join('|')}|`,
  );
  for (const r of rows) console.log(r);
}

/** The latency table every local-stack bench prints: what ran, on which Node and when, then one row per case. */
export function printLatencyReport(what: string, header: string, rows: readonly string[]) {
  printReport(`${what}, Node ${process.version}, ${new Date().toISOString()}`, header, rows);
}

/** Runs a bench script: exit 0 when it finishes (the local stack's timers would keep the process alive), 1 on error. */
export function runBench(main: () => Promise<void>) {
  main().then(
    () => process.exit(0),
    (e: unknown) => {
      console.error(e);
      process.exit(1);
    },
  );
}
