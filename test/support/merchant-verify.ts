/**
 * The merchant-side verification recipe docs/webhooks.md shows, kept here so tests run it against real
 * deliveries. Everything between the markers is pasted verbatim into docs/webhooks.md (a test checks
 * they match), so it must stay self-contained: node:crypto only, nothing from this repository.
 */
// --- verify-webhook: begin ---
// Verify a webhook before trusting it. Pass the RAW body (the exact bytes received, before any
// JSON parsing), the request headers and your webhook secret (whsec_...). It checks both
// X-Signature / X-Webhook-Signature (hex HMAC-SHA256 of the body, keyed with the whole secret)
// and the Standard Webhooks Webhook-Signature (which also binds Webhook-Id and
// Webhook-Timestamp), rejecting timestamps more than 5 minutes off. Deliveries are
// at-least-once: skip a Webhook-Id you have already processed.
import { createHmac, timingSafeEqual } from 'node:crypto';

type Verified = { ok: true; event: unknown } | { ok: false; reason: string };

// Constant-time: does any of the candidate strings equal the expected one?
function anyEqual(candidates: string[], expected: string): boolean {
  const want = Buffer.from(expected);
  return candidates.some((c) => Buffer.byteLength(c) === want.length && timingSafeEqual(Buffer.from(c), want));
}

export function verifyWebhook(rawBody: Buffer | string, headers: Record<string, string | undefined>, secret: string, nowSec = Math.floor(Date.now() / 1000)): Verified {
  const h: Record<string, string | undefined> = {};
  for (const [name, value] of Object.entries(headers)) h[name.toLowerCase()] = value;
  const body = typeof rawBody === 'string' ? Buffer.from(rawBody, 'utf8') : rawBody;

  // 1. Hex signature(s), comma-separated while a secret rotation is in progress.
  const hex = h['x-signature'] ?? h['x-webhook-signature'];
  if (!hex) return { ok: false, reason: 'missing X-Signature / X-Webhook-Signature' };
  const expectedHex = createHmac('sha256', secret).update(body).digest('hex');
  if (!anyEqual(hex.split(',').map((s) => s.trim().toLowerCase()), expectedHex)) return { ok: false, reason: 'bad X-Signature' };

  // 2. Standard Webhooks: "v1,<base64>" values separated by spaces, over "id.timestamp.body".
  const id = h['webhook-id'], ts = h['webhook-timestamp'], sig = h['webhook-signature'];
  if (!id || !ts || !sig) return { ok: false, reason: 'missing Webhook-Id / Webhook-Timestamp / Webhook-Signature' };
  if (!/^\d+$/.test(ts) || Math.abs(nowSec - Number(ts)) > 300) return { ok: false, reason: 'timestamp too old or too new' };
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const expectedV1 = createHmac('sha256', key).update(`${id}.${ts}.`).update(body).digest('base64');
  const given = sig.split(' ').filter((s) => s.startsWith('v1,')).map((s) => s.slice(3));
  if (!anyEqual(given, expectedV1)) return { ok: false, reason: 'bad Webhook-Signature' };

  return { ok: true, event: JSON.parse(body.toString('utf8')) };
}
// --- verify-webhook: end ---
