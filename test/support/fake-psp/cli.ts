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
 *                              getDevolucao, putWebhook, getWebhook, and Pix Automático's postLocRec, postRec,
 *                              getRec, listRec, patchRec, postSolicRec, putCobr, getCobr, postRetentativa,
 *                              putWebhookRec, getWebhookRec, putWebhookCobr, getWebhookCobr) fail
 *   POST /fault/refuse         the whole PSP down until cleared: refuse (connections refused), hang (every call
 *   POST /fault/hang           taken, never answered), lost (every call but the token's carried out, its connection
 *   POST /fault/lost           dropped unanswered), or a status (every call answered it, e.g. /fault/500)
 *   POST /fault/500
 *   POST /fault/clear          the outage ends; scripted per-op faults not yet met are dropped
 *   GET  /fault                the outage now (null: serving)
 *   GET  /violations           requests that did not match the API Pix schemas
 * and Pix Automático (the providers document names `recebedor`, so the stack offers it), each change told on the
 * registered webhookrec (+ /rec) or webhookcobr (+ /cobr) unless the body says {"callback": false} ({"callback":
 * "twice"} posts it twice):
 *   GET  /recs, /recs/{idRec}  every rec, one rec as the PSP holds it
 *   POST /recs/{idRec}/approve|reject|expire   the payer approves ({"ispb": "60746948"} optional), rejects, or lets
 *                              the request expire
 *   POST /recs/{idRec}/payer-cancel            the payer cancels the recurrence in the bank app
 *   GET  /cobrs, /cobrs/{txid} every cobr, one cobr
 *   POST /cobrs/{txid}/settle  the scheduled attempt is paid (CONCLUIDA with its endToEndId)
 *   POST /cobrs/{txid}/fail    the scheduled attempt fails ({"code": "AC06"}: rejected with that SPI code; none: the
 *                              day passed unpaid); under PERMITE_3R_7D the cobr waits for a retentativa
 *   POST /auto-callbacks/on|off   the callbacks the PSP sends on its own (a cobr scheduled, a retry) sent or withheld
 * until SIGINT or SIGTERM.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { parseArgs } from 'node:util';
import { controlServer } from '../control-server';
import { outageControl } from '../fake-listener';
import { startFakePsp, type CallbackHow, type FakeOp } from './index';

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
writeFileSync(out, `${JSON.stringify({ api_pix: { ...psp.apiPixConfig(token), recebedor: psp.recebedor } }, null, 2)}\n`, {
  mode: 0o600,
});

const OPS: readonly FakeOp[] = [
  'token',
  'putCob',
  'getCob',
  'patchCob',
  'putDevolucao',
  'getDevolucao',
  'putWebhook',
  'getWebhook',
  'postLocRec',
  'postRec',
  'getRec',
  'listRec',
  'patchRec',
  'postSolicRec',
  'putCobr',
  'getCobr',
  'postRetentativa',
  'putWebhookRec',
  'getWebhookRec',
  'putWebhookCobr',
  'getWebhookCobr',
];
const how = (v: unknown): CallbackHow => (v === false ? false : v === 'twice' ? 'twice' : true);

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
  if (method === 'GET' && path === '/recs') return reply(200, psp.recs());
  if (method === 'GET' && (m = /^\/recs\/([A-Za-z0-9]+)$/.exec(path))) {
    const rec = psp.rec(m[1] as string);
    return rec ? reply(200, rec) : reply(404, { error: 'no such rec' });
  }
  if (method === 'POST' && (m = /^\/recs\/([A-Za-z0-9]+)\/(approve|reject|expire|payer-cancel)$/.exec(path))) {
    const [idRec, act] = [m[1] as string, m[2] as string];
    const callback = how(body.callback);
    const told =
      act === 'approve'
        ? await psp.approveRec(idRec, { ispb: body.ispb as string | undefined, callback })
        : act === 'reject'
          ? await psp.rejectRec(idRec, { callback })
          : act === 'expire'
            ? await psp.expireRec(idRec, { callback })
            : await psp.payerCancelRec(idRec, { callback });
    return reply(200, { idRec, status: psp.rec(idRec)?.status, ...told });
  }
  if (method === 'GET' && path === '/cobrs') return reply(200, psp.cobrs());
  if (method === 'GET' && (m = /^\/cobrs\/([A-Za-z0-9]+)$/.exec(path))) {
    const cobr = psp.cobr(m[1] as string);
    return cobr ? reply(200, cobr) : reply(404, { error: 'no such cobr' });
  }
  if (method === 'POST' && (m = /^\/cobrs\/([A-Za-z0-9]+)\/(settle|fail)$/.exec(path))) {
    const txid = m[1] as string;
    const told =
      m[2] === 'settle'
        ? await psp.settleCobr(txid, { callback: how(body.callback) })
        : await psp.failCobrAttempt(txid, { code: body.code as string | undefined, callback: how(body.callback) });
    return reply(200, { txid, status: psp.cobr(txid)?.status, ...told });
  }
  if (method === 'POST' && (m = /^\/auto-callbacks\/(on|off)$/.exec(path))) {
    psp.autoCallbacks(m[1] === 'on');
    return reply(200, { autoCallbacks: m[1] });
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
    POST /fault/refuse|hang|lost|500|clear, GET /violations,
    Pix Automático: GET /recs, POST /recs/{idRec}/approve|reject|expire|payer-cancel, GET /cobrs, POST /cobrs/{txid}/settle|fail
Ctrl-C stops it.`);
});

const stop = () => {
  control.close();
  void psp.close().then(() => process.exit(0));
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
