/**
 * A port for a server that another process binds a moment later (DynamoDB Local, fauxqs, the local stack), chosen so
 * that nothing else is given it meanwhile. A port the kernel hands out (listen on port 0) is from its ephemeral range,
 * which every outgoing connection and every other listen(0) draws from too: released and bound again a second later,
 * it was taken in between (a crash proof's stack: EADDRINUSE). So the port is drawn at random below that range, where
 * the kernel gives no port on its own, never twice in one process, and tried by binding it.
 */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

/** The kernel's ephemeral range (Linux's default when it cannot be read). */
function ephemeralRange(): [number, number] {
  try {
    const [low, high] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/).map(Number);
    if (Number.isInteger(low) && Number.isInteger(high)) return [low!, high!];
  } catch {
    // not Linux: its default
  }
  return [32768, 60999];
}

/** Ports this process handed out: each once. */
const handedOut = new Set<number>();

const bindable = (port: number) =>
  new Promise<boolean>((resolve) => {
    const srv = createServer();
    srv.unref();
    srv.once('error', () => resolve(false));
    srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
  });

/** What the kernel gives for port 0 (where no range below its ephemeral one is left). */
const kernelPort = () =>
  new Promise<number>((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      srv.close(() => resolve(typeof addr === 'object' && addr ? addr.port : 0));
    });
  });

export async function freePort(): Promise<number> {
  const [low] = ephemeralRange();
  const first = Math.max(10_000, low - 20_000);
  if (low - first < 1_000) return kernelPort();
  for (let attempt = 0; attempt < 100; attempt++) {
    const port = first + Math.floor(Math.random() * (low - first));
    if (handedOut.has(port) || !(await bindable(port))) continue;
    handedOut.add(port);
    return port;
  }
  throw new Error(`no free port in ${first}-${low - 1} after 100 tries`);
}
