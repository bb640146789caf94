/**
 * Recording and replaying the AWS calls of one request, for the bare baseline of `npm run bench:load`.
 * The recorder captures every command the service's DynamoDB and SQS clients send (at the build step: the low-level,
 * marshalled input); the replayer sends the same commands again, in the same order, with the ids the
 * recorded request created (payment, event, ledger entry, payout ids: those written by a Put) swapped
 * for fresh ones of the same shape and the consumed object (a checkout session) swapped for the
 * request's own, so every conditional write meets the same conditions the service's did.
 */
import { randomBytes } from 'node:crypto';
import * as ddb from '@aws-sdk/client-dynamodb';
import * as sqs from '@aws-sdk/client-sqs';

interface Call {
  readonly service: 'dynamodb' | 'sqs';
  readonly command: string;
  readonly input: unknown;
}

export interface Recorded {
  readonly calls: readonly Call[];
  /** "UpdateItem 1, GetItem 2, TransactWriteItems 1, SendMessageBatch 1" */
  readonly summary: string;
  /** Ids this request created (replaced by fresh ones on every replay). */
  readonly created: readonly string[];
  /** The consumed object's id in the recording (replaced by the replayed request's own). */
  readonly subject?: string;
}

const ID = /\b(?:cs|pi|po|evt|re|le)_[A-Za-z0-9_-]{16,}/g;

type Client = ddb.DynamoDBClient | sqs.SQSClient;

export function recorder(dynamodb: ddb.DynamoDBClient, queue: sqs.SQSClient) {
  let calls: Call[] | undefined;
  let lastCallAt = 0;
  const watch = (client: Client, service: Call['service']) =>
    (client as ddb.DynamoDBClient).middlewareStack.add(
      (next, context) => async (args) => {
        lastCallAt = performance.now();
        calls?.push({ service, command: String(context.commandName).replace(/Command$/, ''), input: structuredClone(args.input) });
        return next(args);
      },
      { step: 'build', name: `benchRecorder-${service}` },
    );
  watch(dynamodb, 'dynamodb');
  watch(queue, 'sqs');
  return {
    /** Resolves once no call has been sent for `quietMs` (what a previous run left in flight has finished). */
    async idle(quietMs = 1000): Promise<void> {
      while (performance.now() - lastCallAt < quietMs) await new Promise((r) => setTimeout(r, 100));
    },
    start: () => void (calls = []),
    stop(subject?: string): Recorded {
      const recorded = calls ?? [];
      calls = undefined;
      const created = new Set<string>();
      for (const c of recorded) for (const item of putItems(c)) for (const id of JSON.stringify(item).match(ID) ?? []) created.add(id);
      if (subject) created.delete(subject);
      const counts = new Map<string, number>();
      for (const c of recorded) counts.set(c.command, (counts.get(c.command) ?? 0) + 1);
      return {
        calls: recorded,
        summary: [...counts].map(([c, n]) => `${c} ${n}`).join(', '),
        created: [...created],
        subject,
      };
    },
  };
}

/** Items a call writes as new: PutItem's item and the Puts of a transaction. */
function putItems(c: Call): unknown[] {
  const input = c.input as { Item?: unknown; TransactItems?: Array<{ Put?: { Item: unknown } }> };
  if (c.command === 'PutItem') return [input.Item];
  if (c.command === 'TransactWriteItems') return (input.TransactItems ?? []).flatMap((t) => (t.Put ? [t.Put.Item] : []));
  return [];
}

const fresh = (id: string) => {
  const prefix = id.slice(0, id.indexOf('_') + 1);
  return `${prefix}${randomBytes(Math.ceil(((id.length - prefix.length) * 3) / 4)).toString('base64url')}`.slice(0, id.length);
};

/** Sends the recorded calls again, one after another, as one baseline request. */
export function replayer(dynamodb: ddb.DynamoDBClient, queue: sqs.SQSClient, recorded: Recorded) {
  const template = JSON.stringify(recorded.calls);
  const swapped = new Set(recorded.created);
  return async (subject?: string): Promise<void> => {
    const map = new Map<string, string>();
    if (recorded.subject && subject) map.set(recorded.subject, subject);
    const calls = JSON.parse(
      template.replace(ID, (id) => {
        if (map.has(id)) return map.get(id)!;
        if (!swapped.has(id)) return id;
        const next = fresh(id);
        map.set(id, next);
        return next;
      }),
    ) as Call[];
    for (const c of calls) {
      if (c.service === 'dynamodb') {
        const Command = (ddb as unknown as Record<string, new (input: unknown) => ddb.GetItemCommand>)[`${c.command}Command`]!;
        await dynamodb.send(new Command(c.input));
      } else {
        const Command = (sqs as unknown as Record<string, new (input: unknown) => sqs.SendMessageCommand>)[`${c.command}Command`]!;
        await queue.send(new Command(c.input));
      }
    }
  };
}
