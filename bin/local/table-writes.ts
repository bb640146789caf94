/**
 * An in-process notice that the service wrote to its table, so the local stream pollers read the stream at once
 * instead of on their idle timer. On AWS the event source mapping is pushed records; locally the pollers ask
 * DynamoDB Local, and asking ten times a second per consumer cost a test stack at rest about 14% of a core
 * (BENCHMARKS.md). With this notice a poller reads right after each write and rests for up to a second between
 * reads when nothing is written; a write this process does not make (another process on the same engine) is
 * read on the next rest's end.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';

const listeners = new Set<() => void>();
const watched = new WeakSet<object>();

/** The commands that never change an item: every other command that succeeds notifies. */
const READS = /^(Get|BatchGet|TransactGet|Query|Scan|Describe|List)/;

/** Calls `listener` after each write the watched clients make; returns the unsubscribe. */
export function onTableWrite(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** Tells every listener that the table may have changed. */
export function tableWritten(): void {
  for (const listener of listeners) listener();
}

/** Notifies after each successful write `client` makes (and any document client built on it); once per client. */
export function watchTableWrites(client: DynamoDBClient): void {
  if (watched.has(client)) return;
  watched.add(client);
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const result = await next(args);
      if (!READS.test(context.commandName ?? '')) tableWritten();
      return result;
    },
    { step: 'initialize', name: 'localTableWriteNotice' },
  );
}
