/**
 * The listening side the HTTPS fake providers share (fake-psp, fake-efi): loopback on a fixed port, the sockets
 * and held requests it drops on close, and the outages that take the whole fake down until cleared:
 *   'refuse'    the listener stops accepting (closed, every open connection dropped): a client gets a real
 *               ECONNREFUSED before anything is sent; cleared, it listens again on the same port;
 *   'hang'      every call is accepted, read and never answered (held until `hangMs` or close);
 *   'lost'      every call is carried out, then its connection is dropped without an answer (the token call
 *               excepted, so that the call a client makes is the one whose answer is lost);
 *   {status}    every call is answered that status (the token call included).
 * Scripted faults of one operation (`failNext`) stay queued during an outage and meet the calls after it.
 */
import type { ServerResponse } from 'node:http';
import type { Server } from 'node:https';
import type { Socket } from 'node:net';

export type Outage = 'refuse' | 'hang' | 'lost' | { readonly status: number };

/** What one call meets: an answer with a status, no answer at all, or its effect without an answer. */
export type CallFault = { readonly status: number } | { readonly hang: true } | { readonly lost: true };

export interface FakeListener {
  readonly port: number;
  readonly origin: string;
  outage(): Outage | null;
  setOutage(how: Outage | null): Promise<void>;
  /** What a call meets under the current outage (`token`: the call is the OAuth token's), or undefined: served. */
  faultOf(token: boolean): CallFault | undefined;
  /** Holds a call unanswered until `hangMs` passes or the fake closes. */
  hold(res: ServerResponse): void;
  /** Drops a call's connection without an answer. */
  drop(res: ServerResponse): void;
  close(): Promise<void>;
}

/** Parses an outage as the control APIs and CLIs name it: refuse, hang, lost, a status (500, 503), or clear (null). */
export function parseOutage(text: string): Outage | null {
  if (text === 'clear') return null;
  if (text === 'refuse' || text === 'hang' || text === 'lost') return text;
  if (/^[45]\d\d$/.test(text)) return { status: Number(text) };
  throw new Error(`an outage is refuse, hang, lost, a status from 400 to 599, or clear (not ${text})`);
}

export async function listenFake(server: Server, opts: { port?: number; hangMs?: number } = {}): Promise<FakeListener> {
  const sockets = new Set<Socket>();
  const held = new Set<ServerResponse>();
  let current: Outage | null = null;
  let listening = false;
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  server.on('tlsClientError', () => undefined); // a refused client certificate: the client sees the handshake fail

  const listen = (port: number) =>
    new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => {
        server.off('error', reject);
        listening = true;
        resolve();
      });
    });
  /** Stops accepting and drops every connection (and held call); resolves once the listener is closed. */
  const unlisten = () =>
    new Promise<void>((resolve) => {
      for (const res of held) res.destroy();
      held.clear();
      if (!listening) {
        for (const s of sockets) s.destroy();
        return resolve();
      }
      listening = false;
      server.close(() => resolve());
      for (const s of sockets) s.destroy();
    });

  await listen(opts.port ?? 0);
  const addr = server.address();
  const port = typeof addr === 'object' && addr ? addr.port : 0;

  return {
    port,
    origin: `https://127.0.0.1:${port}`,
    outage: () => current,
    async setOutage(how) {
      if (how === 'refuse' && current !== 'refuse') {
        current = how;
        await unlisten();
        // The client's side of each dropped kept-alive connection sees it close before its next call.
        await new Promise((r) => setTimeout(r, 50));
        return;
      }
      if (how !== 'refuse' && current === 'refuse') await listen(port);
      current = how;
    },
    faultOf(token) {
      if (current === null) return undefined;
      if (current === 'hang') return { hang: true };
      if (current === 'refuse') return { lost: true }; // a call on a connection not yet dropped
      if (current === 'lost') return token ? undefined : { lost: true };
      return { status: current.status };
    },
    hold(res) {
      held.add(res);
      res.on('close', () => held.delete(res));
      setTimeout(() => res.destroy(), opts.hangMs ?? 60_000).unref();
    },
    drop(res) {
      res.socket?.destroy();
      res.destroy();
    },
    close: unlisten,
  };
}

/** A fake whose whole outage a control API switches (fake-psp, fake-efi). */
export interface OutageSwitch {
  outage(how: Outage | null): Promise<void>;
  currentOutage(): Outage | null;
  clearFaults(): number;
}

/**
 * The control APIs' outage routes: `GET /fault` (the outage now), `POST /fault/{refuse|hang|lost|<status>}`, and
 * `POST /fault/clear` (the outage ends and every scripted per-operation fault not yet met is dropped). Answers
 * false when the call is not one of these.
 */
export async function outageControl(
  fake: OutageSwitch,
  req: { method: string; path: string },
  reply: (status: number, value: unknown) => void,
): Promise<boolean> {
  if (req.method === 'GET' && req.path === '/fault') {
    reply(200, { outage: fake.currentOutage() });
    return true;
  }
  const m = /^\/fault\/([a-z0-9]+)$/.exec(req.path);
  if (req.method !== 'POST' || !m) return false;
  const how = parseOutage(m[1] as string);
  await fake.outage(how);
  reply(200, how === null ? { outage: null, droppedFaults: fake.clearFaults() } : { outage: how });
  return true;
}
