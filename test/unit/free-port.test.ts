/**
 * freePort (bin/local/free-port.ts): a port for a server another process binds a moment later, drawn below the
 * kernel's ephemeral range so that no outgoing connection or listen(0) is given it in between (the EADDRINUSE a crash
 * proof met), never twice in one process, and free when handed out.
 */
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { freePort } from '../../bin/local/free-port';

const listen = (port: number) =>
  new Promise<Server>((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(port, '127.0.0.1', () => resolve(srv));
  });

it('hands out distinct ports below the ephemeral range, each free to bind', async () => {
  const [low] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/).map(Number);
  const ports = await Promise.all(Array.from({ length: 40 }, () => freePort()));
  expect(new Set(ports).size).toBe(40);
  for (const p of ports) {
    expect(p).toBeGreaterThanOrEqual(10_000);
    expect(p).toBeLessThan(low!);
  }
  const servers = await Promise.all(ports.slice(0, 5).map(listen));
  await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
});
