/**
 * The fake dLocal on its own, for the local live stage:
 *   npx tsx test/support/fake-dlocal/cli.ts --providers-out .local/providers.json [--control-port 4400] [--port N]
 * adds a `dlocal` block pointing at it to the providers document (keeping the others there; mode 0600).
 * Notifications go where each payment, refund or payout asked (its notification_url), signed as dLocal signs them.
 * A plain-HTTP control API on 127.0.0.1:
 *   GET  /payments | /payouts      every payment (order_id, id, status, method, amount; a Bre-B QR's qr_code and
 *                                  qr_expires; an open Pix's pix_code) / payout (external_id, ...)
 *   POST /status                   {"order_id": "dp...", "status": "PAID" | "REJECTED" | "CANCELLED" | "EXPIRED",
 *                                   "status_code": "302", "notify": true, "sign": "forged",
 *                                   "paid_amount": 99.5 (dLocal reports another amount than asked)}
 *   POST /notify                   {"order_id": "dp...", "status": "PENDING" (a stale copy), "sign": "good|forged|none"}
 *                                  (send it twice for a duplicate; never for a skipped notification)
 *   POST /payout-status            {"external_id": "do...", "status": "PAID" | "REJECTED" | "ON_HOLD" | ..., "reason":
 *                                   "ERROR_ACCOUNT_INCORRECT", "notify": true, "sign": "good"}
 *   POST /refund-status            {"id": "REF-...", "status": "SUCCESS", "notify": true}
 *   POST /next-payment             {"status": "REJECTED", "statusCode": "301"} or {"refuse": 5007}
 *   GET  /refunds                  every refund (id, order_refund_id, payment_id, status, amount)
 *   POST /next-refund              {"status": "SUCCESS" | "REJECTED" | "CANCELLED"} (the next refund's answer)
 *   POST /refuse                   {"mode": "reset"} (every connection reset before a byte) | {"mode": "closed"} (the
 *                                  listener closed: connections refused) | {"mode": "off"}
 *   GET  /cards                    every card payment (order_id, id, status, status_code, last4, amount, currency)
 *   POST /card-status              {"order_id": "dc...", "status": "PAID" | "REJECTED" | "CANCELLED", "status_code":
 *                                  "321", "notify": true}. Test cards: cards.ts FAKE_CARDS (4111111111111111 paid,
 *                                  4000000000000NNN rejected NNN, 4000000000002503 3-D Secure on its page /3ds/{id})
 *   POST /fail/{payments|secure_payments|payment|order|cancel|refunds|refund|token|payouts|payout}  {"status": 500} | {"hang": true} |
 *                                  {"hangAfter": true} (done, answer lost) | {"dropAfter": true} (done, connection
 *                                  dropped) | {"status": 400, "code": 5014} (a documented refusal), {"times": 2}
 *   POST /pix-refuse               {"key": "<PIX key>", "code": 5013, "status": 400}: a Brazilian PIX payout to that
 *                                  key is refused with that code (nothing made)
 *   POST /token-lifetime           {"seconds": 30}
 *   GET  /violations               requests off our schemas or unsigned
 * Every method the fake knows (state.ts FAKE_METHODS: Peru EF IO YP BC, Colombia PC QP EY BQ, Chile WP SP,
 * Argentina IO, Brazil OF MP PP NU PQ) is paid, rejected or expired with POST /status (a Pix, PQ with its `dq...`
 * order_id, as the payer's bank app would; "notify": true posts its notification); a REDIRECT one also from its
 * redirect_url's page (Pay / Reject), a Bre-B QR (BQ, DIRECT) only with /status, as the shopper's bank app would.
 * A payout, bank or Brazilian PIX (GET /payouts lists both), is paid, rejected or held with POST /payout-status.
 * until SIGINT or SIGTERM.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { parseArgs } from 'node:util';
import type { PaymentStatus, PayoutStatus } from '../../../shared/adapters/providers/dlocal/dlocal.schemas';
import { controlServer } from '../control-server';
import { startFakeDlocal, type FakeDlocalOp, type PaymentScript, type Signing } from './index';

const { values } = parseArgs({
  options: {
    'providers-out': { type: 'string' },
    'control-port': { type: 'string', default: '4400' },
    port: { type: 'string' },
  },
});
if (!values['providers-out']) {
  console.error('Usage: tsx test/support/fake-dlocal/cli.ts --providers-out FILE [--control-port N] [--port N]');
  process.exit(2);
}

const dlocal = await startFakeDlocal(values.port ? { port: Number(values.port) } : {});
const out = values['providers-out'];
mkdirSync(dirname(out), { recursive: true });
const existing = existsSync(out) ? (JSON.parse(readFileSync(out, 'utf8')) as Record<string, unknown>) : {};
writeFileSync(out, `${JSON.stringify({ ...existing, dlocal: dlocal.dlocalConfig() }, null, 2)}\n`, { mode: 0o600 });

const OPS: readonly FakeDlocalOp[] = [
  'payments',
  'secure_payments',
  'payment',
  'order',
  'cancel',
  'refunds',
  'refund',
  'token',
  'payouts',
  'payout',
  'methods',
];
const signing = (v: unknown): Signing => (v === 'forged' || v === 'none' ? v : 'good');
const str = (v: unknown) => (typeof v === 'string' ? v : '');

const control = controlServer(async ({ method, path, body }, reply) => {
  let m: RegExpExecArray | null;
  if (method === 'GET' && path === '/violations') return reply(200, dlocal.violations);
  if (method === 'GET' && path === '/payments') {
    const ids = new Set(dlocal.requests.filter((r) => r.path === '/payments').map((r) => str((r.body as { order_id?: unknown }).order_id)));
    return reply(
      200,
      [...ids].flatMap((orderId) => {
        const p = dlocal.payment(orderId);
        if (!p) return [];
        const qr = p.request.payment_method_id === 'BQ' && p.status === 'PENDING' ? dlocal.qrOf(orderId) : null;
        const pixCode = p.request.payment_method_id === 'PQ' ? dlocal.pixPayIns.code(orderId) : null;
        return [
          {
            order_id: orderId,
            id: p.id,
            status: p.status,
            method: p.request.payment_method_id,
            amount: p.request.amount,
            ...(qr ? { qr_code: qr.qr_code, qr_expires: qr.expiration_date } : {}),
            ...(pixCode ? { pix_code: pixCode } : {}),
          },
        ];
      }),
    );
  }
  if (method === 'GET' && path === '/payouts') {
    const ids = new Set(
      dlocal.requests.filter((r) => r.path === '/payouts/v3').map((r) => str((r.body as { external_id?: unknown }).external_id)),
    );
    return reply(
      200,
      [...ids].flatMap((externalId) => {
        const p = dlocal.payout(externalId);
        return p ? [{ external_id: externalId, id: p.id, status: p.status, amount: p.request.amount, currency: p.request.currency }] : [];
      }),
    );
  }
  if (method === 'POST' && path === '/status') {
    const orderId = str(body.order_id);
    if (!dlocal.payment(orderId)) return reply(404, { error: `no payment ${orderId}` });
    if (typeof body.paid_amount === 'number') dlocal.setPaidAmount(orderId, body.paid_amount);
    dlocal.setStatus(orderId, str(body.status) as PaymentStatus, typeof body.status_code === 'string' ? body.status_code : undefined);
    return reply(200, body.notify ? await dlocal.notify(orderId, { sign: signing(body.sign) }) : { status: body.status });
  }
  if (method === 'POST' && path === '/notify') {
    const orderId = str(body.order_id);
    if (!dlocal.payment(orderId)) return reply(404, { error: `no payment ${orderId}` });
    const status = typeof body.status === 'string' ? (body.status as PaymentStatus) : undefined;
    return reply(200, await dlocal.notify(orderId, { sign: signing(body.sign), ...(status ? { status } : {}) }));
  }
  if (method === 'POST' && path === '/payout-status') {
    const externalId = str(body.external_id);
    if (!dlocal.payout(externalId)) return reply(404, { error: `no payout ${externalId}` });
    dlocal.setPayoutStatus(externalId, str(body.status) as PayoutStatus, typeof body.reason === 'string' ? body.reason : undefined);
    return reply(200, body.notify ? await dlocal.notifyPayout(externalId, { sign: signing(body.sign) }) : { status: body.status });
  }
  if (method === 'GET' && path === '/refunds') {
    const refs = new Set(
      dlocal.requests.filter((r) => r.path === '/refunds').map((r) => str((r.body as { order_refund_id?: unknown }).order_refund_id)),
    );
    return reply(
      200,
      [...refs].flatMap((ref) =>
        dlocal
          .refundsFor(ref)
          .map((x) => ({ id: x.id, order_refund_id: ref, payment_id: x.paymentId, status: x.status, amount: x.amount })),
      ),
    );
  }
  if (method === 'POST' && path === '/next-refund') {
    dlocal.nextRefund(str(body.status) as 'SUCCESS');
    return reply(200, { next: body });
  }
  if (method === 'POST' && path === '/refund-status') {
    const id = str(body.id);
    if (!dlocal.refund(id)) return reply(404, { error: `no refund ${id}` });
    dlocal.setRefundStatus(id, str(body.status) as 'SUCCESS');
    return reply(200, body.notify ? await dlocal.notifyRefund(id, { sign: signing(body.sign) }) : { status: body.status });
  }
  if (method === 'POST' && path === '/next-payment') {
    dlocal.nextPayment(body as unknown as PaymentScript);
    return reply(200, { next: body });
  }
  if (method === 'GET' && path === '/cards') {
    return reply(
      200,
      [...dlocal.cards.byOrderId.entries()].map(([orderId, p]) => ({
        order_id: orderId,
        id: p.id,
        status: p.status,
        status_code: p.statusCode,
        last4: p.last4,
        amount: p.request.amount,
        currency: p.request.currency,
      })),
    );
  }
  if (method === 'POST' && path === '/card-status') {
    const orderId = str(body.order_id);
    if (!dlocal.cards.byOrderId.has(orderId)) return reply(404, { error: `no card payment ${orderId}` });
    const code = typeof body.status_code === 'string' ? body.status_code : undefined;
    dlocal.cards.setStatus(orderId, str(body.status) as PaymentStatus, code);
    return reply(200, body.notify ? await dlocal.cards.notify(orderId) : { status: body.status });
  }
  if (method === 'POST' && path === '/refuse') {
    const mode = body.mode === 'reset' || body.mode === 'closed' ? body.mode : null;
    await dlocal.refuseConnections(mode);
    return reply(200, { refusing: mode ?? 'off' });
  }
  if (method === 'POST' && path === '/pix-refuse') {
    const how = { code: Number(body.code ?? 5013), status: Number(body.status ?? 400) };
    dlocal.refusePixKey(str(body.key), how);
    return reply(200, { refusing: how });
  }
  if (method === 'POST' && path === '/token-lifetime') {
    dlocal.setTokenLifetime(Number(body.seconds ?? 180));
    return reply(200, { seconds: Number(body.seconds ?? 180) });
  }
  if (method === 'POST' && (m = /^\/fail\/([A-Za-z_]+)$/.exec(path)) && OPS.includes(m[1] as FakeDlocalOp)) {
    const how =
      body.hang === true
        ? { hang: true as const }
        : body.hangAfter === true
          ? { hangAfter: true as const }
          : body.dropAfter === true
            ? { dropAfter: true as const }
            : { status: Number(body.status ?? 500), ...(body.code === undefined ? {} : { code: Number(body.code) }) };
    dlocal.failNext(m[1] as FakeDlocalOp, how, Number(body.times ?? 1));
    return reply(200, { failing: m[1], how });
  }
  reply(404, { error: 'unknown control route' });
});
await new Promise<void>((resolve) => control.listen(Number(values['control-port']), '127.0.0.1', resolve));
console.log(`fake dLocal at ${dlocal.baseUrl}; providers written to ${out}; control on http://127.0.0.1:${values['control-port']}`);

const stop = async () => {
  control.close();
  await dlocal.close();
  process.exit(0);
};
process.on('SIGINT', () => void stop());
process.on('SIGTERM', () => void stop());
