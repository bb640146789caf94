/**
 * The Adyen connector's pure parts and its client against a scripted transport (issue 23, slice 1): references,
 * amounts, the card payment request checked against our schema, resultCode and refusalReasonCode mapping,
 * the client's headers and error classification, and the notification HMAC against an independent computation
 * of Adyen's documented algorithm.
 */
import { createHmac, randomBytes } from 'node:crypto';
import * as z from '../../shared/domain/zod';
import { ProviderRejected, ProviderUnavailable, type HeldCardRequest } from '../../shared/application/providers';
import { NoAnswer, type HttpAnswer, type ProviderHttp } from '../../shared/adapters/providers/http-client';
import { adyenClient } from '../../shared/adapters/providers/adyen/adyen.client';
import { adyenConnectors } from '../../shared/adapters/providers/adyen/adyen.connector';
import { hmacOf, hmacValid } from '../../shared/adapters/providers/adyen/adyen.hmac';
import { paymentRequestSchema, paymentResponseSchema, type NotificationItem } from '../../shared/adapters/providers/adyen/adyen.schemas';
import {
  ADYEN_SOFT_REFUSALS,
  adyenAmount,
  attemptOfReference,
  cardPaymentRequest,
  declineOf,
  idempotencyKeyOf,
  outcomeOf,
  paymentIdOfReference,
  paymentReferenceOf,
  refundIdOfReference,
  refundReferenceOf,
} from '../../shared/adapters/providers/adyen/adyen.transformers';
import { parseProvidersConfig } from '../../shared/adapters/providers/providers.config';

const id = (prefix: string) => `${prefix}${randomBytes(16).toString('base64url')}`;
const KEY = randomBytes(32).toString('hex');

const cardRequest = (over: Partial<HeldCardRequest> = {}): HeldCardRequest => ({
  paymentId: id('pi_'),
  amountMinor: 12345,
  currency: 'BRL',
  country: 'BRA',
  card: { number: '4111111145551142', holder_name: 'Maria Silva', expiry_month: '03', expiry_year: '2030', cvv: '737' },
  installments: 1,
  shopper: { reference: 'cus_123', email: 'maria@example.com' },
  returnUrl: 'https://api.example.com/providers/adyen/return/pi_x',
  ...over,
});

const config = parseProvidersConfig(
  { adyen: { base_url: 'https://checkout-test.adyen.com/v71', api_key: 'AQE-test-key', merchant_account: 'LatamECOM', hmac_key_hex: KEY } },
  'test',
).adyen as NonNullable<ReturnType<typeof parseProvidersConfig>['adyen']>;

/** A transport that records what was sent and answers from a script. */
function scripted(...answers: Array<HttpAnswer | Error>) {
  const sent: Array<{ method: string; url: string; headers: Record<string, string>; body: unknown }> = [];
  const http: ProviderHttp = {
    async send(req) {
      sent.push({ method: req.method, url: req.url, headers: req.headers ?? {}, body: req.body ? JSON.parse(req.body) : undefined });
      const a = answers.shift();
      if (!a) throw new Error('no scripted answer');
      if (a instanceof Error) throw a;
      return a;
    },
    close() {},
  };
  return { http, sent };
}
const answer = (status: number, body: unknown): HttpAnswer => ({ status, headers: {}, text: JSON.stringify(body) });

describe('Adyen references and amounts', () => {
  it('derives a reversible merchant reference from our payment and refund ids', () => {
    const pi = id('pi_');
    const re = id('re_');
    expect(paymentReferenceOf(pi)).toMatch(/^pi[0-9a-f]{32}$/);
    expect(paymentIdOfReference(paymentReferenceOf(pi))).toBe(pi);
    expect(refundIdOfReference(refundReferenceOf(re))).toBe(re);
    expect(paymentIdOfReference('somebody-else')).toBeNull();
    expect(() => paymentReferenceOf('re_x')).toThrow(RangeError);
    expect(idempotencyKeyOf('payment', paymentReferenceOf(pi))).toBe(`payment-${paymentReferenceOf(pi)}`);
  });

  it('a later attempt of a payment has its own reference, `a<n>` appended, reversible to the payment and the attempt', () => {
    const pi = id('pi_');
    const first = paymentReferenceOf(pi);
    expect(paymentReferenceOf(pi, 1)).toBe(first);
    expect(paymentReferenceOf(pi, 2)).toBe(`${first}a2`);
    expect(paymentReferenceOf(pi, 12)).toBe(`${first}a12`);
    expect(attemptOfReference(`${first}a2`)).toEqual({ paymentId: pi, attempt: 2 });
    expect(attemptOfReference(first)).toEqual({ paymentId: pi, attempt: 1 });
    expect(paymentIdOfReference(`${first}a12`)).toBe(pi);
    for (const bad of [`${first}a1`, `${first}a0`, `${first}a100`, `${first}b2`]) expect(attemptOfReference(bad)).toBeNull();
    expect(() => paymentReferenceOf(pi, 100)).toThrow(RangeError);
    const body = cardPaymentRequest(cardRequest({ paymentId: pi, reference: `${first}a2` }), 'LatamECOM');
    expect(body.reference).toBe(`${first}a2`);
    expect(z.safeParse(paymentRequestSchema, body).success).toBe(true);
    // Never another payment's reference.
    expect(() => cardPaymentRequest(cardRequest({ reference: paymentReferenceOf(id('pi_'), 2) }), 'LatamECOM')).toThrow(RangeError);
  });

  it('sends integer minor units in Adyen’s exponent (CLP in hundredths)', () => {
    expect(adyenAmount(12345, 'BRL')).toEqual({ currency: 'BRL', value: 12345 });
    expect(adyenAmount(5000, 'CLP')).toEqual({ currency: 'CLP', value: 500000 });
  });
});

describe('the card payment request', () => {
  it('matches our schema of PaymentRequest, with the raw card, Web channel and our return URL', () => {
    const req = cardRequest({
      installments: 3,
      browser: {
        acceptHeader: 'text/html',
        userAgent: 'Mozilla/5.0',
        language: 'pt-BR',
        colorDepth: 24,
        screenHeight: 800,
        screenWidth: 1280,
        timeZoneOffset: 180,
        javaEnabled: false,
      },
    });
    const body = cardPaymentRequest(req, 'LatamECOM');
    expect(z.safeParse(paymentRequestSchema, body).success).toBe(true);
    expect(body).toMatchObject({
      merchantAccount: 'LatamECOM',
      reference: paymentReferenceOf(req.paymentId),
      amount: { currency: 'BRL', value: 12345 },
      paymentMethod: { type: 'scheme', number: '4111111145551142', cvc: '737', expiryMonth: '03', expiryYear: '2030' },
      channel: 'Web',
      countryCode: 'BR',
      installments: { value: 3 },
      returnUrl: req.returnUrl,
      browserInfo: { language: 'pt-BR', colorDepth: 24 },
    });
    expect(cardPaymentRequest(cardRequest(), 'LatamECOM')).not.toHaveProperty('installments');
  });
});

describe('resultCode and refusalReasonCode', () => {
  const parse = (v: unknown) => z.parse(paymentResponseSchema, v);
  it('Authorised is approved with the auth code', () => {
    expect(
      outcomeOf(parse({ resultCode: 'Authorised', pspReference: 'PSP0000000000001', additionalData: { authCode: '064320' } })),
    ).toEqual({
      kind: 'approved',
      authorizationCode: '064320',
      pspReference: 'PSP0000000000001',
    });
  });

  it.each([
    ['6', 'EXPIRED_CARD'],
    ['12', 'INSUFFICIENT_FUNDS'],
    ['24', 'INCORRECT_CVC'],
    ['11', 'AUTHENTICATION_FAILED'],
    ['38', 'AUTHENTICATION_FAILED'],
    ['42', 'AUTHENTICATION_FAILED'],
    ['2', 'CARD_DECLINED'],
    ['5', 'CARD_DECLINED'],
    ['20', 'CARD_DECLINED'],
    [undefined, 'CARD_DECLINED'],
  ])('Refused with refusalReasonCode %s is %s', (code, ours) => {
    const o = outcomeOf(parse({ resultCode: 'Refused', pspReference: 'PSP0000000000002', refusalReasonCode: code, refusalReason: 'x' }));
    expect(o).toMatchObject({ kind: 'declined', code: ours, providerCode: `refusal_${code ?? 'unknown'}` });
    expect(declineOf(code).code).toBe(ours);
  });

  it('only Acquirer Error (4) and Issuer Unavailable (9) are soft declines (one failover); every other refusal is hard', () => {
    expect([...ADYEN_SOFT_REFUSALS]).toEqual(['4', '9']);
    for (const code of ['4', '9'])
      expect(outcomeOf(parse({ resultCode: 'Refused', refusalReasonCode: code }))).toMatchObject({ kind: 'declined', soft: true });
    for (const code of ['2', '3', '5', '7', '10', '12', '14', '20', '21', '23', '46', undefined])
      expect(outcomeOf(parse({ resultCode: 'Refused', refusalReasonCode: code }))).not.toHaveProperty('soft');
    expect(outcomeOf(parse({ resultCode: 'Error' }))).not.toHaveProperty('soft');
  });

  it('Error and Cancelled are declines; Pending and Received wait for the notification', () => {
    expect(outcomeOf(parse({ resultCode: 'Error' }))).toMatchObject({ kind: 'declined', code: 'CARD_DECLINED' });
    expect(outcomeOf(parse({ resultCode: 'Cancelled' }))).toMatchObject({ kind: 'declined', code: 'CARD_DECLINED' });
    expect(outcomeOf(parse({ resultCode: 'Pending', pspReference: 'P' }))).toEqual({ kind: 'pending', pspReference: 'P' });
    expect(outcomeOf(parse({ resultCode: 'Received' }))).toEqual({ kind: 'pending' });
  });

  it('RedirectShopper forwards to the action; a native 3DS2 action waits for the notification', () => {
    const action = { type: 'redirect', method: 'POST', url: 'https://test.adyen.com/hpp/3d/validate.shtml', data: { MD: 'm', PaReq: 'p' } };
    expect(outcomeOf(parse({ resultCode: 'RedirectShopper', action }))).toEqual({
      kind: 'redirect',
      redirect: { url: action.url, method: 'POST', data: { MD: 'm', PaReq: 'p' } },
    });
    expect(outcomeOf(parse({ resultCode: 'ChallengeShopper', action: { type: 'redirect', url: 'https://x.test/c' } }))).toMatchObject({
      kind: 'redirect',
      redirect: { method: 'GET', data: {} },
    });
    expect(outcomeOf(parse({ resultCode: 'IdentifyShopper', action: { type: 'threeDS2', token: 't' } }))).toEqual({ kind: 'pending' });
  });
});

describe('the Adyen client', () => {
  it('sends X-API-Key and an Idempotency-Key derived from our reference, and parses the answer', async () => {
    const { http, sent } = scripted(answer(200, { resultCode: 'Authorised', pspReference: 'PSP0000000000003' }));
    const c = adyenConnectors(config, adyenClient(config, http));
    const req = cardRequest();
    await expect(c.heldCard.authorize(req)).resolves.toMatchObject({ kind: 'approved' });
    expect(sent[0]).toMatchObject({
      method: 'POST',
      url: 'https://checkout-test.adyen.com/v71/payments',
      headers: { 'x-api-key': 'AQE-test-key', 'idempotency-key': `payment-${paymentReferenceOf(req.paymentId)}` },
    });
  });

  it('a timeout, a 5xx, a 401, an in-flight idempotency key and a malformed answer are ProviderUnavailable', async () => {
    const { http } = scripted(
      new NoAnswer('no answer within 1500 ms'),
      answer(500, { status: 500, errorCode: '000', errorType: 'internal' }),
      answer(401, {}),
      answer(422, { status: 422, errorCode: '704', errorType: 'validation' }),
      answer(200, { resultCode: 'Unheard' }),
    );
    const c = adyenConnectors(config, adyenClient(config, http));
    for (let i = 0; i < 5; i++) await expect(c.heldCard.authorize(cardRequest())).rejects.toBeInstanceOf(ProviderUnavailable);
  });

  it('a connection refused before the request left is not sent; a timeout, a reset or a 5xx may have been acted on', async () => {
    const { http } = scripted(
      new NoAnswer('connection refused', true),
      new NoAnswer('no answer within 1500 ms'),
      new NoAnswer('connection reset by the provider'),
      answer(500, {}),
    );
    const c = adyenConnectors(config, adyenClient(config, http));
    const notSent = async () => ((await c.heldCard.authorize(cardRequest()).catch((x: unknown) => x)) as ProviderUnavailable).notSent;
    expect(await notSent()).toBe(true);
    for (let i = 0; i < 3; i++) expect(await notSent()).toBe(false);
  });

  it('a validation error is ProviderRejected with Adyen’s error code', async () => {
    const { http } = scripted(answer(422, { status: 422, errorCode: '101', errorType: 'validation', message: 'Invalid card number' }));
    const c = adyenConnectors(config, adyenClient(config, http));
    const e = await c.heldCard.authorize(cardRequest()).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(ProviderRejected);
    expect(e).toMatchObject({ code: 'adyen_101', status: 422 });
  });

  it('the details call and the technical cancel use their own keys and bodies', async () => {
    const { http, sent } = scripted(
      answer(200, { resultCode: 'Authorised', pspReference: 'PSP0000000000004' }),
      answer(201, { merchantAccount: 'LatamECOM', paymentReference: 'x', pspReference: 'PSP0000000000005', status: 'received' }),
      answer(201, { merchantAccount: 'LatamECOM', paymentReference: 'y', pspReference: 'PSP0000000000006', status: 'received' }),
    );
    const c = adyenConnectors(config, adyenClient(config, http));
    const pi = id('pi_');
    await c.heldCard.completeRedirect({ paymentId: pi, redirectResult: 'X6XtfGC3!Y...' });
    await c.heldCard.cancelByReference(pi);
    await c.heldCard.cancelByReference(pi, { reference: paymentReferenceOf(pi, 2) });
    expect(sent[0]).toMatchObject({
      url: expect.stringMatching(/\/payments\/details$/),
      body: { details: { redirectResult: 'X6XtfGC3!Y...' } },
    });
    expect(sent[0]?.headers['idempotency-key']).toMatch(new RegExp(`^details-${paymentReferenceOf(pi)}-[0-9a-f]{16}$`));
    expect(sent[1]).toMatchObject({
      url: expect.stringMatching(/\/cancels$/),
      body: { merchantAccount: 'LatamECOM', paymentReference: paymentReferenceOf(pi) },
      headers: { 'idempotency-key': `cancel-${paymentReferenceOf(pi)}` },
    });
    // A later attempt is cancelled by its own reference.
    expect(sent[2]).toMatchObject({
      body: { paymentReference: paymentReferenceOf(pi, 2) },
      headers: { 'idempotency-key': `cancel-${paymentReferenceOf(pi, 2)}` },
    });
  });
});

describe('notification HMAC', () => {
  const item = (over: Partial<NotificationItem> = {}): NotificationItem => ({
    eventCode: 'AUTHORISATION',
    success: 'true',
    pspReference: '7914073381342284',
    merchantAccountCode: 'LatamECOM',
    merchantReference: paymentReferenceOf(id('pi_')),
    amount: { currency: 'BRL', value: 12345 },
    ...over,
  });
  /** Adyen's documented algorithm, computed here independently of the library. */
  const documented = (i: NotificationItem, key: string) =>
    createHmac('sha256', Buffer.from(key, 'hex'))
      .update(
        [
          i.pspReference,
          i.originalReference ?? '',
          i.merchantAccountCode,
          i.merchantReference,
          i.amount.value,
          i.amount.currency,
          i.eventCode,
          i.success,
        ].join(':'),
      )
      .digest('base64');

  it('the library computes the documented signature, and a signed item verifies', () => {
    const i = item({ originalReference: '8313842560770001' });
    expect(hmacOf(i, KEY)).toBe(documented(i, KEY));
    expect(hmacValid({ ...i, additionalData: { hmacSignature: documented(i, KEY) } }, KEY)).toBe(true);
  });

  it('a forged, tampered, missing or garbage signature does not verify', () => {
    const i = item();
    const sig = documented(i, KEY);
    expect(hmacValid({ ...i, additionalData: { hmacSignature: documented(i, randomBytes(32).toString('hex')) } }, KEY)).toBe(false);
    expect(hmacValid({ ...i, success: 'false', additionalData: { hmacSignature: sig } }, KEY)).toBe(false);
    expect(hmacValid({ ...i, amount: { currency: 'BRL', value: 1 }, additionalData: { hmacSignature: sig } }, KEY)).toBe(false);
    expect(hmacValid(i, KEY)).toBe(false);
    expect(hmacValid({ ...i, additionalData: { hmacSignature: 'not base64 at all ###' } }, KEY)).toBe(false);
  });
});
