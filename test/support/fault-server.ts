/** A loopback HTTP server that answers from a script, to inject faults into the SDK's transport: statuses, dropped connections, hangs. */
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';

export type Fault =
  | { status: number; body?: unknown; headers?: Record<string, string> }
  /** Closes the connection without answering (a network error). */
  | 'drop'
  /** Never answers (until the server stops). */
  | 'hang';

export interface Hit {
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
  readonly at: number;
}

export interface FaultServer {
  readonly baseUrl: string;
  readonly hits: Hit[];
  /** Answers in order; when they run out, `fallback`. */
  script(faults: Fault[], fallback?: Fault): void;
  stop(): Promise<void>;
}

export async function startFaultServer(): Promise<FaultServer> {
  const hits: Hit[] = [];
  let faults: Fault[] = [];
  let fallback: Fault = { status: 200, body: { ok: true } };
  const hanging: ServerResponse[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      hits.push({
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        at: Date.now(),
      });
      const f = faults.shift() ?? fallback;
      if (f === 'drop') return req.socket.destroy();
      if (f === 'hang') return void hanging.push(res);
      res.writeHead(f.status, { 'content-type': 'application/json', 'x-request-id': `req_${hits.length}`, ...f.headers });
      res.end(JSON.stringify(f.body ?? {}));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const addr = server.address();
  const port = typeof addr === 'object' && addr ? addr.port : 0;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    hits,
    script(f, fb = { status: 200, body: { ok: true } }) {
      faults = [...f];
      fallback = fb;
      hits.length = 0;
    },
    stop: () =>
      new Promise<void>((r) => {
        for (const res of hanging) res.destroy();
        server.close(() => r());
        server.closeAllConnections();
      }),
  };
}
