/**
 * The load generator of `npm run bench:load`, in its own process so that it never shares an event loop
 * with the server it measures: autocannon with the case's request (BENCH_LOAD_CASE, JSON), each
 * request taking the next body from its list when it has one (a fresh checkout session per process
 * request). Prints autocannon's result as JSON.
 */
import { readFileSync } from 'node:fs';
import autocannon from 'autocannon';

interface ClientCase {
  readonly url: string;
  readonly method: 'GET' | 'POST';
  readonly headers: Record<string, string>;
  /** A file of JSON lines: one body per request, used in turn (cycled when the run outlasts them). */
  readonly bodiesFile?: string;
  readonly body?: string;
  readonly connections: number;
  readonly duration: number;
}

const c = JSON.parse(process.env.BENCH_LOAD_CASE ?? '{}') as ClientCase;
const bodies = c.bodiesFile ? readFileSync(c.bodiesFile, 'utf8').split('\n').filter(Boolean) : undefined;
let next = 0;
const instance = autocannon(
  {
    url: c.url,
    method: c.method,
    headers: c.headers,
    body: c.body,
    connections: c.connections,
    duration: c.duration,
    requests: bodies ? [{ setupRequest: (req) => ({ ...req, body: bodies[next++ % bodies.length] }) }] : undefined,
  },
  (err, result) => {
    if (err) {
      console.error(err);
      process.exit(1);
    }
    process.stdout.write(JSON.stringify(result));
  },
);
process.once('SIGINT', () => instance.stop());
