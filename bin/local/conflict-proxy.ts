/**
 * DynamoDB's transaction conflict rules in front of DynamoDB Local (issue 22), which serializes transactions
 * and so never shows one. An HTTP proxy for the DynamoDB JSON protocol: while a TransactWriteItems or a
 * single-item write is in flight, another TransactWriteItems touching one of its items is cancelled with
 * TransactionCanceledException, reason TransactionConflict for that item (the one in flight proceeds), and a
 * single-item write to an item of an in-flight transaction fails with TransactionConflictException, as
 * DynamoDB documents. `latencyMs` holds every write that long before it is forwarded, widening the windows.
 *
 *   npm start -- --emulate-conflicts [--conflict-latency-ms 20]      the local stack behind it
 *   startConflictProxy({ target })                                    tests
 */
import { createServer, request, type IncomingMessage, type Server } from 'node:http';
import { TABLE } from '../../shared/manifest/table';

type AttributeMap = Record<string, unknown>;
interface TxItem {
  readonly Put?: { TableName: string; Item: AttributeMap };
  readonly Update?: { TableName: string; Key: AttributeMap };
  readonly Delete?: { TableName: string; Key: AttributeMap };
  readonly ConditionCheck?: { TableName: string; Key: AttributeMap };
}

export interface ConflictProxy {
  readonly endpoint: string;
  /** What the proxy did: transactions and single writes forwarded, those it refused as conflicts, and as throttled. */
  readonly stats: { transactions: number; writes: number; transactionConflicts: number; writeConflicts: number; throttled: number };
  stop(): Promise<void>;
}

/** An item's identity: its table and primary key (PK, SK as the table manifest declares them). */
function itemKey(table: string, attrs: AttributeMap): string {
  return `${table}|${JSON.stringify(attrs[TABLE.partitionKey])}|${JSON.stringify(attrs[TABLE.sortKey])}`;
}

/** The partition an item key is in (table and partition key value): what a per-partition write limit counts. */
const partitionOf = (key: string) => key.slice(0, key.lastIndexOf('|'));

/** Write units of one write: 1 per started KB of a put item (its JSON, near enough), 1 for an update or delete. */
function unitsOf(op: { Put?: { Item: AttributeMap } }): number {
  return op.Put ? Math.max(1, Math.ceil(Buffer.byteLength(JSON.stringify(op.Put.Item)) / 1024)) : 1;
}

function keysOfTransaction(body: { TransactItems?: TxItem[] }): string[] {
  return (body.TransactItems ?? []).map((t) => {
    if (t.Put) return itemKey(t.Put.TableName, t.Put.Item);
    const op = t.Update ?? t.Delete ?? t.ConditionCheck;
    return op ? itemKey(op.TableName, op.Key) : 'unknown';
  });
}

const SINGLE_WRITES: Record<string, (b: { TableName: string; Item: AttributeMap; Key: AttributeMap }) => string> = {
  PutItem: (b) => itemKey(b.TableName, b.Item),
  UpdateItem: (b) => itemKey(b.TableName, b.Key),
  DeleteItem: (b) => itemKey(b.TableName, b.Key),
};

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

export async function startConflictProxy(opts: {
  target: string;
  latencyMs?: number;
  port?: number;
  /** DynamoDB's per-partition write limit (1,000 WCU/s on AWS): writes beyond it in a second are throttled. */
  partitionWriteUnitsPerSecond?: number;
}): Promise<ConflictProxy> {
  const target = new URL(opts.target);
  const latencyMs = opts.latencyMs ?? 0;
  /** Items touched by an in-flight transaction, and by an in-flight single write: key -> how many. */
  const inTransaction = new Map<string, number>();
  const inWrite = new Map<string, number>();
  const stats = { transactions: 0, writes: 0, transactionConflicts: 0, writeConflicts: 0, throttled: 0 };
  /** Write units spent per partition in the current second. */
  const spent = new Map<string, { second: number; units: number }>();
  const budget = opts.partitionWriteUnitsPerSecond;
  /** Whether these writes fit their partitions' budget this second (and spends it if they all do); per write, throttled or not. */
  const admit = (writes: Array<{ key: string; units: number }>): boolean[] => {
    if (!budget) return writes.map(() => false);
    const second = Math.floor(Date.now() / 1000);
    const need = new Map<string, number>();
    for (const w of writes) need.set(partitionOf(w.key), (need.get(partitionOf(w.key)) ?? 0) + w.units);
    const over = new Set<string>();
    for (const [p, units] of need) {
      const s = spent.get(p);
      const used = s && s.second === second ? s.units : 0;
      if (used + units > budget) over.add(p);
    }
    if (over.size === 0)
      for (const [p, units] of need) spent.set(p, { second, units: (spent.get(p)?.second === second ? spent.get(p)!.units : 0) + units });
    return writes.map((w) => over.has(partitionOf(w.key)));
  };
  const hold = (m: Map<string, number>, keys: string[]) => keys.forEach((k) => m.set(k, (m.get(k) ?? 0) + 1));
  const release = (m: Map<string, number>, keys: string[]) =>
    keys.forEach((k) => ((m.get(k) ?? 0) <= 1 ? m.delete(k) : m.set(k, (m.get(k) as number) - 1)));

  const forward = (req: IncomingMessage, body: Buffer) =>
    new Promise<{ status: number; headers: IncomingMessage['headers']; body: Buffer }>((resolve, reject) => {
      const out = request(
        { host: target.hostname, port: target.port, path: req.url, method: req.method, headers: { ...req.headers, host: target.host } },
        async (res) => resolve({ status: res.statusCode ?? 500, headers: res.headers, body: await readBody(res) }),
      );
      out.on('error', reject);
      out.end(body);
    });

  const server: Server = createServer((req, res) => {
    void (async () => {
      const body = await readBody(req);
      const op = String(req.headers['x-amz-target'] ?? '').split('.')[1] ?? '';
      const reply = (status: number, type: string, payload: object) => {
        res.writeHead(status, { 'content-type': 'application/x-amz-json-1.0', 'x-amzn-errortype': type });
        res.end(JSON.stringify({ __type: `com.amazonaws.dynamodb.v20120810#${type}`, ...payload }));
      };
      let held: { map: Map<string, number>; keys: string[] } | null = null;
      try {
        if (op === 'TransactWriteItems') {
          const parsed = JSON.parse(body.toString('utf8')) as { TransactItems?: TxItem[] };
          const keys = keysOfTransaction(parsed);
          const throttled = admit(keys.map((key, i) => ({ key, units: 2 * unitsOf(parsed.TransactItems?.[i] ?? {}) })));
          if (throttled.some(Boolean)) {
            stats.throttled++;
            const reasons = throttled.map((t) =>
              t
                ? { Code: 'ThrottlingError', Message: 'Throughput exceeds the current capacity for one or more partitions.' }
                : { Code: 'None' },
            );
            return reply(400, 'TransactionCanceledException', {
              message: `Transaction cancelled, please refer cancellation reasons for specific reasons [${reasons.map((r) => r.Code)}]`,
              CancellationReasons: reasons,
            });
          }
          const busy = keys.map((k) => inTransaction.has(k) || inWrite.has(k));
          if (busy.some(Boolean)) {
            stats.transactionConflicts++;
            const reasons = busy.map((b) =>
              b ? { Code: 'TransactionConflict', Message: 'Transaction is ongoing for the item' } : { Code: 'None' },
            );
            return reply(400, 'TransactionCanceledException', {
              message: `Transaction cancelled, please refer cancellation reasons for specific reasons [${reasons.map((r) => r.Code)}]`,
              CancellationReasons: reasons,
            });
          }
          stats.transactions++;
          held = { map: inTransaction, keys };
        } else if (SINGLE_WRITES[op]) {
          const parsed = JSON.parse(body.toString('utf8'));
          const key = SINGLE_WRITES[op](parsed);
          if (admit([{ key, units: op === 'PutItem' ? unitsOf({ Put: parsed }) : 1 }])[0]) {
            stats.throttled++;
            return reply(400, 'ProvisionedThroughputExceededException', {
              message:
                'Throughput exceeds the current capacity of your table or index. DynamoDB is automatically scaling your table or index.',
            });
          }
          if (inTransaction.has(key)) {
            stats.writeConflicts++;
            return reply(400, 'TransactionConflictException', { message: 'Transaction is ongoing for the item' });
          }
          stats.writes++;
          held = { map: inWrite, keys: [key] };
        }
        if (held) hold(held.map, held.keys);
        if (held && latencyMs > 0) await new Promise((r) => setTimeout(r, latencyMs));
        const answer = await forward(req, body);
        res.writeHead(answer.status, answer.headers);
        res.end(answer.body);
      } catch (e) {
        reply(500, 'InternalServerError', { message: `conflict proxy: ${(e as Error).message}` });
      } finally {
        if (held) release(held.map, held.keys);
      }
    })();
  });
  await new Promise<void>((r) => server.listen(opts.port ?? 0, '127.0.0.1', r));
  const addr = server.address();
  return {
    endpoint: `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}`,
    stats,
    stop: () =>
      new Promise<void>((r) => {
        server.close(() => r());
        server.closeAllConnections();
      }),
  };
}
