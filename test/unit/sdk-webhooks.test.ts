/**
 * webhooks.verify of the SDK against the service's own signer (shared/domain/webhooks/signature.ts) and an
 * independent Standard Webhooks implementation: both schemes, secret rotation, the 5-minute window, and
 * the refusals (tampered byte, wrong secret, missing or malformed headers, a parsed body).
 */
import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { SignatureVerificationError, webhooks } from '../../sdk/src/index.ts';
import { signatureHeaders } from '../../shared/domain/webhooks/signature';

const secret = () => `whsec_${randomBytes(32).toString('base64')}`;
const body = JSON.stringify({ event: 'payout.completed', event_id: 'evt_A1b2C3d4E5f6G7h8I9j0Kl', payout_id: 'po_1', amount: 10.5 });
const now = new Date('2026-11-23T14:05:09Z');
const ts = Math.floor(now.getTime() / 1000);
const signed = (secrets: string[], eventType = 'payout.completed', timestampSec = ts) =>
  signatureHeaders({ eventId: 'evt_A1b2C3d4E5f6G7h8I9j0Kl', eventType, timestampSec, rawBody: body, secrets }) as Record<string, string>;

it('accepts what the service signs, for either hex header, as string, Buffer or Uint8Array', () => {
  const s = secret();
  for (const type of ['payout.completed', 'payment.success']) {
    const headers = signed([s], type);
    expect(Object.keys(headers)).toContain(type === 'payout.completed' ? 'x-webhook-signature' : 'x-signature');
    expect(webhooks.verify(body, headers, s, { now })).toEqual(JSON.parse(body));
    expect(webhooks.verify(Buffer.from(body), headers, s, { now })).toEqual(JSON.parse(body));
    expect(webhooks.verify(new TextEncoder().encode(body), new Headers(headers), s, { now })).toEqual(JSON.parse(body));
  }
});

it('during a rotation (two values in each header) either secret verifies; a third does not', () => {
  const [current, previous] = [secret(), secret()];
  const headers = signed([current, previous]);
  expect(headers['x-webhook-signature']).toContain(',');
  expect(headers['webhook-signature']).toContain(' ');
  expect(webhooks.verify(body, headers, current, { now })).toMatchObject({ payout_id: 'po_1' });
  expect(webhooks.verify(body, headers, previous, { now })).toMatchObject({ payout_id: 'po_1' });
  expect(() => webhooks.verify(body, headers, secret(), { now })).toThrow(SignatureVerificationError);
});

it('the 5-minute window of Webhook-Timestamp, both ways, and a custom tolerance', () => {
  const s = secret();
  const at = (offsetSec: number) => signed([s], 'payout.completed', ts + offsetSec);
  expect(() => webhooks.verify(body, at(-300), s, { now })).not.toThrow();
  expect(() => webhooks.verify(body, at(300), s, { now })).not.toThrow();
  expect(() => webhooks.verify(body, at(-301), s, { now })).toThrow(/more than 300 s/);
  expect(() => webhooks.verify(body, at(301), s, { now })).toThrow(/more than 300 s/);
  expect(() => webhooks.verify(body, at(-301), s, { now, tolerance: 600 })).not.toThrow();
});

it('refuses a changed byte, a wrong secret, malformed or missing headers, and a parsed body', () => {
  const s = secret();
  const headers = signed([s]);
  expect(() => webhooks.verify(body.replace('10.5', '10.6'), headers, s, { now })).toThrow(SignatureVerificationError);
  expect(() => webhooks.verify(`${body} `, headers, s, { now })).toThrow(SignatureVerificationError);
  expect(() => webhooks.verify(body, headers, secret(), { now })).toThrow(SignatureVerificationError);
  expect(() => webhooks.verify(body, { ...headers, 'webhook-timestamp': `${ts}.5` }, s, { now })).toThrow(/unix seconds/);
  expect(() => webhooks.verify(body, { ...headers, 'webhook-id': 'evt_other' }, s, { now })).toThrow(/Webhook-Signature/);
  const { 'webhook-id': _id, ...noId } = headers;
  expect(() => webhooks.verify(body, noId, s, { now })).toThrow(/Missing Webhook-Id/);
  expect(() => webhooks.verify(body, {}, s, { now })).toThrow(/No webhook signature/);
  expect(() => webhooks.verify(JSON.parse(body), headers, s, { now })).toThrow(/raw body/);
});

it('generateTestHeaders signs as the service does: an independent Standard Webhooks library verifies them', () => {
  const s = secret();
  const headers = webhooks.generateTestHeaders(body, s, {
    id: 'evt_A1b2C3d4E5f6G7h8I9j0Kl',
    timestamp: now,
    hexHeader: 'X-Webhook-Signature',
  });
  const lower = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
  expect(lower).toEqual(signed([s]));
  const fresh = webhooks.generateTestHeaders(body, s);
  const lowerFresh = Object.fromEntries(Object.entries(fresh).map(([k, v]) => [k.toLowerCase(), v]));
  expect(new Webhook(s.slice('whsec_'.length)).verify(body, lowerFresh)).toEqual(JSON.parse(body));
  expect(webhooks.verify(body, fresh, s)).toEqual(JSON.parse(body));
});
