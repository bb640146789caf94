/** dLocal's V2-HMAC-SHA256: the request headers we sign with, and the constant-time check of a signed notification. */
import { createHmac } from 'node:crypto';
import fc from 'fast-check';
import {
  authorizationOf,
  signatureInHeader,
  signatureOf,
  signatureValid,
  signedHeaders,
} from '../../shared/adapters/providers/dlocal/dlocal.signature';

const creds = { xLogin: 'sak223k2wdksdl2', xTransKey: 'fm12O7G9', secretKey: 'the-secret-key' };

describe('signing our requests', () => {
  it('signs X-Login + X-Date + the body with the secret key, hex, behind the V2-HMAC-SHA256 prefix', () => {
    const now = new Date('2018-02-20T15:44:42.310Z');
    const body = '{"amount":100,"currency":"PEN"}';
    const h = signedHeaders(creds, body, now);
    const expected = createHmac('sha256', 'the-secret-key').update(`sak223k2wdksdl22018-02-20T15:44:42.310Z${body}`).digest('hex');
    expect(h).toEqual({
      'x-date': '2018-02-20T15:44:42.310Z',
      'x-login': 'sak223k2wdksdl2',
      'x-trans-key': 'fm12O7G9',
      'x-version': '2.1',
      'content-type': 'application/json',
      authorization: `V2-HMAC-SHA256, Signature: ${expected}`,
    });
    // UTF-8 bytes of the body are signed (a payer named with accents).
    expect(signatureOf('k', 'l', 'd', 'Muñoz')).toBe(createHmac('sha256', 'k').update(Buffer.from('ldMuñoz', 'utf8')).digest('hex'));
  });
});

describe('checking a signed notification', () => {
  const expected = { xLogin: creds.xLogin, secretKey: creds.secretKey };
  const headersFor = (body: string, secret = creds.secretKey, xDate = '2026-11-25T10:00:00.000Z') => ({
    'x-date': xDate,
    'x-login': creds.xLogin,
    authorization: authorizationOf(signatureOf(secret, creds.xLogin, xDate, body)),
  });

  it('accepts dLocal’s signature over the raw body, and nothing else: another body, secret, date, login, or no header', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1 }), (body) => {
        expect(signatureValid(headersFor(body), body, expected)).toBe(true);
        expect(signatureValid(headersFor(body), `${body} `, expected)).toBe(false);
        expect(signatureValid(headersFor(body, 'other-secret'), body, expected)).toBe(false);
      }),
    );
    const body = '{"id":"D-4-1","status":"PAID"}';
    const h = headersFor(body);
    expect(signatureValid({ ...h, 'x-date': '2026-11-25T10:00:01.000Z' }, body, expected)).toBe(false);
    expect(signatureValid({ ...h, 'x-login': 'someone-else' }, body, expected)).toBe(false);
    expect(signatureValid({ 'x-date': h['x-date'] }, body, expected)).toBe(false);
    expect(signatureValid({ authorization: h.authorization }, body, expected)).toBe(false);
    // Without an X-Login header, ours is the one signed.
    expect(signatureValid({ 'x-date': h['x-date'], authorization: h.authorization }, body, expected)).toBe(true);
    // Upper-case hex is the same signature.
    expect(signatureValid({ ...h, authorization: h.authorization.replace(/[0-9a-f]{64}$/, (s) => s.toUpperCase()) }, body, expected)).toBe(
      true,
    );
  });

  it('a header of another shape is no signature, never an exception', () => {
    expect(signatureInHeader(undefined)).toBeNull();
    expect(signatureInHeader('Bearer abc')).toBeNull();
    expect(signatureInHeader('V2-HMAC-SHA256, Signature: abc')).toBeNull();
    expect(signatureInHeader(`V1-HMAC-SHA256, Signature: ${'a'.repeat(64)}`)).toBeNull();
    expect(signatureInHeader(`V2-HMAC-SHA256, Signature: ${'a'.repeat(64)}`)).toBe('a'.repeat(64));
    expect(signatureValid({ authorization: ['x', 'y'], 'x-date': 'd' }, '', { xLogin: 'l', secretKey: 's' })).toBe(false);
  });
});
