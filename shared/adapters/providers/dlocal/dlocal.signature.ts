/**
 * dLocal's request signature (docs.dlocal.com "Generate a signature", "Payins Security"): every pay-ins call
 * carries X-Date (ISO 8601, UTC), X-Login, X-Trans-Key, X-Version 2.1 and
 * `Authorization: V2-HMAC-SHA256, Signature: <hex HMAC-SHA256(secret_key, X-Login + X-Date + body)>`, the body
 * being the exact bytes sent (empty for a GET). Notifications ("Receive notifications") are signed the same way:
 * their Authorization header over our X-Login, their X-Date header and the raw body, compared here in constant time
 * before anything of the body is read.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

export const DLOCAL_API_VERSION = '2.1';
const SCHEME = 'V2-HMAC-SHA256';

export interface DlocalCredentials {
  readonly xLogin: string;
  readonly xTransKey: string;
  readonly secretKey: string;
}

/** Lower-case hex HMAC-SHA256 of X-Login + X-Date + body with the secret key. */
export function signatureOf(secretKey: string, xLogin: string, xDate: string, body: string): string {
  return createHmac('sha256', secretKey).update(`${xLogin}${xDate}${body}`, 'utf8').digest('hex');
}

export const authorizationOf = (signature: string) => `${SCHEME}, Signature: ${signature}`;

/** The headers of one signed pay-ins call (the body is the exact string sent). */
export function signedHeaders(c: DlocalCredentials, body: string, now: Date = new Date()): Record<string, string> {
  const xDate = now.toISOString();
  return {
    'x-date': xDate,
    'x-login': c.xLogin,
    'x-trans-key': c.xTransKey,
    'x-version': DLOCAL_API_VERSION,
    'content-type': 'application/json',
    authorization: authorizationOf(signatureOf(c.secretKey, c.xLogin, xDate, body)),
  };
}

/** The hex signature in an Authorization header of dLocal's scheme, or null when the header is not one. */
export function signatureInHeader(header: string | undefined): string | null {
  const m = /^V2-HMAC-SHA256,\s*Signature:\s*([0-9a-fA-F]{64})$/.exec((header ?? '').trim());
  return m ? (m[1] as string).toLowerCase() : null;
}

const one = (v: string | string[] | undefined): string | undefined => (Array.isArray(v) ? v[0] : v);

/**
 * A request (a notification to us, or a call at the fake dLocal) is signed with this secret: its Authorization
 * header holds HMAC(secret, X-Login + X-Date + raw body) and its X-Login is the expected one. Header names are
 * lower case (as node gives them). A missing or malformed header is false, never an exception.
 */
export function signatureValid(
  headers: Readonly<Record<string, string | string[] | undefined>>,
  rawBody: string,
  expected: { readonly xLogin: string; readonly secretKey: string },
): boolean {
  const given = signatureInHeader(one(headers.authorization));
  const xDate = one(headers['x-date']);
  const xLogin = one(headers['x-login']) ?? expected.xLogin;
  if (!given || !xDate || xLogin !== expected.xLogin) return false;
  const want = Buffer.from(signatureOf(expected.secretKey, xLogin, xDate, rawBody), 'hex');
  return timingSafeEqual(Buffer.from(given, 'hex'), want);
}
