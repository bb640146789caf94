/**
 * The fake Binance Pay on its own, for the local live stage:
 *   npx tsx test/support/fake-binance-pay/cli.ts --providers-out .local/providers.json [--control-port 4410] [--port N]
 * adds a `binance_pay` block pointing at it to the providers document (keeping the others there; mode 0600).
 * Webhooks go to each order's (or refund's) webhookUrl, signed with the fake's RSA key (published by its
 * certificates endpoint). A plain-HTTP control API on 127.0.0.1:
 *   GET  /orders                  every order (merchantTradeNo, prepayId, status, fiat, USDT)
 *   POST /pay                     {"ref": "bp... | prepayId", "amount": "12.5" (another USDT amount paid)}
 *   POST /close | /expire         {"ref": ...}  (then PAY_CLOSED)
 *   POST /notify                  {"ref": ..., "bizStatus": "PAY_CLOSED" (a stale copy), "sign": "good|forged|unknown_serial|none"}
 *                                 (send it twice for a duplicate)
 *   POST /webhooks                {"mode": "send" | "withhold" | "forge"} (what the fake does with the webhooks it sends itself)
 *   GET  /refunds                 every refund (refundRequestId, prepayId, status, USDT)
 *   POST /refund-status           {"refundRequestId": "br...", "status": "REFUND_SUCCESS" | "REFUND_FAIL"}
 *   POST /next-refund             {"status": "REFUND_SUCCESS"} (how the next refund is answered at once)
 *   POST /rate                    {"fiat": "BRL", "rate": "5.37"} (fiat units per USDT of the fake's quote)
 *   POST /rotate-key              {"dropOld": true}
 *   POST /fail/{orders|order|close|refunds|refund|certificates}  {"status": 500} | {"hang": true} |
 *                                 {"hangAfter": true} (done, answer lost) | {"refuse": "400203"}, {"times": 2}
 *   POST /clear-faults
 *   GET  /violations              requests off our schemas or unsigned
 * until SIGINT or SIGTERM.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { parseArgs } from 'node:util';
import { decimalOf } from '../../../shared/adapters/providers/binance-pay/binance-pay.transformers';
import { controlServer } from '../control-server';
import { startFakeBinancePay, type FakeBinanceOp, type Fault, type RefundStatus, type Signing, type WebhookMode } from './index';

const { values } = parseArgs({
  options: {
    'providers-out': { type: 'string' },
    'control-port': { type: 'string', default: '4410' },
    port: { type: 'string' },
  },
});
if (!values['providers-out']) {
  console.error('Usage: tsx test/support/fake-binance-pay/cli.ts --providers-out FILE [--control-port N] [--port N]');
  process.exit(2);
}

const bp = await startFakeBinancePay(values.port ? { port: Number(values.port) } : {});
const out = values['providers-out'];
mkdirSync(dirname(out), { recursive: true });
const existing = existsSync(out) ? (JSON.parse(readFileSync(out, 'utf8')) as Record<string, unknown>) : {};
writeFileSync(out, `${JSON.stringify({ ...existing, binance_pay: bp.binancePayConfig() }, null, 2)}\n`, { mode: 0o600 });

const OPS: readonly FakeBinanceOp[] = ['orders', 'order', 'close', 'refunds', 'refund', 'certificates'];
const str = (v: unknown) => (typeof v === 'string' ? v : '');
const signing = (v: unknown): Signing => (v === 'forged' || v === 'none' || v === 'unknown_serial' ? v : 'good');

const control = controlServer(async ({ method, path, body }, reply) => {
  let m: RegExpExecArray | null;
  const ref = str(body.ref);
  if (method === 'GET' && path === '/violations') return reply(200, bp.violations);
  if (method === 'GET' && path === '/orders') {
    const refs = new Set(
      bp.requests.filter((r) => r.path.endsWith('/v3/order')).map((r) => str((r.body as { merchantTradeNo?: unknown }).merchantTradeNo)),
    );
    return reply(
      200,
      [...refs].flatMap((mtn) => {
        const o = bp.order(mtn);
        return o
          ? [
              {
                merchantTradeNo: mtn,
                prepayId: o.prepayId,
                status: o.status,
                fiat: `${o.request.fiatAmount ?? ''} ${o.request.fiatCurrency ?? ''}`.trim(),
                usdt: decimalOf(o.orderAmount),
              },
            ]
          : [];
      }),
    );
  }
  if (method === 'GET' && path === '/refunds') {
    const ids = new Set(
      bp.requests
        .filter((r) => r.path.endsWith('/order/refund'))
        .map((r) => str((r.body as { refundRequestId?: unknown }).refundRequestId)),
    );
    return reply(
      200,
      [...ids].flatMap((id) => {
        const r = bp.refund(id);
        return r ? [{ refundRequestId: id, prepayId: r.prepayId, status: r.status, usdt: decimalOf(r.amount) }] : [];
      }),
    );
  }
  if (method === 'POST' && ['/pay', '/close', '/expire', '/notify'].includes(path) && !bp.order(ref))
    return reply(404, { error: `no order ${ref}` });
  if (method === 'POST' && path === '/pay')
    return reply(200, (await bp.pay(ref, typeof body.amount === 'string' ? { amount: body.amount } : {})) ?? { webhook: 'withheld' });
  if (method === 'POST' && path === '/close') return reply(200, (await bp.closeOrder(ref)) ?? { webhook: 'withheld' });
  if (method === 'POST' && path === '/expire') return reply(200, (await bp.expire(ref)) ?? { webhook: 'withheld' });
  if (method === 'POST' && path === '/notify')
    return reply(
      200,
      await bp.notify(ref, { sign: signing(body.sign), ...(typeof body.bizStatus === 'string' ? { bizStatus: body.bizStatus } : {}) }),
    );
  if (method === 'POST' && path === '/webhooks') {
    const mode = str(body.mode) as WebhookMode;
    if (!['send', 'withhold', 'forge'].includes(mode)) return reply(400, { error: 'mode must be send, withhold or forge' });
    bp.setWebhookMode(mode);
    return reply(200, { mode });
  }
  if (method === 'POST' && path === '/refund-status') {
    const id = str(body.refundRequestId);
    if (!bp.refund(id)) return reply(404, { error: `no refund ${id}` });
    return reply(200, (await bp.completeRefund(id, str(body.status) as RefundStatus)) ?? { status: body.status });
  }
  if (method === 'POST' && path === '/next-refund') {
    bp.nextRefund(str(body.status) as RefundStatus);
    return reply(200, { next: body.status });
  }
  if (method === 'POST' && path === '/rate') {
    bp.setRate(str(body.fiat), str(body.rate));
    return reply(200, { fiat: body.fiat, rate: body.rate });
  }
  if (method === 'POST' && path === '/rotate-key') return reply(200, { serial: await bp.rotateKey({ dropOld: body.dropOld === true }) });
  if (method === 'POST' && path === '/clear-faults') {
    bp.clearFaults();
    return reply(200, { cleared: true });
  }
  if (method === 'POST' && (m = /^\/fail\/([A-Za-z]+)$/.exec(path)) && OPS.includes(m[1] as FakeBinanceOp)) {
    const how: Fault =
      body.hang === true
        ? { hang: true }
        : body.hangAfter === true
          ? { hangAfter: true }
          : typeof body.refuse === 'string'
            ? { refuse: body.refuse }
            : { status: Number(body.status ?? 500) };
    bp.failNext(m[1] as FakeBinanceOp, how, Number(body.times ?? 1));
    return reply(200, { failing: m[1], how });
  }
  reply(404, { error: 'unknown control route' });
});
await new Promise<void>((resolve) => control.listen(Number(values['control-port']), '127.0.0.1', resolve));
console.log(`fake Binance Pay at ${bp.baseUrl}; providers written to ${out}; control on http://127.0.0.1:${values['control-port']}`);

const stop = async () => {
  control.close();
  await bp.close();
  process.exit(0);
};
process.on('SIGINT', () => void stop());
process.on('SIGTERM', () => void stop());
