/**
 * Webhook verification. Every delivery carries two signatures over the exact raw body bytes:
 * - `X-Signature` (payment, checkout and refund events) or `X-Webhook-Signature` (payout events):
 *   lowercase hex HMAC-SHA256 of the body keyed with the whole secret string (`whsec_` included);
 * - Standard Webhooks: `Webhook-Id`, `Webhook-Timestamp` (unix seconds) and
 *   `Webhook-Signature: v1,<base64 HMAC-SHA256 of "id.timestamp.body">` keyed with the base64-decoded
 *   bytes after `whsec_`.
 * During a secret rotation each header carries two values (`,`-separated hex; space-separated v1).
 * `verify` checks every signature the delivery carries, comparing raw digest bytes in constant time,
 * and requires the Standard Webhooks timestamp (within 5 minutes) so a captured delivery cannot be
 * replayed later with its Webhook-* headers stripped.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { SignatureVerificationError } from './errors.ts';
import type { WebhookEvent } from './types.ts';

export type WebhookHeaders = Headers | Readonly<Record<string, string | readonly string[] | undefined>>;
export type RawBody = string | Uint8Array | ArrayBuffer;

export interface VerifyOptions {
  /** Seconds the Webhook-Timestamp may be from now. Default 300 (Standard Webhooks). */
  readonly tolerance?: number;
  /** The current time (tests). Default: now. */
  readonly now?: Date;
  /**
   * Accept a delivery that carries only the hex X-Signature / X-Webhook-Signature (no Webhook-* headers),
   * for a relay that forwards only those. It has no timestamp, so it can be replayed. Default false.
   */
  readonly allowHexOnly?: boolean;
}

const PREFIX = 'whsec_';
const DIGEST_BYTES = 32;

function headerMap(headers: WebhookHeaders): Map<string, string> {
  const out = new Map<string, string>();
  const entries: Iterable<[string, unknown]> = headers instanceof Headers ? headers.entries() : Object.entries(headers);
  for (const [name, value] of entries) {
    const v = Array.isArray(value) ? value.join(',') : value;
    if (typeof v === 'string') out.set(name.toLowerCase(), v);
  }
  return out;
}

function bodyBytes(rawBody: RawBody): Buffer {
  if (typeof rawBody === 'string') return Buffer.from(rawBody, 'utf8');
  if (rawBody instanceof ArrayBuffer) return Buffer.from(rawBody);
  if (rawBody instanceof Uint8Array) return Buffer.from(rawBody.buffer, rawBody.byteOffset, rawBody.byteLength);
  throw new TypeError('webhooks.verify needs the raw body (string, Buffer or Uint8Array) as received, not a parsed object');
}

function standardKey(secret: string): Buffer {
  const encoded = secret.startsWith(PREFIX) ? secret.slice(PREFIX.length) : secret;
  const key = Buffer.from(encoded, 'base64');
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(encoded) || key.length === 0)
    throw new TypeError('The webhook secret is not whsec_ followed by base64');
  return key;
}

/** Constant time over the raw digests: does any candidate decode to exactly the expected bytes? */
function anyMatches(expected: Buffer, candidates: readonly Buffer[]): boolean {
  let found = false;
  for (const c of candidates) if (c.length === expected.length && timingSafeEqual(c, expected)) found = true;
  return found;
}

const fail = (message: string): never => {
  throw new SignatureVerificationError(message);
};

function verifyHex(header: string, body: Buffer, secret: string): void {
  const expected = createHmac('sha256', Buffer.from(secret, 'utf8')).update(body).digest();
  const candidates = header
    .split(',')
    .map((s) => s.trim())
    .filter((s) => /^[0-9a-fA-F]{64}$/.test(s))
    .map((s) => Buffer.from(s, 'hex'));
  if (!anyMatches(expected, candidates)) fail('X-Signature does not match the body and secret');
}

function verifyStandard(h: Map<string, string>, body: Buffer, secret: string, options: VerifyOptions): void {
  const id = h.get('webhook-id');
  const timestamp = h.get('webhook-timestamp');
  const signature = h.get('webhook-signature');
  if (!id || !timestamp || !signature) return fail('Missing Webhook-Id, Webhook-Timestamp or Webhook-Signature');
  const tolerance = options.tolerance ?? 300;
  const nowSec = Math.floor((options.now ?? new Date()).getTime() / 1000);
  if (!/^\d{1,12}$/.test(timestamp)) return fail('Webhook-Timestamp is not unix seconds');
  if (Math.abs(nowSec - Number(timestamp)) > tolerance) fail(`Webhook-Timestamp is more than ${tolerance} s from now`);
  const expected = createHmac('sha256', standardKey(secret)).update(`${id}.${timestamp}.`, 'utf8').update(body).digest();
  const candidates = signature
    .split(' ')
    .filter((s) => s.startsWith('v1,'))
    .map((s) => Buffer.from(s.slice(3), 'base64'))
    .filter((b) => b.length === DIGEST_BYTES);
  if (!anyMatches(expected, candidates)) fail('Webhook-Signature does not match the body and secret');
}

/**
 * The event a genuine delivery carries; throws SignatureVerificationError otherwise. Pass the raw body
 * exactly as received (before any JSON parsing), the request headers and your webhook secret (whsec_...).
 */
export function verify(rawBody: RawBody, headers: WebhookHeaders, secret: string, options: VerifyOptions = {}): WebhookEvent {
  const body = bodyBytes(rawBody);
  const h = headerMap(headers);
  const hex = h.get('x-signature') ?? h.get('x-webhook-signature');
  const hasStandard = h.has('webhook-id') || h.has('webhook-timestamp') || h.has('webhook-signature');
  if (!hex && !hasStandard) fail('No webhook signature headers (X-Signature / X-Webhook-Signature, Webhook-Signature)');
  if (hex) verifyHex(hex, body, secret);
  if (hasStandard || !options.allowHexOnly) verifyStandard(h, body, secret, options);
  try {
    return JSON.parse(body.toString('utf8')) as WebhookEvent;
  } catch {
    return fail('The signed body is not JSON');
  }
}

/**
 * Headers signing `rawBody` as the API does, for tests of your own receiver (stripe-node's
 * generateTestHeaderString). `id` defaults to a fresh evt_ id, `timestamp` to now.
 */
export function generateTestHeaders(
  rawBody: RawBody,
  secret: string,
  options: { id?: string; timestamp?: Date; hexHeader?: 'X-Signature' | 'X-Webhook-Signature' } = {},
): Record<string, string> {
  const body = bodyBytes(rawBody);
  const id = options.id ?? `evt_test_${Date.now().toString(36)}${Math.random().toString(36).slice(2, 10)}`;
  const ts = String(Math.floor((options.timestamp ?? new Date()).getTime() / 1000));
  const v1 = createHmac('sha256', standardKey(secret)).update(`${id}.${ts}.`, 'utf8').update(body).digest('base64');
  return {
    [options.hexHeader ?? 'X-Signature']: createHmac('sha256', Buffer.from(secret, 'utf8')).update(body).digest('hex'),
    'Webhook-Id': id,
    'Webhook-Timestamp': ts,
    'Webhook-Signature': `v1,${v1}`,
  };
}
