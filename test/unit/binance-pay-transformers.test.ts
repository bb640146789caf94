/**
 * Binance Pay's pure logic: the request signature (checked against WebCrypto), webhook RSA signatures over the raw bytes, our
 * merchantTradeNo / refundRequestId derivations (reversible, within the pages' limits), USDT arithmetic (exact,
 * rounded down) and what an order status means.
 */
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import {
  requestSignature,
  requestSignatureValid,
  signedHeaders,
  webhookSignature,
  webhookSignatureValid,
} from '../../shared/adapters/providers/binance-pay/binance-pay.signature';
import {
  AMOUNT_MISMATCH,
  decimalOf,
  merchantTradeNoOf,
  outcomeOf,
  passThroughOf,
  paymentIdOfMerchantTradeNo,
  refundIdOfRequestId,
  refundRequestIdOf,
  refundUnits,
  refusalCodeOf,
  unitsOf,
} from '../../shared/adapters/providers/binance-pay/binance-pay.transformers';
import { orderExpiryOf } from '../../shared/adapters/providers/binance-pay/binance-pay.connector';
import type { QueryOrderAnswer } from '../../shared/adapters/providers/binance-pay/binance-pay.schemas';

const pid = () => `pi_${randomBytes(16).toString('base64url')}`;

describe('Binance Pay signatures', () => {
  it('signs timestamp\\nnonce\\nbody\\n with HMAC-SHA512 in upper-case hex (checked against WebCrypto, not our own code)', async () => {
    const key = await crypto.subtle.importKey('raw', new TextEncoder().encode('s3cret'), { name: 'HMAC', hash: 'SHA-512' }, false, [
      'sign',
    ]);
    const mac = await crypto.subtle.sign(
      'HMAC',
      key,
      new TextEncoder().encode('1611232922428\n5RhaTrZPhknNv0kDSA2UQ67cPMVNS4sA\n{"a":1}\n'),
    );
    expect(requestSignature('s3cret', '1611232922428', '5RhaTrZPhknNv0kDSA2UQ67cPMVNS4sA', '{"a":1}')).toBe(
      Buffer.from(mac).toString('hex').toUpperCase(),
    );
  });

  it('signed headers verify with the secret and not with another, nor over another body', () => {
    const h = signedHeaders({ apiKey: 'k', secretKey: 's3cret' }, '{"a":1}');
    expect(h['binancepay-nonce']).toMatch(/^[A-Za-z0-9]{32}$/);
    expect(requestSignatureValid(h, '{"a":1}', 's3cret')).toBe(true);
    expect(requestSignatureValid(h, '{"a":1}', 'other')).toBe(false);
    expect(requestSignatureValid(h, '{"a":2}', 's3cret')).toBe(false);
    expect(requestSignatureValid({}, '{"a":1}', 's3cret')).toBe(false);
  });

  it('a webhook verifies over its raw bytes with the public key, and not with another key', () => {
    const k = generateKeyPairSync('rsa', {
      modulusLength: 2048,
      publicKeyEncoding: { type: 'spki', format: 'pem' },
      privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
    });
    const other = generateKeyPairSync('rsa', {
      modulusLength: 2048,
      publicKeyEncoding: { type: 'spki', format: 'pem' },
      privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
    });
    const h = {
      timestamp: '1700000000000',
      nonce: 'a'.repeat(32),
      signature: webhookSignature(k.privateKey, '1700000000000', 'a'.repeat(32), '{"x": 1}'),
    };
    expect(webhookSignatureValid(k.publicKey, h, '{"x": 1}')).toBe(true);
    expect(webhookSignatureValid(k.publicKey, h, '{"x":1}')).toBe(false);
    expect(webhookSignatureValid(other.publicKey, h, '{"x": 1}')).toBe(false);
    expect(webhookSignatureValid('not a key', h, '{"x": 1}')).toBe(false);
  });
});

describe('Binance Pay references', () => {
  it('merchantTradeNo is 27 letters or digits and gives the payment back; refundRequestId likewise', () => {
    for (let i = 0; i < 200; i += 1) {
      const p = pid();
      const mtn = merchantTradeNoOf(p);
      expect(mtn).toMatch(/^bp[0-9a-z]{25}$/);
      expect(paymentIdOfMerchantTradeNo(mtn)).toBe(p);
      expect(paymentIdOfMerchantTradeNo(mtn.toUpperCase())).toBe(p);
    }
    expect(merchantTradeNoOf(`pi_${Buffer.alloc(16, 0xff).toString('base64url')}`)).toBe(`bp${(2n ** 128n - 1n).toString(36)}`);
    expect(paymentIdOfMerchantTradeNo(`bp${'z'.repeat(25)}`)).toBeNull(); // beyond 128 bits
    expect(paymentIdOfMerchantTradeNo('9825382937292')).toBeNull();
    const r = `re_${randomBytes(16).toString('base64url')}`;
    expect(refundRequestIdOf(r)).toMatch(/^br[0-9a-f]{32}$/);
    expect(refundIdOfRequestId(refundRequestIdOf(r))).toBe(r);
    expect(() => merchantTradeNoOf('re_x')).toThrow(RangeError);
  });
});

describe('Binance Pay amounts and statuses', () => {
  it('USDT is exact to 8 places; a refund is the paid USDT in proportion, rounded down; a full one all of it', () => {
    expect(decimalOf(unitsOf('22.98882681'))).toBe('22.98882681');
    expect(decimalOf(unitsOf('25.50000000'))).toBe('25.5');
    expect(() => unitsOf('1.000000001')).toThrow(RangeError);
    expect(decimalOf(refundUnits(unitsOf('22.98882681'), 1_000, 12_345))).toBe('1.86219739');
    expect(decimalOf(refundUnits(unitsOf('10'), 1, 3))).toBe('3.33333333');
    expect(decimalOf(refundUnits(unitsOf('10'), 3, 3))).toBe('10');
    // Three thirds never refund more than was paid.
    expect(refundUnits(unitsOf('10'), 1, 3) * 3n).toBeLessThanOrEqual(unitsOf('10'));
  });

  it('the order expires after the configured minutes (at most 60), never after the session', () => {
    const now = 1_700_000_000_000;
    expect(orderExpiryOf({}, {}, now)).toBe(now + 30 * 60_000);
    expect(orderExpiryOf({ order_expiry_minutes: 60 }, {}, now)).toBe(now + 60 * 60_000);
    expect(orderExpiryOf({ order_expiry_minutes: 60 }, { expiresAt: new Date(now + 5 * 60_000).toISOString() }, now)).toBe(
      now + 5 * 60_000,
    );
  });

  it('statuses: paid (and refunded) for the carried amount of this payment; a mismatch otherwise', () => {
    const p = pid();
    const mtn = merchantTradeNoOf(p);
    const order = (over: Partial<QueryOrderAnswer>): QueryOrderAnswer => ({
      prepayId: '1',
      merchantTradeNo: mtn,
      status: 'PAID',
      currency: 'USDT',
      orderAmount: '10',
      passThroughInfo: passThroughOf(p, 5_000, 'BRL'),
      transactTime: 1_700_000_000_000,
      ...over,
    });
    expect(outcomeOf(order({}), mtn)).toEqual({ kind: 'paid', at: '2023-11-14T22:13:20.000Z', amountMinor: 5_000 });
    expect(outcomeOf(order({ status: 'FULL_REFUNDED' }), mtn)).toMatchObject({ amountMinor: 5_000 });
    expect(outcomeOf(order({ passThroughInfo: passThroughOf(pid(), 5_000, 'BRL') }), mtn)).toMatchObject({ amountMinor: AMOUNT_MISMATCH });
    expect(outcomeOf(order({ passThroughInfo: null }), mtn)).toMatchObject({ amountMinor: AMOUNT_MISMATCH });
    expect(outcomeOf(order({ paymentInfo: { paymentInstructions: [{ currency: 'USDT', amount: '9.99' }] } }), mtn)).toMatchObject({
      amountMinor: AMOUNT_MISMATCH,
    });
    expect(outcomeOf(order({ paymentInfo: { paymentInstructions: [{ currency: 'BNB', amount: '0.02' }] } }), mtn)).toMatchObject({
      amountMinor: 5_000,
    });
    expect(outcomeOf(order({ status: 'INITIAL' }), mtn)).toEqual({ kind: 'pending' });
    expect(outcomeOf(order({ status: 'CANCELED' }), mtn)).toEqual({ kind: 'cancelled' });
    expect(outcomeOf(order({ status: 'EXPIRED' }), mtn)).toEqual({ kind: 'expired' });
    expect(outcomeOf(order({ status: 'ERROR' }), mtn)).toEqual({ kind: 'failed', code: 'rejected_by_provider' });
    expect(refusalCodeOf('400203')).toBe('method_not_available');
    expect(refusalCodeOf('400001')).toBe('rejected_by_provider');
  });
});
