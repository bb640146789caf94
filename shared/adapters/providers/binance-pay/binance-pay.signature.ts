/**
 * Binance Pay's signatures (developers.binance.com/docs/binance-pay/api-common "API Specification Common Rules",
 * webhook-common "Webhook Common Rules"):
 * - every request to Binance Pay carries BinancePay-Timestamp (Unix ms), BinancePay-Nonce (32 letters or digits),
 *   BinancePay-Certificate-SN (our API key) and BinancePay-Signature: upper-case hex HMAC-SHA512 with the secret
 *   key over `timestamp + "\n" + nonce + "\n" + body + "\n"`, the body being the exact bytes sent;
 * - every webhook from Binance Pay carries the same three headers and a BinancePay-Signature that is base64 of an
 *   RSA signature (SHA-256) over the same payload, made with the key whose public half the certificate API
 *   publishes under the serial the BinancePay-Certificate-SN header names.
 * Checks are false on any missing or malformed header, never an exception.
 */
import { createHmac, createVerify, createSign, randomInt, timingSafeEqual } from 'node:crypto';

export type Headers = Readonly<Record<string, string | string[] | undefined>>;

const NONCE_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** 32 random letters and digits (the pages: "must be 32 digits", a-z and A-Z in their example). */
export function newNonce(): string {
  let s = '';
  for (let i = 0; i < 32; i += 1) s += NONCE_ALPHABET[randomInt(NONCE_ALPHABET.length)];
  return s;
}

/** What both signatures cover: timestamp, nonce and body, each followed by a line feed. */
export const signedPayload = (timestamp: string, nonce: string, body: string) => `${timestamp}\n${nonce}\n${body}\n`;

/** Upper-case hex HMAC-SHA512 of the payload with the secret key. */
export function requestSignature(secretKey: string, timestamp: string, nonce: string, body: string): string {
  return createHmac('sha512', secretKey)
    .update(signedPayload(timestamp, nonce, body), 'utf8')
    .digest('hex')
    .toUpperCase();
}

/** The headers of one signed call (the body is the exact string sent). */
export function signedHeaders(
  c: { readonly apiKey: string; readonly secretKey: string },
  body: string,
  now: number = Date.now(),
  nonce: string = newNonce(),
): Record<string, string> {
  const timestamp = String(now);
  return {
    'content-type': 'application/json',
    'binancepay-timestamp': timestamp,
    'binancepay-nonce': nonce,
    'binancepay-certificate-sn': c.apiKey,
    'binancepay-signature': requestSignature(c.secretKey, timestamp, nonce, body),
  };
}

export const one = (v: string | string[] | undefined): string | undefined => (Array.isArray(v) ? v[0] : v);

/** A request signed with this secret (what the fake Binance Pay checks). Header names lower case, as node gives them. */
export function requestSignatureValid(headers: Headers, body: string, secretKey: string): boolean {
  const timestamp = one(headers['binancepay-timestamp']);
  const nonce = one(headers['binancepay-nonce']);
  const given = one(headers['binancepay-signature']);
  if (!timestamp || !nonce || !given || !/^[0-9A-F]{128}$/.test(given)) return false;
  const want = requestSignature(secretKey, timestamp, nonce, body);
  return timingSafeEqual(Buffer.from(given, 'hex'), Buffer.from(want, 'hex'));
}

/** A webhook's signature: base64 RSA SHA-256 with the private key (what the fake Binance Pay sends). */
export function webhookSignature(privateKeyPem: string, timestamp: string, nonce: string, body: string): string {
  return createSign('RSA-SHA256')
    .update(signedPayload(timestamp, nonce, body), 'utf8')
    .sign(privateKeyPem, 'base64');
}

/** The webhook's signature headers, for the certificate serial to be looked up by the caller. */
export function webhookHeadersOf(headers: Headers): { timestamp: string; nonce: string; signature: string; serial: string } | null {
  const timestamp = one(headers['binancepay-timestamp']);
  const nonce = one(headers['binancepay-nonce']);
  const signature = one(headers['binancepay-signature']);
  const serial = one(headers['binancepay-certificate-sn']);
  if (!timestamp || !nonce || !signature || !serial) return null;
  if (!/^\d{1,16}$/.test(timestamp) || !/^[A-Za-z0-9+/]+={0,2}$/.test(signature)) return null;
  return { timestamp, nonce, signature, serial };
}

/** The webhook verified over the raw body with the certificate's public key (PEM, as certPublic holds it). */
export function webhookSignatureValid(
  publicKeyPem: string,
  h: { readonly timestamp: string; readonly nonce: string; readonly signature: string },
  rawBody: string,
): boolean {
  try {
    return createVerify('RSA-SHA256')
      .update(signedPayload(h.timestamp, h.nonce, rawBody), 'utf8')
      .verify(publicKeyPem, Buffer.from(h.signature, 'base64'));
  } catch {
    return false; // a key that does not parse verifies nothing
  }
}
