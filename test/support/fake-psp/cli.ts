/**
 * The fake PSP on its own, for the local live stage (docs/live-stage.md "Live PIX through API Pix"):
 *   npx tsx test/support/fake-psp/cli.ts --providers-out .local/providers.json [--port N] [--control-port 4100] [--webhook-token T]
 * writes a providers document pointing at it (mode 0600) and serves a plain-HTTP control API on 127.0.0.1:
 *   GET  /cobs                 every cob (txid, status, amount)
 *   GET  /cobs/{txid}          one cob as the PSP holds it
 *   POST /cobs/{txid}/pay      pay it ({"amount": "49.00", "callback": false} optional)
 *   POST /devolucoes/{e2e}/{id}/DEVOLVIDO|NAO_REALIZADO  the devolução reaches its final state, told on the webhook
 *                              ({"callback": false}: only the read-back tells)
 *   POST /pix/{e2e}/med-return {"valor": "10.00", "natureza": "MED_OPERACIONAL"} optional: the PSP returns the Pix for
 *                              fraud (MED; MED_FRAUDE by default) and tells it on the webhook
 *   POST /fail/{op}            {"status": 503}, {"hang": true} or {"lost": true} (carried out, connection dropped),
 *                              {"times": 2}: the next calls of op (token, putCob, getCob, patchCob, putDevolucao,
 *                              getDevolucao, putWebhook, getWebhook) fail
 *   POST /fault/refuse         the whole PSP down until cleared: refuse (connections refused), hang (every call
 *   POST /fault/hang           taken, never answered), lost (every call but the token's carried out, its connection
 *   POST /fault/lost           dropped unanswered), or a status (every call answered it, e.g. /fault/500)
 *   POST /fault/500
 *   POST /fault/clear          the outage ends; scripted per-op faults not yet met are dropped
 *   GET  /fault                the outage now (null: serving)
 *   GET  /violations           requests that did not match the API Pix schemas
 * until SIGINT or SIGTERM.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { parseArgs } from 'node:util';
import { controlServer } from '../control-server';
import { outageControl } from '../fake-listener';
import { startFakePsp, type FakeOp } from './index';

const { values } = parseArgs({
  options: {
    'providers-out': { type: 'string' },
    port: { type: 'string' },
    'control-port': { type: 'string', default: '4100' },
    'webhook-token': { type: 'string' },
  },
});
if (!values['providers-out']) {
  console.error('Usage: tsx test/support/fake-psp/cli.ts --providers-out FILE [--port N] [--control-port N] [--webhook-token T]');
  process.exit(2);
}

const psp = await startFakePsp({ port: values.port ? Number(values.port) : undefined });
const token = values['webhook-token'] ?? randomBytes(24).toString('base64url');
const out = values['providers-out'];
mkdirSync(dirname(out), { recursive: true });
writeFileSync(out, `${JSON.stringify({ api_pix: psp.apiPixConfig(token) }, null, 2)}\n`, { mode: 0o600 });

const OPS: readonly FakeOp[] = ['token', 'putCob', 'getCob', 'patchCob', 'putDevolucao', 'getDevolucao', 'putWebhook', 'getWebhook'];

const control = controlServer(async ({ method, path, body }, reply) => {
  let m: RegExpExecArray | null;
  if (await outageControl(psp, { method, path }, reply)) return;
  if (method === 'GET' && path === '/cobs') return reply(200, listCobs());
  if (method === 'GET' && path === '/violations') return reply(200, psp.violations);
  if (method === 'GET' && (m = /^\/cobs\/([^/]+)$/.exec(path))) {
    const cob = psp.cob(m[1] as string);
    return cob ? reply(200, cob) : reply(404, { error: 'no such cob' });
  }
  if (method === 'POST' && (m = /^\/cobs\/([^/]+)\/pay$/.exec(path))) {
    const paid = await psp.pay(m[1] as string, { amount: body.amount as string | undefined, callback: body.callback !== false });
    return reply(200, paid);
  }
  if (method === 'POST' && (m = /^\/devolucoes\/([A-Za-z0-9]+)\/([A-Za-z0-9]+)\/(DEVOLVIDO|NAO_REALIZADO)$/.exec(path))) {
    await psp.settleDevolucao(m[1] as string, m[2] as string, m[3] as 'DEVOLVIDO' | 'NAO_REALIZADO', { callback: body.callback !== false });
    return reply(200, { endToEndId: m[1], id: m[2], status: m[3] });
  }
  if (method === 'POST' && (m = /^\/pix\/([A-Za-z0-9]+)\/med-return$/.exec(path))) {
    const natureza = body.natureza === 'MED_OPERACIONAL' ? 'MED_OPERACIONAL' : 'MED_FRAUDE';
    const r = await psp.medReturn(m[1] as string, String(body.valor ?? '10.00'), { natureza });
    return reply(200, { endToEndId: m[1], devolucoes: r.pix.devolucoes, callback: r.callback });
  }
  if (method === 'POST' && (m = /^\/fail\/([A-Za-z]+)$/.exec(path)) && OPS.includes(m[1] as FakeOp)) {
    const how = body.hang ? ({ hang: true } as const) : body.lost ? ({ lost: true } as const) : { status: Number(body.status ?? 503) };
    psp.failNext(m[1] as FakeOp, how, Number(body.times ?? 1));
    return reply(200, { op: m[1], how, times: Number(body.times ?? 1) });
  }
  reply(404, { error: `no ${method} ${path}` });
});

const seen = new Set<string>();
function listCobs() {
  for (const r of psp.requests) if (r.method === 'PUT' && r.path.startsWith('/cob/')) seen.add(r.path.slice('/cob/'.length));
  return [...seen].map((txid) => {
    const cob = psp.cob(txid);
    return { txid, status: cob?.status, amount: cob?.valor.original, created: cob?.calendario.criacao };
  });
}

control.listen(Number(values['control-port']), '127.0.0.1', () => {
  console.log(`Fake PSP (API Pix over mutual TLS) at ${psp.baseUrl}
  Providers document written to ${out} (webhook token ${token.slice(0, 6)}…)
  Control API: http://127.0.0.1:${values['control-port']}/cobs, POST /cobs/{txid}/pay, POST /fail/{op},
    POST /fault/refuse|hang|lost|500|clear, GET /violations
Ctrl-C stops it.`);
});

const stop = () => {
  control.close();
  void psp.close().then(() => process.exit(0));
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
