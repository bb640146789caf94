/**
 * The plain-HTTP control API of a standalone fake provider (fake-psp, fake-stp, fake-adyen CLIs): each request's
 * method, path and JSON body go to `handle`, which answers with `reply`; a body that is not JSON, or a handler that
 * throws, is answered 400 with the error's message.
 */
import { createServer, type Server } from 'node:http';

export type ControlReply = (status: number, value: unknown) => void;
export type ControlHandler = (req: { method: string; path: string; body: Record<string, unknown> }, reply: ControlReply) => Promise<void>;

export function controlServer(handle: ControlHandler): Server {
  return createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const reply: ControlReply = (status, value) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(`${JSON.stringify(value, null, 2)}\n`);
      };
      void (async () => {
        try {
          const body = chunks.length ? (JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>) : {};
          const path = new URL(req.url ?? '/', 'http://control').pathname;
          await handle({ method: req.method ?? 'GET', path, body }, reply);
        } catch (e) {
          reply(400, { error: (e as Error).message });
        }
      })();
    });
  });
}
