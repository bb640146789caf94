/**
 * Webhook signatures (DESIGN.md section 5, SPEC.md section 6). Pure: node:crypto only.
 *
 * Every delivery carries two independent signatures over the exact raw body bytes:
 *
 * - `X-Signature` (payment events) or `X-Webhook-Signature` (payout events, `payout.*`):
 *   lowercase hex HMAC-SHA256 of the raw body, keyed with the WHOLE secret string as the
 *   merchant received it (UTF-8 bytes, `whsec_` prefix included).
 * - Standard Webhooks (https://www.standardwebhooks.com): `Webhook-Id` (the event id, stable
 *   across retries), `Webhook-Timestamp` (unix seconds) and
 *   `Webhook-Signature: v1,<base64 HMAC-SHA256 of "id.timestamp.body">`, keyed with the
 *   base64-DECODED bytes after `whsec_`, so any Standard Webhooks library verifies it.
 *
 * Secret rotation: while two secrets are live, each is used to sign.
 * - `Webhook-Signature` carries both `v1,...` values separated by ONE space (the Standard
 *   Webhooks multi-signature form).
 * - `X-Signature` / `X-Webhook-Signature` carry both hex values separated by `,` (no spaces),
 *   in the order the secrets were given (current first). A receiver splits on `,` and accepts
 *   the delivery if any value matches. Outside a rotation the header is a single 64-char hex.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

export const SECRET_PREFIX = 'whsec_';
/** Standard Webhooks replay window. */
export const DEFAULT_TOLERANCE_SEC = 5 * 60;

export type HexSignatureHeader = 'x-signature' | 'x-webhook-signature';

export type SignatureHeaders = {
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature': string;
} & ({ 'x-signature': string } | { 'x-webhook-signature': string });

const bytes = (body: string | Buffer): Buffer => (typeof body === 'string' ? Buffer.from(body, 'utf8') : body);

/** Lowercase hex HMAC-SHA256 of the raw body, keyed with the whole secret string (UTF-8, prefix included). */
export function payloadSignature(rawBody: string | Buffer, secret: string): string {
  return createHmac('sha256', Buffer.from(secret, 'utf8')).update(bytes(rawBody)).digest('hex');
}

/** The Standard Webhooks HMAC key: base64-decoded bytes after `whsec_` (the prefix is optional). */
export function standardKey(secret: string): Buffer {
  const encoded = secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret;
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(encoded)) throw new Error('Webhook secret is not whsec_ followed by base64.');
  const key = Buffer.from(encoded, 'base64');
  if (key.length === 0) throw new Error('Webhook secret is empty.');
  return key;
}

function assertTimestamp(timestampSec: number): void {
  if (!Number.isSafeInteger(timestampSec) || timestampSec < 0) throw new Error(`Invalid webhook timestamp: ${timestampSec}`);
}

/** `v1,<base64 HMAC-SHA256 of "id.timestamp.body">` keyed with the decoded secret (Standard Webhooks). */
export function standardSignature(id: string, timestampSec: number, rawBody: string | Buffer, secret: string): string {
  assertTimestamp(timestampSec);
  const mac = createHmac('sha256', standardKey(secret)).update(`${id}.${timestampSec}.`, 'utf8').update(bytes(rawBody)).digest('base64');
  return `v1,${mac}`;
}

/** The hex header's name: `x-webhook-signature` for payout events, `x-signature` for the rest. */
export function hexSignatureHeaderName(eventType: string): HexSignatureHeader {
  return eventType.startsWith('payout.') ? 'x-webhook-signature' : 'x-signature';
}

export interface SignatureInput {
  eventId: string;
  eventType: string;
  timestampSec: number;
  rawBody: string | Buffer;
  /** Live secrets, current first; two during a rotation. */
  secrets: readonly string[];
}

/** Every signature header of one delivery attempt (lowercase names). */
export function signatureHeaders({ eventId, eventType, timestampSec, rawBody, secrets }: SignatureInput): SignatureHeaders {
  if (secrets.length === 0) throw new Error('At least one webhook secret is needed to sign.');
  // The id is a header value and part of the signed "id.timestamp.body" string: visible ASCII only.
  if (!/^[\x21-\x7e]+$/.test(eventId)) throw new Error(`Invalid webhook id: ${JSON.stringify(eventId)}`);
  assertTimestamp(timestampSec);
  const body = bytes(rawBody);
  const standard = secrets.map((s) => standardSignature(eventId, timestampSec, body, s)).join(' ');
  const hex = secrets.map((s) => payloadSignature(body, s)).join(',');
  const common = { 'webhook-id': eventId, 'webhook-timestamp': String(timestampSec), 'webhook-signature': standard };
  return hexSignatureHeaderName(eventType) === 'x-webhook-signature'
    ? { ...common, 'x-webhook-signature': hex }
    : { ...common, 'x-signature': hex };
}

/** Constant-time comparison of two byte strings; false (not an exception) on different lengths. */
function sameBytes(a: Buffer, b: Buffer): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * Checks an `X-Signature` / `X-Webhook-Signature` value: one or more hex values separated by `,`;
 * true when any equals the HMAC of the raw body under `secret`. Hex case is ignored.
 */
export function verifyPayloadSignature(rawBody: string | Buffer, header: string | null | undefined, secret: string): boolean {
  if (!header) return false;
  const expected = createHmac('sha256', Buffer.from(secret, 'utf8')).update(bytes(rawBody)).digest();
  let match = false;
  for (const candidate of header.split(',')) {
    const hex = candidate.trim();
    if (!/^[0-9a-fA-F]{64}$/.test(hex)) continue;
    // No early exit: every candidate is compared.
    if (sameBytes(Buffer.from(hex, 'hex'), expected)) match = true;
  }
  return match;
}

export interface StandardVerifyInput {
  id: string | null | undefined;
  /** The Webhook-Timestamp header (unix seconds), as received or as a number. */
  timestamp: string | number | null | undefined;
  signatureHeader: string | null | undefined;
  rawBody: string | Buffer;
  secret: string;
  /** Accepted clock difference either way, inclusive. Default 300 s. */
  toleranceSec?: number;
  /** Receiver's clock; default now. */
  nowSec?: number;
}

/**
 * Checks the Standard Webhooks headers: the timestamp within `toleranceSec` of `nowSec` (either
 * direction, boundary included) and any space-separated `v1,<base64>` value matching.
 */
export function verifyStandardSignature({
  id,
  timestamp,
  signatureHeader,
  rawBody,
  secret,
  toleranceSec = DEFAULT_TOLERANCE_SEC,
  nowSec = Math.floor(Date.now() / 1000),
}: StandardVerifyInput): boolean {
  if (!id || !signatureHeader || timestamp === null || timestamp === undefined) return false;
  const ts = typeof timestamp === 'number' ? timestamp : /^[0-9]{1,15}$/.test(timestamp) ? Number(timestamp) : NaN;
  if (!Number.isSafeInteger(ts) || ts < 0) return false;
  if (Math.abs(nowSec - ts) > toleranceSec) return false;
  const expected = Buffer.from(standardSignature(id, ts, rawBody, secret).slice('v1,'.length), 'utf8');
  let match = false;
  for (const versioned of signatureHeader.split(' ')) {
    const comma = versioned.indexOf(',');
    if (comma < 0 || versioned.slice(0, comma) !== 'v1') continue;
    // Compare the canonical base64 text, so lenient base64 decoding cannot make two strings equal.
    if (sameBytes(Buffer.from(versioned.slice(comma + 1), 'utf8'), expected)) match = true;
  }
  return match;
}
