/**
 * Webhook HTTP sender (DESIGN.md section 5) against real node servers on loopback, port 0:
 * status handling, no redirects, total timeout, response cap, and the connection going to the
 * checked address without resolving the URL's host name.
 */
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { deliver, MAX_RESPONSE_BYTES } from '../../shared/adapters/webhooks/http-sender';

interface Received {
  method?: string;
  url?: string;
  headers: http.IncomingHttpHeaders;
  body: string;
  remote?: string;
}

interface TestServer {
  port: number;
  received: Received[];
  close(): Promise<void>;
}

async function serve(
  handler: (req: http.IncomingMessage, res: http.ServerResponse) => void,
  host = '127.0.0.1',
  server: http.Server = http.createServer(),
): Promise<TestServer> {
  const received: Received[] = [];
  server.on('request', (req: http.IncomingMessage, res: http.ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({
        method: req.method,
        url: req.url,
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        remote: req.socket.remoteAddress,
      });
      handler(req, res);
    });
  });
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(0, host, () => resolve()));
  return {
    port: (server.address() as AddressInfo).port,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const servers: TestServer[] = [];
const start = async (...args: Parameters<typeof serve>) => {
  const s = await serve(...args);
  servers.push(s);
  return s;
};
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

const body = JSON.stringify({ event: 'payment.success', payment_id: 'pi_1', amount: 10.5, name: 'Café' });
const base = {
  address: '127.0.0.1',
  family: 4 as const,
  body,
  headers: { 'x-signature': 'ab'.repeat(32), 'webhook-id': 'evt_1' },
  userAgent: 'LatamPayments-Webhooks/1.0',
};

describe('deliver', () => {
  it('POSTs the exact body with the given headers and reports 200 as ok', async () => {
    const s = await start((_req, res) => res.writeHead(200).end('thanks'));
    const r = await deliver({ ...base, url: `http://127.0.0.1:${s.port}/hooks/pay?x=1#frag` });
    expect(r).toEqual({ ok: true, status: 200, durationMs: expect.any(Number) });
    expect(s.received).toHaveLength(1);
    const got = s.received[0]!;
    expect(got).toMatchObject({ method: 'POST', url: '/hooks/pay?x=1', body });
    expect(got.headers).toMatchObject({
      'content-type': 'application/json',
      'user-agent': 'LatamPayments-Webhooks/1.0',
      'content-length': String(Buffer.byteLength(body)),
      'x-signature': 'ab'.repeat(32),
      'webhook-id': 'evt_1',
      host: `127.0.0.1:${s.port}`,
    });
  });

  it('sets content-type, user-agent and host itself, whatever the caller passes', async () => {
    const s = await start((_req, res) => res.writeHead(204).end());
    const r = await deliver({
      ...base,
      url: `http://127.0.0.1:${s.port}/`,
      headers: {
        'Content-Type': 'text/plain',
        Host: 'evil.example',
        'User-Agent': 'x',
        'X-Extra': 'y',
        'Transfer-Encoding': 'chunked',
        'Content-Length': '1',
        Connection: 'keep-alive',
      },
    });
    expect(r).toMatchObject({ ok: true, status: 204 });
    const got = s.received[0]!;
    expect(got.headers).toMatchObject({
      'content-type': 'application/json',
      host: `127.0.0.1:${s.port}`,
      'user-agent': base.userAgent,
      'x-extra': 'y',
      'content-length': String(Buffer.byteLength(body)),
      connection: 'close',
    });
    expect(got.headers['transfer-encoding']).toBeUndefined();
    expect(got.body).toBe(body);
  });

  it('any 2xx is ok; 500, 410 and 404 are not, with their status', async () => {
    let status = 202;
    const s = await start((_req, res) => res.writeHead(status).end('body'));
    const url = `http://127.0.0.1:${s.port}/`;
    expect(await deliver({ ...base, url })).toMatchObject({ ok: true, status: 202 });
    for (status of [500, 410, 404, 199 + 101]) {
      const r = await deliver({ ...base, url });
      expect(r).toMatchObject({ ok: false, status });
      expect(r.error).toBeUndefined();
    }
  });

  it('does not follow a redirect: 302 is a failure and the target receives nothing', async () => {
    const target = await start((_req, res) => res.writeHead(200).end());
    const redirector = await start((_req, res) => res.writeHead(302, { location: `http://127.0.0.1:${target.port}/stolen` }).end());
    const r = await deliver({ ...base, url: `http://127.0.0.1:${redirector.port}/` });
    expect(r).toMatchObject({ ok: false, status: 302 });
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(redirector.received).toHaveLength(1);
    expect(target.received).toHaveLength(0);
  });

  it('a server that never answers times out after timeoutMs', async () => {
    const s = await start(() => {
      /* never answers */
    });
    const r = await deliver({ ...base, url: `http://127.0.0.1:${s.port}/`, timeoutMs: 300 });
    expect(r).toEqual({ ok: false, error: 'timeout', durationMs: expect.any(Number) });
    expect(r.durationMs).toBeGreaterThanOrEqual(290);
    expect(r.durationMs).toBeLessThan(2000);
  });

  it('the timeout is total: a 200 whose body never ends is a timeout', async () => {
    const s = await start((_req, res) => {
      res.writeHead(200);
      res.write('{"partial":');
    });
    const r = await deliver({ ...base, url: `http://127.0.0.1:${s.port}/`, timeoutMs: 300 });
    expect(r).toMatchObject({ ok: false, status: 200, error: 'timeout' });
    expect(r.durationMs).toBeLessThan(2000);
  });

  it('reads at most 64 KB of response: an endless body does not hold the delivery', async () => {
    let sent = 0;
    const s = await start((_req, res) => {
      res.writeHead(200);
      const chunk = Buffer.alloc(16 * 1024, 'x');
      const pump = () => {
        while (!res.destroyed) {
          sent += chunk.length;
          if (!res.write(chunk)) return void res.once('drain', pump);
        }
      };
      res.on('error', () => undefined);
      pump();
    });
    const r = await deliver({ ...base, url: `http://127.0.0.1:${s.port}/`, timeoutMs: 3000 });
    expect(r).toEqual({ ok: true, status: 200, durationMs: expect.any(Number) });
    expect(r.durationMs).toBeLessThan(2000);
    expect(sent).toBeGreaterThan(MAX_RESPONSE_BYTES);
  });

  it('connection refused is an error, not a throw', async () => {
    const s = await serve(() => undefined);
    const port = s.port;
    await s.close();
    const r = await deliver({ ...base, url: `http://127.0.0.1:${port}/` });
    expect(r).toEqual({ ok: false, error: 'ECONNREFUSED', durationMs: expect.any(Number) });
  });

  it('connects to the checked address without resolving the URL host (merchant.invalid), keeping it as Host', async () => {
    const s = await start((_req, res) => res.writeHead(200).end());
    const r = await deliver({ ...base, url: `http://merchant.invalid:${s.port}/hook`, address: '127.0.0.1', family: 4, timeoutMs: 2000 });
    expect(r).toMatchObject({ ok: true, status: 200 });
    expect(s.received[0]).toMatchObject({
      url: '/hook',
      remote: '127.0.0.1',
      headers: expect.objectContaining({ host: `merchant.invalid:${s.port}` }),
    });
  });

  it('the same over IPv6 loopback', async () => {
    let s: TestServer;
    try {
      s = await start((_req, res) => res.writeHead(200).end(), '::1');
    } catch {
      return; // no IPv6 loopback on this machine
    }
    const r = await deliver({ ...base, url: `http://merchant.invalid:${s.port}/`, address: '::1', family: 6, timeoutMs: 2000 });
    expect(r).toMatchObject({ ok: true, status: 200 });
    expect(s.received[0]!.headers.host).toBe(`merchant.invalid:${s.port}`);
    const literal = await deliver({ ...base, url: `http://[::1]:${s.port}/`, address: '0:0::1', family: 6 });
    expect(literal).toMatchObject({ ok: true, status: 200 });
  });

  it('refuses a literal-IP URL whose host is not the checked address, sending nothing', async () => {
    const s = await start((_req, res) => res.writeHead(200).end());
    const r = await deliver({ ...base, url: `http://127.0.0.1:${s.port}/`, address: '10.0.0.1', family: 4 });
    expect(r.ok).toBe(false);
    expect(r.error).toMatch(/does not match/);
    expect(s.received).toHaveLength(0);
  });

  it('https: SNI and the certificate check use the URL host name; an untrusted certificate fails', async () => {
    const servernames: Array<string | undefined> = [];
    const tlsServer = https.createServer({
      key: TEST_KEY,
      cert: TEST_CERT,
      SNICallback: (name, cb) => {
        servernames.push(name);
        cb(null);
      },
    });
    const s = await start((_req, res) => res.writeHead(200).end(), '127.0.0.1', tlsServer);
    const r = await deliver({ ...base, url: `https://merchant.invalid:${s.port}/`, timeoutMs: 2000 });
    expect(r).toMatchObject({ ok: false, error: 'DEPTH_ZERO_SELF_SIGNED_CERT' });
    expect(servernames).toEqual(['merchant.invalid']);
    expect(s.received).toHaveLength(0);
  });

  it('other protocols are an error', async () => {
    expect(await deliver({ ...base, url: 'ftp://merchant.invalid/' })).toMatchObject({ ok: false, error: 'unsupported protocol ftp:' });
  });
});

// Throwaway self-signed certificate for CN/SAN merchant.invalid, made for this test only:
// openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 36500 \
//   -subj /CN=merchant.invalid -addext subjectAltName=DNS:merchant.invalid
const TEST_KEY = `-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQg5YVZtl1MGjXhGi3x
bS4f4RcKsf0QiwTbHdWFQaEFPqKhRANCAATsXRFXLqSIx6dOLxp4a50N5GiWlEqi
zE2Q1fD6Is8NAuPrAzF7G03ckFvxNpi0CI4mt2IQEqwsT/l9opcz6ns/
-----END PRIVATE KEY-----`;
const TEST_CERT = `-----BEGIN CERTIFICATE-----
MIIBqzCCAVCgAwIBAgIUYwMYOsoq485rx3tQzGI//JVtkYkwCgYIKoZIzj0EAwIw
GzEZMBcGA1UEAwwQbWVyY2hhbnQuaW52YWxpZDAgFw0yNjExMjExODQzNDlaGA8y
MTI2MTAyODE4NDM0OVowGzEZMBcGA1UEAwwQbWVyY2hhbnQuaW52YWxpZDBZMBMG
ByqGSM49AgEGCCqGSM49AwEHA0IABOxdEVcupIjHp04vGnhrnQ3kaJaUSqLMTZDV
8Poizw0C4+sDMXsbTdyQW/E2mLQIjia3YhASrCxP+X2ilzPqez+jcDBuMB0GA1Ud
DgQWBBTs+JzJ81aUpIpkrKcWIZzddNFvUTAfBgNVHSMEGDAWgBTs+JzJ81aUpIpk
rKcWIZzddNFvUTAPBgNVHRMBAf8EBTADAQH/MBsGA1UdEQQUMBKCEG1lcmNoYW50
LmludmFsaWQwCgYIKoZIzj0EAwIDSQAwRgIhAKlregAHMQpTkMBejAozFJT+XPZA
gj9Ypo4VC/NCbR4OAiEAwCVNzy/l5yvM14CBKVsFN0ef3+bi6QNghUKD9zIKtp4=
-----END CERTIFICATE-----`;
