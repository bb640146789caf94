/**
 * The fake Efí on its own, for the local live stage:
 *   npx tsx test/support/fake-efi/cli.ts --providers-out .local/providers.json --callback-base http://127.0.0.1:3000
 *     [--port N] [--control-port 4500] [--webhook-token T] [--no-mtls]
 * adds an `efi` block pointing at it to the providers document (keeping the others there; mode 0600). Efí's
 * callbacks go to <callback-base>/providers/efi/<webhook_token>/pix. A plain-HTTP control API on 127.0.0.1:
 *   GET  /sends                         every send (idEnvio, status, valor)
 *   POST /sends/{idEnvio}/complete      REALIZADO ({"callback": false}: only the read-back tells)
 *   POST /sends/{idEnvio}/fail          NAO_REALIZADO ({"spi": "AC03"}, {"callback": false})
 *   POST /sends/{idEnvio}/return        the beneficiary's bank sends it back ({"valor": "1.00"} for part of it)
 *   POST /refuse                        {"beneficiary": "<key or ispb/agencia/conta>", "refusal": "keyNotFound" |
 *                                       "ownerMismatch" | "denied" | "balance" | "accountInvalid"}
 *   POST /received                      {"valor": "10.00"}: a Pix received; answers its endToEndId ({"endToEndId", "txid"}:
 *                                       the Pix the fake PSP settled a payment with, so a MED names that payment)
 *   POST /infractions                   {"endToEndId": "...", "tipoSituacao": "golpe"}: a MED opened on it
 *   POST /infractions/{id}/{status}     EM_DEFESA, ACEITA, REJEITADA, CANCELADA_EFI
 *   POST /infractions/{id}/close        {"outcome": "returned"} (ACEITA and a MED_FRAUDE return of the whole Pix) or
 *                                       {"outcome": "not_returned"} (REJEITADA)
 *   GET  /infractions/{id}/defense      the defense it took ({analise, justificativa}, attempts), 404 if none
 *   POST /med-return                    {"endToEndId": "...", "valor": "10.00"}: a MED_FRAUDE return of it
 *   GET  /cobs                          every cob of its API Pix pay-ins (txid, status, amount)
 *   GET  /cobs/{txid}                   one cob as Efí holds it
 *   POST /cobs/{txid}/pay               a payer pays it ({"amount": "49.00", "endToEndId", "callback": false} optional):
 *                                       the received Pix is posted to the key's webhook + /pix, where sends are told
 *   POST /devolucoes/{e2e}/{id}/DEVOLVIDO|NAO_REALIZADO  a devolução reaches its final state, told on the webhook
 *   POST /fail/{op}                     {"status": 503}, {"hang": true}, {"hangAfter": true} (carried out, held) or
 *                                       {"lost": true} (carried out, connection dropped), {"times": 2}; op is one of
 *                                       token, send, getSent, listInfractions, medDefense, getPix, putWebhook, getWebhook,
 *                                       putCob, getCob, patchCob, putDevolucao, getDevolucao
 *   POST /fault/refuse                  the whole of Efí down until cleared: refuse (connections refused), hang
 *   POST /fault/hang                    (every call taken, never answered), lost (every call but the token's
 *   POST /fault/lost                    carried out, its connection dropped unanswered), or a status (every call
 *   POST /fault/500                     answered it, e.g. /fault/503)
 *   POST /fault/clear                   the outage ends; scripted per-op faults not yet met are dropped
 *   GET  /fault                         the outage now (null: serving)
 *   GET  /violations                    requests off our schemas of Efí's API (and of API Pix on its routes)
 * until SIGINT or SIGTERM.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { parseArgs } from 'node:util';
import { controlServer } from '../control-server';
import { outageControl } from '../fake-listener';
import { REFUSALS, startFakeEfi, type EfiFakeOp } from './index';

const { values } = parseArgs({
  options: {
    'providers-out': { type: 'string' },
    'callback-base': { type: 'string' },
    port: { type: 'string' },
    'control-port': { type: 'string', default: '4500' },
    'webhook-token': { type: 'string' },
    'no-mtls': { type: 'boolean', default: false },
  },
});
if (!values['providers-out'] || !values['callback-base']) {
  console.error(
    'Usage: tsx test/support/fake-efi/cli.ts --providers-out FILE --callback-base URL [--port N] [--control-port N] [--no-mtls]',
  );
  process.exit(2);
}

const efi = await startFakeEfi({ port: values.port ? Number(values.port) : undefined, mtls: !values['no-mtls'] });
const token = values['webhook-token'] ?? randomBytes(24).toString('base64url');
efi.setWebhookUrl(`${values['callback-base'].replace(/\/$/, '')}/providers/efi/${token}`);
const out = values['providers-out'];
mkdirSync(dirname(out), { recursive: true });
const existing = existsSync(out) ? (JSON.parse(readFileSync(out, 'utf8')) as Record<string, unknown>) : {};
writeFileSync(out, `${JSON.stringify({ ...existing, efi: efi.efiConfig(token) }, null, 2)}\n`, { mode: 0o600 });

const OPS: readonly EfiFakeOp[] = [
  'token',
  'send',
  'getSent',
  'listInfractions',
  'medDefense',
  'getPix',
  'putWebhook',
  'getWebhook',
  'putCob',
  'getCob',
  'patchCob',
  'putDevolucao',
  'getDevolucao',
];
const STATUSES = ['EM_DEFESA', 'ACEITA', 'REJEITADA', 'CANCELADA_EFI'] as const;

const control = controlServer(async ({ method, path, body }, reply) => {
  let m: RegExpExecArray | null;
  if (await outageControl(efi, { method, path }, reply)) return;
  if (method === 'GET' && path === '/violations') return reply(200, efi.violations);
  if (method === 'GET' && path === '/cobs') {
    const txids = new Set(efi.requests.filter((r) => r.method === 'PUT' && r.path.startsWith('/v2/cob/')).map((r) => r.path.slice(8)));
    return reply(
      200,
      [...txids].flatMap((txid) => {
        const cob = efi.cob(txid);
        return cob ? [{ txid, status: cob.status, amount: cob.valor.original, created: cob.calendario.criacao }] : [];
      }),
    );
  }
  if (method === 'GET' && (m = /^\/cobs\/([^/]+)$/.exec(path))) {
    const cob = efi.cob(m[1] as string);
    return cob ? reply(200, cob) : reply(404, { error: 'no such cob' });
  }
  if (method === 'POST' && (m = /^\/cobs\/([^/]+)\/pay$/.exec(path))) {
    const paid = await efi.pay(m[1] as string, {
      ...(typeof body.amount === 'string' ? { amount: body.amount } : {}),
      ...(typeof body.endToEndId === 'string' ? { endToEndId: body.endToEndId } : {}),
      callback: body.callback !== false,
    });
    return reply(200, paid);
  }
  if (method === 'POST' && (m = /^\/devolucoes\/([A-Za-z0-9]+)\/([A-Za-z0-9]+)\/(DEVOLVIDO|NAO_REALIZADO)$/.exec(path))) {
    await efi.settleDevolucao(m[1] as string, m[2] as string, m[3] as 'DEVOLVIDO' | 'NAO_REALIZADO', { callback: body.callback !== false });
    return reply(200, { endToEndId: m[1], id: m[2], status: m[3] });
  }
  if (method === 'GET' && path === '/sends') {
    const ids = new Set(
      efi.requests.filter((r) => r.method === 'PUT' && r.path.startsWith('/v3/gn/pix/')).map((r) => r.path.split('/').pop()!),
    );
    return reply(
      200,
      [...ids].flatMap((id) => {
        const s = efi.send(id);
        return s ? [{ idEnvio: id, status: s.status, valor: s.request.valor, attempts: efi.attempts(id) }] : [];
      }),
    );
  }
  if (method === 'POST' && (m = /^\/sends\/([A-Za-z0-9]+)\/(complete|fail|return)$/.exec(path))) {
    const id = m[1] as string;
    const callback = body.callback !== false;
    if (m[2] === 'return') {
      efi.returnSend(id, typeof body.valor === 'string' ? body.valor : undefined);
      return reply(200, { idEnvio: id, returned: true });
    }
    const r =
      m[2] === 'complete'
        ? await efi.complete(id, { callback })
        : await efi.fail(id, { callback, spi: typeof body.spi === 'string' ? body.spi : undefined });
    return reply(200, { idEnvio: id, status: efi.send(id)?.status, callback: r });
  }
  if (method === 'POST' && path === '/refuse') {
    const how = REFUSALS[String(body.refusal) as keyof typeof REFUSALS];
    if (!how) return reply(400, { error: `refusal is one of ${Object.keys(REFUSALS).join(', ')}` });
    efi.refuse(String(body.beneficiary), how);
    return reply(200, { beneficiary: body.beneficiary, how });
  }
  if (method === 'POST' && path === '/received') {
    const opts = {
      ...(typeof body.endToEndId === 'string' ? { endToEndId: body.endToEndId } : {}),
      ...(typeof body.txid === 'string' ? { txid: body.txid } : {}),
    };
    return reply(200, { endToEndId: efi.receive(String(body.valor ?? '10.00'), opts) });
  }
  if (method === 'POST' && path === '/infractions') {
    const i = efi.openInfraction(String(body.endToEndId), {
      tipoSituacao: typeof body.tipoSituacao === 'string' ? body.tipoSituacao : undefined,
    });
    return reply(200, i);
  }
  if (method === 'POST' && (m = /^\/infractions\/([A-Za-z0-9._:-]+)\/close$/.exec(path))) {
    if (body.outcome !== 'returned' && body.outcome !== 'not_returned') return reply(400, { error: 'outcome is returned or not_returned' });
    efi.closeInfraction(m[1] as string, body.outcome);
    return reply(200, { idInfracao: m[1], outcome: body.outcome });
  }
  if (method === 'GET' && (m = /^\/infractions\/([A-Za-z0-9._:-]+)\/defense$/.exec(path))) {
    const d = efi.defense(m[1] as string);
    return d ? reply(200, { ...d, attempts: efi.defenseAttempts(m[1] as string) }) : reply(404, { error: 'no defense' });
  }
  if (method === 'POST' && (m = /^\/infractions\/([A-Za-z0-9._:-]+)\/([A-Z_]+)$/.exec(path))) {
    const status = m[2] as (typeof STATUSES)[number];
    if (!STATUSES.includes(status)) return reply(400, { error: `status is one of ${STATUSES.join(', ')}` });
    efi.setInfraction(m[1] as string, status);
    return reply(200, { idInfracao: m[1], status });
  }
  if (method === 'POST' && path === '/med-return') {
    efi.medReturn(String(body.endToEndId), String(body.valor), body.natureza === 'MED_OPERACIONAL' ? 'MED_OPERACIONAL' : 'MED_FRAUDE');
    return reply(200, { endToEndId: body.endToEndId, returned: body.valor });
  }
  if (method === 'POST' && (m = /^\/fail\/([A-Za-z]+)$/.exec(path)) && OPS.includes(m[1] as EfiFakeOp)) {
    const how = body.hang
      ? ({ hang: true } as const)
      : body.hangAfter
        ? ({ hangAfter: true } as const)
        : body.lost
          ? ({ lost: true } as const)
          : { status: Number(body.status ?? 503) };
    efi.failNext(m[1] as EfiFakeOp, how, Number(body.times ?? 1));
    return reply(200, { op: m[1], how, times: Number(body.times ?? 1) });
  }
  reply(404, { error: `no ${method} ${path}` });
});

control.listen(Number(values['control-port']), '127.0.0.1', () => {
  console.log(`Fake Efí at ${efi.baseUrl} (${values['no-mtls'] ? 'no client certificate asked' : 'mutual TLS'})
  Providers document written to ${out} (webhook token ${token.slice(0, 6)}…)
  Control API: http://127.0.0.1:${values['control-port']}/sends, POST /sends/{idEnvio}/complete|fail|return, POST /infractions,
    GET /cobs, POST /cobs/{txid}/pay, POST /fail/{op}, POST /fault/refuse|hang|lost|500|clear, GET /violations
Ctrl-C stops it.`);
});

const stop = () => {
  control.close();
  void efi.close().then(() => process.exit(0));
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
