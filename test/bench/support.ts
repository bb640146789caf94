/** Shared by the benchmark scripts: counting DynamoDB calls in the service's own client, and quantiles. */
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
    describe: () => Object.entries(calls).map(([c, n]) => `${c} ${n}`).join(', ') || 'none',
  };
}

/** The p-quantile of sorted samples, formatted to 0.1. */
export const quantile = (sorted: readonly number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!.toFixed(1);
