/**
 * The fake STP on its own, for the local live stage:
 *   npx tsx test/support/fake-stp/cli.ts --providers-out .local/providers.json --callback-base http://127.0.0.1:3000
 *     [--port N] [--control-port 4200] [--webhook-token T]
 * writes a providers document pointing at it (mode 0600); STP's callbacks go to
 * <callback-base>/providers/stp/<webhook_token>/estado and /abono. A plain-HTTP control API on 127.0.0.1:
 *   GET  /orders                      every order (claveRastreo, estado, amount)
 *   POST /orders/{clave}/settle       LQ ({"callback": false}: only the query tells), /cancel (CN), /return (D)
 *   POST /abono                       {"clabe": "...", "monto": 49.5}: an incoming deposit to that CLABE
 *   POST /fail/{registra|consulta}    {"status": 503}, {"hang": true} or {"hangAfter": true}, {"times": 2}
 *   GET  /violations                  requests that broke STP's rules
 * until SIGINT or SIGTERM.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { parseArgs } from 'node:util';
import { controlServer } from '../control-server';
import { startFakeStp, type StpOp } from './index';

const { values } = parseArgs({
  options: {
    'providers-out': { type: 'string' },
    'callback-base': { type: 'string' },
    port: { type: 'string' },
    'control-port': { type: 'string', default: '4200' },
    'webhook-token': { type: 'string' },
  },
});
if (!values['providers-out'] || !values['callback-base']) {
  console.error('Usage: tsx test/support/fake-stp/cli.ts --providers-out FILE --callback-base URL [--port N] [--control-port N]');
  process.exit(2);
}

const stp = await startFakeStp({ port: values.port ? Number(values.port) : undefined });
const token = values['webhook-token'] ?? randomBytes(24).toString('base64url');
stp.setCallbackBase(`${values['callback-base'].replace(/\/$/, '')}/providers/stp/${token}`);
const out = values['providers-out'];
mkdirSync(dirname(out), { recursive: true });
writeFileSync(out, `${JSON.stringify({ stp: stp.stpConfig(token) }, null, 2)}\n`, { mode: 0o600 });

let abonoId = 1;
const control = controlServer(async ({ method, path, body }, reply) => {
  let m: RegExpExecArray | null;
  if (method === 'GET' && path === '/violations') return reply(200, stp.violations);
  if (method === 'GET' && path === '/orders') return reply(200, listOrders());
  if (method === 'POST' && (m = /^\/orders\/([A-Za-z0-9]+)\/(settle|cancel|return)$/.exec(path))) {
    const o = { callback: body.callback !== false };
    const clave = m[1] as string;
    const r =
      m[2] === 'settle' ? await stp.settle(clave, o) : m[2] === 'cancel' ? await stp.cancel(clave, o) : await stp.returnOrder(clave, o);
    return reply(200, { estado: stp.order(clave)?.estado, callback: r });
  }
  if (method === 'POST' && path === '/abono') {
    const r = await stp.sendAbono({
      id: abonoId++,
      fechaOperacion: Number(new Date().toISOString().slice(0, 10).replace(/-/g, '')),
      institucionOrdenante: 40072,
      institucionBeneficiaria: 90646,
      claveRastreo: `FAKE${Date.now()}`,
      monto: Number(body.monto),
      cuentaBeneficiario: String(body.clabe),
      empresa: stp.empresa,
      tsLiquidacion: Date.now(),
    });
    return reply(200, r);
  }
  if (method === 'POST' && (m = /^\/fail\/(registra|consulta)$/.exec(path))) {
    const how = body.hang
      ? ({ hang: true } as const)
      : body.hangAfter
        ? ({ hangAfter: true } as const)
        : { status: Number(body.status ?? 503) };
    stp.failNext(m[1] as StpOp, how, Number(body.times ?? 1));
    return reply(200, { op: m[1], how, times: Number(body.times ?? 1) });
  }
  reply(404, { error: `no ${method} ${path}` });
});

function listOrders() {
  const claves = new Set(
    stp.requests.filter((r) => r.path.endsWith('/registra')).map((r) => String((r.body as { claveRastreo?: string }).claveRastreo)),
  );
  return [...claves].flatMap((clave) => {
    const o = stp.order(clave);
    return o ? [{ claveRastreo: clave, estado: o.estado, monto: o.request.monto, id: o.id }] : [];
  });
}

control.listen(Number(values['control-port']), '127.0.0.1', () => {
  console.log(`Fake STP at ${stp.baseUrl}
  Providers document written to ${out} (webhook token ${token.slice(0, 6)}…)
  Control API: http://127.0.0.1:${values['control-port']}/orders, POST /orders/{clave}/settle|cancel|return, POST /abono, POST /fail/{op}
Ctrl-C stops it.`);
});

const stop = () => {
  control.close();
  void stp.close().then(() => process.exit(0));
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
