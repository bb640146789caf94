/** A real webhook receiver on loopback for tests: scripted answers, every request recorded with its raw body. */
import { webhookViolations } from './contract';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';

export interface Received {
  readonly headers: IncomingHttpHeaders;
  readonly rawBody: Buffer;
  readonly body: any;
  readonly at: number;
}

export type Answer = number | { status: number; delayMs?: number };

export interface Receiver {
  readonly url: string;
  readonly received: Received[];
  /** Answers to give, in order; when they run out, `fallback`. */
  script(answers: Answer[], fallback?: Answer): void;
  waitFor(count: number, timeoutMs?: number, filter?: (r: Received) => boolean): Promise<Received[]>;
  stop(): Promise<void>;
}

export async function startReceiver(): Promise<Receiver> {
  const received: Received[] = [];
  /** Webhooks that do not match openapi.json's webhooks section: waitFor fails the test with them. */
  const violations: string[] = [];
  let answers: Answer[] = [];
  let fallback: Answer = 200;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const rawBody = Buffer.concat(chunks);
      let body: unknown;
      try {
        body = JSON.parse(rawBody.toString('utf8'));
      } catch {
        body = undefined;
      }
      violations.push(...webhookViolations(req.headers, rawBody));
      received.push({ headers: req.headers, rawBody, body, at: Date.now() });
      const a = answers.shift() ?? fallback;
      const { status, delayMs } = typeof a === 'number' ? { status: a, delayMs: 0 } : a;
      setTimeout(() => {
        if (!res.destroyed) res.writeHead(status, { 'content-type': 'text/plain' }).end('ok');
      }, delayMs ?? 0);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const addr = server.address();
  const port = typeof addr === 'object' && addr ? addr.port : 0;
  return {
    url: `http://127.0.0.1:${port}/webhooks`,
    received,
    script(a, f = 200) {
      answers = [...a];
      fallback = f;
    },
    async waitFor(count, timeoutMs = 15_000, filter = () => true) {
      const end = Date.now() + timeoutMs;
      while (received.filter(filter).length < count || violations.length > 0) {
        if (violations.length > 0) throw new Error(`Contract: ${violations.join('; ')}`);
        if (Date.now() > end) throw new Error(`receiver got ${received.filter(filter).length} of ${count} webhooks`);
        await new Promise((r) => setTimeout(r, 25));
      }
      return received.filter(filter);
    },
    stop: () =>
      new Promise<void>((r) => {
        server.close(() => r());
        server.closeAllConnections();
      }),
  };
}
