/**
 * The fake Adyen on its own, for the local live stage:
 *   npx tsx test/support/fake-adyen/cli.ts --providers-out .local/providers.json --notify-base http://127.0.0.1:3000
 *     [--control-port 4300]
 * adds an `adyen` block pointing at it to the providers document (keeping the others there: API Pix, STP; mode
 * 0600). Its notifications, signed with the real HMAC, go to <notify-base>/providers/adyen/notifications. A
 * plain-HTTP control API on 127.0.0.1:
 *   GET  /payments                 every payment (reference, pspReference, resultCode, amount, method)
 *   POST /next-card                {"resultCode": "Refused", "refusalReasonCode": "12"}: how the next card answers
 *   POST /notify                   {"reference": "pi...", "eventCode": "AUTHORISATION"} (also "success": false,
 *                                  "value": minor units, "disputeStatus", "pspReference" of a dispute case, "sign":
 *                                  "forged"): one signed notification; answers what the service answered
 *   POST /next-stored-charge       {"resultCode": "Refused", "refusalReasonCode": "12"}: how the next ContAuth charge on a
 *                                  stored card answers (else by amount: cents 51 balance, 52/53 soft, 54 expired)
 *   GET  /stored-payment-methods   every stored card (token, shopperReference, brand, last four, disabled)
 *   POST /disputes                 {"reference": "pi...", "reasonCode": "10.4", "pspReference"?}: opens a dispute (a
 *                                  chargeback of that payment) for the Disputes API; answers it
 *   GET  /disputes/{pspReference}  the dispute: defense reasons, supplied documents (type, content type, bytes), defended
 *                                  with, accepted, closed
 *   POST /disputes/{pspReference}/notify  {"eventCode": "CHARGEBACK"}: one signed notice of that dispute
 *   POST /fail/{payments|paymentDetails|refunds|cancels|storedPaymentMethods|retrieveApplicableDefenseReasons|
 *              supplyDefenseDocument|deleteDisputeDefenseDocument|defendDispute|acceptDispute}
 *                                  {"status": 500}, {"hang": true} or {"lost": true} (carried out, answer lost), {"times": 2}
 *   GET  /violations               requests off our schemas of Checkout v71
 * until SIGINT or SIGTERM.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { parseArgs } from 'node:util';
import { controlServer } from '../control-server';
import { ADYEN_DISPUTE_OPS } from '../../../shared/adapters/providers/adyen/adyen.client';
import { startFakeAdyen, type CardScript, type FakeAdyenOp, type FakeDispute } from './index';
import type { StoredChargeScript } from './stored-methods';

const { values } = parseArgs({
  options: {
    'providers-out': { type: 'string' },
    'notify-base': { type: 'string' },
    'control-port': { type: 'string', default: '4300' },
  },
});
if (!values['providers-out'] || !values['notify-base']) {
  console.error('Usage: tsx test/support/fake-adyen/cli.ts --providers-out FILE --notify-base URL [--control-port N]');
  process.exit(2);
}

const adyen = await startFakeAdyen();
adyen.setNotificationUrl(`${values['notify-base'].replace(/\/$/, '')}/providers/adyen/notifications`);
const out = values['providers-out'];
mkdirSync(dirname(out), { recursive: true });
const existing = existsSync(out) ? (JSON.parse(readFileSync(out, 'utf8')) as Record<string, unknown>) : {};
writeFileSync(out, `${JSON.stringify({ ...existing, adyen: adyen.adyenConfig() }, null, 2)}\n`, { mode: 0o600 });

const OPS: readonly FakeAdyenOp[] = ['payments', 'paymentDetails', 'refunds', 'cancels', 'storedPaymentMethods', ...ADYEN_DISPUTE_OPS];
const disputeView = ({ documents, ...d }: FakeDispute) => ({
  ...d,
  documents: [...documents].map(([type, x]) => ({ type, contentType: x.contentType, bytes: x.bytes })),
});

const control = controlServer(async ({ method, path, body }, reply) => {
  let m: RegExpExecArray | null;
  if (method === 'GET' && path === '/violations') return reply(200, adyen.violations);
  if (method === 'GET' && path === '/payments') {
    const refs = new Set(adyen.requests.filter((r) => r.path === '/payments').map((r) => (r.body as { reference: string }).reference));
    return reply(
      200,
      [...refs].map((ref) => {
        const p = adyen.payment(ref);
        return (
          p && {
            reference: ref,
            pspReference: p.pspReference,
            resultCode: p.resultCode,
            amount: p.request.amount,
            method: p.request.paymentMethod.type,
          }
        );
      }),
    );
  }
  if (method === 'POST' && path === '/next-card') {
    adyen.nextCard(body as unknown as CardScript);
    return reply(200, { next: body });
  }
  if (method === 'POST' && path === '/next-stored-charge') {
    adyen.nextStoredCharge(body as unknown as StoredChargeScript);
    return reply(200, { next: body });
  }
  if (method === 'GET' && path === '/stored-payment-methods')
    return reply(
      200,
      adyen.storedMethods().map(({ fingerprint: _f, ...m }) => m),
    );
  if (method === 'POST' && path === '/notify') {
    const reference = String(body.reference ?? '');
    const p = adyen.payment(reference);
    if (!p) return reply(404, { error: `no payment ${reference}` });
    const item = adyen.item(
      {
        eventCode: String(body.eventCode ?? 'AUTHORISATION'),
        merchantReference: reference,
        success: body.success === false ? 'false' : 'true',
        ...(typeof body.value === 'number' ? { amount: { currency: p.request.amount.currency, value: body.value } } : {}),
        ...(typeof body.pspReference === 'string' ? { pspReference: body.pspReference, originalReference: p.pspReference } : {}),
        ...(typeof body.disputeStatus === 'string' ? { additionalData: { disputeStatus: body.disputeStatus } } : {}),
      },
      body.sign === 'forged' ? 'forged' : 'good',
    );
    return reply(200, await adyen.notify([item]));
  }
  if (method === 'POST' && path === '/disputes') {
    const p = adyen.payment(String(body.reference ?? ''));
    if (!p) return reply(404, { error: `no payment ${String(body.reference ?? '')}` });
    const d = adyen.openDispute({
      paymentPspReference: p.pspReference,
      reasonCode: String(body.reasonCode ?? '10.4'),
      ...(typeof body.pspReference === 'string' ? { pspReference: body.pspReference } : {}),
    });
    return reply(200, disputeView(d));
  }
  if ((m = /^\/disputes\/([A-Za-z0-9]{16})(\/notify)?$/.exec(path))) {
    const d = adyen.dispute(m[1] as string);
    if (!d) return reply(404, { error: `no dispute ${m[1]}` });
    if (method === 'GET' && !m[2]) return reply(200, disputeView(d));
    if (method === 'POST' && m[2])
      return reply(200, await adyen.notify([adyen.disputeItem(d.pspReference, String(body.eventCode ?? 'CHARGEBACK'))]));
  }
  if (method === 'POST' && (m = /^\/fail\/([A-Za-z]+)$/.exec(path)) && OPS.includes(m[1] as FakeAdyenOp)) {
    const how =
      body.hang === true ? { hang: true as const } : body.lost === true ? { lost: true as const } : { status: Number(body.status ?? 500) };
    adyen.failNext(m[1] as FakeAdyenOp, how, Number(body.times ?? 1));
    return reply(200, { failing: m[1], how });
  }
  reply(404, { error: 'unknown control route' });
});
await new Promise<void>((resolve) => control.listen(Number(values['control-port']), '127.0.0.1', resolve));
console.log(`fake Adyen at ${adyen.baseUrl}; providers written to ${out}; control on http://127.0.0.1:${values['control-port']}`);

const stop = async () => {
  control.close();
  await adyen.close();
  process.exit(0);
};
process.on('SIGINT', () => void stop());
process.on('SIGTERM', () => void stop());
