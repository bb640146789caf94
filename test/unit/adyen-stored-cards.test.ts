/**
 * Cards on file through Adyen (issue 43), the pure parts: a mandate's references, the zero-value authorisation that
 * stores the card and the ContAuth charge on it (checked against our schemas of Checkout v71 and the fake's
 * tokenization rules), what their answers mean, the DELETE of a token against a scripted transport, and what a
 * notification says of a stored card.
 */
import { randomBytes } from 'node:crypto';
import * as z from '../../shared/domain/zod';
import {
  ProviderRejected,
  ProviderUnavailable,
  type StoreCardRequest,
  type StoredCardChargeRequest,
} from '../../shared/application/providers';
import type { HttpAnswer, ProviderHttp } from '../../shared/adapters/providers/http-client';
import { adyenClient } from '../../shared/adapters/providers/adyen/adyen.client';
import { adyenConnectors } from '../../shared/adapters/providers/adyen/adyen.connector';
import { hmacOf } from '../../shared/adapters/providers/adyen/adyen.hmac';
import { adyenNotifications } from '../../shared/adapters/providers/adyen/adyen.notifications';
import { paymentRequestSchema, paymentResponseSchema, type NotificationItem } from '../../shared/adapters/providers/adyen/adyen.schemas';
import {
  brandOfVariant,
  cardSummaryOfAnswer,
  cardSummaryOfInput,
  chargeOutcomeOf,
  storeCardRequest,
  storedChargeRequest,
  storedMethodIdOf,
  storeOutcomeOf,
} from '../../shared/adapters/providers/adyen/adyen.stored-cards.transformers';
import {
  mandateIdOfReference,
  mandateReferenceOf,
  paymentReferenceOf,
  shopperReferenceOf,
} from '../../shared/adapters/providers/adyen/adyen.transformers';
import { parseProvidersConfig } from '../../shared/adapters/providers/providers.config';
import { tokenizationViolations } from '../support/fake-adyen/stored-methods';

const id = (prefix: string) => `${prefix}${randomBytes(16).toString('base64url')}`;
const KEY = randomBytes(32).toString('hex');
const ACCOUNT = 'LatamECOM';
const browser = {
  acceptHeader: 'text/html',
  userAgent: 'Mozilla/5.0',
  language: 'pt-BR',
  colorDepth: 24,
  screenHeight: 900,
  screenWidth: 1440,
  timeZoneOffset: 180,
  javaEnabled: false,
};

const storeRequest = (over: Partial<StoreCardRequest> = {}): StoreCardRequest => {
  const mandateId = over.mandateId ?? id('md_');
  return {
    mandateId,
    reference: mandateReferenceOf(mandateId),
    shopperReference: shopperReferenceOf(mandateId),
    currency: 'BRL',
    country: 'BRA',
    card: { number: '4111111145551142', holder_name: 'Maria Silva', expiry_month: '03', expiry_year: '2030', cvv: '737' },
    shopper: { reference: 'cus_123', email: 'maria@example.com' },
    returnUrl: 'https://api.example.com/providers/adyen/return/md_x',
    browser,
    ...over,
  };
};

const chargeRequest = (over: Partial<StoredCardChargeRequest> = {}): StoredCardChargeRequest => {
  const paymentId = over.paymentId ?? id('pi_');
  return {
    paymentId,
    reference: paymentReferenceOf(paymentId),
    amountMinor: 4990,
    currency: 'BRL',
    country: 'BRA',
    shopperReference: shopperReferenceOf(id('md_')),
    storedPaymentMethodId: 'M5N7TQ4TG5PFWR50',
    returnUrl: 'https://api.example.com/providers/adyen/return/pi_x',
    ...over,
  };
};

const response = (body: unknown) => z.parse(paymentResponseSchema, body);

describe('a card mandate at Adyen: references', () => {
  it('derives the approval reference (md + 32 hex, reversible) and a stable shopperReference without personal data', () => {
    const md = id('md_');
    expect(mandateReferenceOf(md)).toMatch(/^md[0-9a-f]{32}$/);
    expect(mandateIdOfReference(mandateReferenceOf(md))).toBe(md);
    expect(mandateIdOfReference(paymentReferenceOf(id('pi_')))).toBeNull();
    expect(shopperReferenceOf(md)).toMatch(/^sr[0-9a-f]{32}$/);
    expect(shopperReferenceOf(md)).toBe(shopperReferenceOf(md));
    expect(shopperReferenceOf(md)).not.toBe(shopperReferenceOf(id('md_')));
    expect(() => mandateReferenceOf(id('pi_'))).toThrow(RangeError);
  });
});

describe('the approval: a zero-value authorisation that stores the card', () => {
  it('is schema-valid, zero in the mandate currency, stored for Subscription under the shopperReference, 3-D Secure forced', () => {
    const req = storeRequest();
    const body = storeCardRequest(req, ACCOUNT);
    expect(z.safeParse(paymentRequestSchema, body).success).toBe(true);
    expect(tokenizationViolations(body)).toEqual([]);
    expect(body).toMatchObject({
      merchantAccount: ACCOUNT,
      reference: req.reference,
      amount: { currency: 'BRL', value: 0 },
      paymentMethod: { type: 'scheme', number: '4111111145551142', cvc: '737', holderName: 'Maria Silva' },
      storePaymentMethod: true,
      shopperReference: req.shopperReference,
      recurringProcessingModel: 'Subscription',
      shopperInteraction: 'Ecommerce',
      channel: 'Web',
      returnUrl: req.returnUrl,
      countryCode: 'BR',
      authenticationData: { attemptAuthentication: 'always' },
      browserInfo: { userAgent: 'Mozilla/5.0', colorDepth: 24, language: 'pt-BR' },
    });
    // A zero in a currency whose minor units Adyen counts differently is still zero (CLP).
    expect(storeCardRequest(storeRequest({ currency: 'CLP', country: 'CHL' }), ACCOUNT).amount).toEqual({ currency: 'CLP', value: 0 });
  });

  it('refuses a reference that is not the mandate’s own', () => {
    expect(() => storeCardRequest(storeRequest({ reference: mandateReferenceOf(id('md_')) }), ACCOUNT)).toThrow(RangeError);
  });

  it('Authorised with tokenization.storedPaymentMethodId: stored, the card summary from our input (never the number)', () => {
    const r = response({
      resultCode: 'Authorised',
      pspReference: '993617895199574A',
      additionalData: {
        authCode: '098871',
        'tokenization.storedPaymentMethodId': 'M5N7TQ4TG5PFWR50',
        'tokenization.store.operationType': 'created',
      },
    });
    const o = storeOutcomeOf(r, cardSummaryOfInput('4111111145551142'));
    expect(o).toEqual({
      kind: 'stored',
      storedPaymentMethodId: 'M5N7TQ4TG5PFWR50',
      card: { brand: 'visa', last_four: '1142' },
      pspReference: '993617895199574A',
    });
    expect(JSON.stringify(o)).not.toContain('4111111145551142');
  });

  it('reads recurring.recurringDetailReference when the tokenization field is absent; pending when neither is there', () => {
    const card = cardSummaryOfInput('5555444433331111');
    expect(card).toEqual({ brand: 'mastercard', last_four: '1111' });
    const legacy = response({
      resultCode: 'Authorised',
      pspReference: 'PSP1',
      additionalData: { 'recurring.recurringDetailReference': '8415' },
    });
    expect(storeOutcomeOf(legacy, card)).toMatchObject({ kind: 'stored', storedPaymentMethodId: '8415' });
    expect(storeOutcomeOf(response({ resultCode: 'Authorised', pspReference: 'PSP2' }), card)).toEqual({
      kind: 'pending',
      pspReference: 'PSP2',
    });
    expect(storedMethodIdOf({ 'tokenization.storedPaymentMethodId': 'not a token!' })).toBeNull();
  });

  it('a challenge is a redirect, a refusal is the card payment’s decline, anything else pending', () => {
    const card = cardSummaryOfInput('4111111145551142');
    const challenge = response({
      resultCode: 'RedirectShopper',
      action: { type: 'redirect', method: 'GET', url: 'https://checkoutshopper-test.adyen.com/3ds', paymentMethodType: 'scheme' },
    });
    expect(storeOutcomeOf(challenge, card)).toEqual({
      kind: 'redirect',
      redirect: { url: 'https://checkoutshopper-test.adyen.com/3ds', method: 'GET', data: {} },
    });
    expect(storeOutcomeOf(response({ resultCode: 'Refused', pspReference: 'P', refusalReasonCode: '11' }), card)).toMatchObject({
      kind: 'declined',
      code: 'AUTHENTICATION_FAILED',
      providerCode: 'refusal_11',
    });
    expect(storeOutcomeOf(response({ resultCode: 'Received', pspReference: 'P' }), card)).toEqual({ kind: 'pending', pspReference: 'P' });
  });

  it('a summary from an answer: the brand variant in our words and cardSummary; none without the last four', () => {
    expect(brandOfVariant('mccredit')).toBe('mastercard');
    expect(brandOfVariant('visadebit')).toBe('visa');
    expect(brandOfVariant('elo')).toBe('elo');
    expect(brandOfVariant(undefined)).toBe('unknown');
    expect(
      cardSummaryOfAnswer(
        response({ resultCode: 'Authorised', paymentMethod: { brand: 'mc', type: 'scheme' }, additionalData: { cardSummary: '4444' } }),
      ),
    ).toEqual({
      brand: 'mastercard',
      last_four: '4444',
    });
    expect(cardSummaryOfAnswer(response({ resultCode: 'Authorised', paymentMethod: { brand: 'visa' } }))).toBeNull();
  });
});

describe('a charge on the stored card', () => {
  it('is ContAuth on the token, Subscription, with its shopperReference, no 3-D Secure, schema-valid', () => {
    const req = chargeRequest();
    const body = storedChargeRequest(req, ACCOUNT);
    expect(z.safeParse(paymentRequestSchema, body).success).toBe(true);
    expect(tokenizationViolations(body)).toEqual([]);
    expect(body).toEqual({
      merchantAccount: ACCOUNT,
      reference: req.reference,
      amount: { currency: 'BRL', value: 4990 },
      paymentMethod: { type: 'scheme', storedPaymentMethodId: 'M5N7TQ4TG5PFWR50' },
      returnUrl: req.returnUrl,
      shopperInteraction: 'ContAuth',
      recurringProcessingModel: 'Subscription',
      countryCode: 'BR',
      shopperReference: req.shopperReference,
    });
    // A later attempt's reference is the payment's; another payment's is refused.
    expect(
      storedChargeRequest(chargeRequest({ paymentId: req.paymentId, reference: paymentReferenceOf(req.paymentId, 2) }), ACCOUNT).reference,
    ).toBe(paymentReferenceOf(req.paymentId, 2));
    expect(() => storedChargeRequest(chargeRequest({ reference: paymentReferenceOf(id('pi_')) }), ACCOUNT)).toThrow(RangeError);
  });

  it('maps as the card payment: approved, soft and hard declines; a token that is gone keeps its own code', () => {
    expect(chargeOutcomeOf(response({ resultCode: 'Authorised', pspReference: 'P1', additionalData: { authCode: 'A1' } }))).toEqual({
      kind: 'approved',
      authorizationCode: 'A1',
      pspReference: 'P1',
    });
    expect(chargeOutcomeOf(response({ resultCode: 'Refused', pspReference: 'P2', refusalReasonCode: '12' }))).toMatchObject({
      kind: 'declined',
      code: 'INSUFFICIENT_FUNDS',
      providerCode: 'refusal_12',
    });
    expect(chargeOutcomeOf(response({ resultCode: 'Refused', pspReference: 'P3', refusalReasonCode: '4' }))).toMatchObject({ soft: true });
    expect(chargeOutcomeOf(response({ resultCode: 'Refused', pspReference: 'P4', refusalReason: '803 PaymentDetail not found' }))).toEqual({
      kind: 'declined',
      code: 'CARD_DECLINED',
      message: 'The card was declined.',
      providerCode: 'stored_method_not_found',
      pspReference: 'P4',
    });
  });

  it('the tokenization rules the fake holds a request to', () => {
    const store = storeCardRequest(storeRequest(), ACCOUNT);
    expect(tokenizationViolations({ ...store, storePaymentMethod: undefined })).toEqual([
      'a zero-value authorisation without storePaymentMethod (we only ever zero-auth to store a card)',
    ]);
    expect(tokenizationViolations({ ...store, recurringProcessingModel: undefined })).toHaveLength(1);
    const charge = storedChargeRequest(chargeRequest(), ACCOUNT);
    expect(tokenizationViolations({ ...charge, shopperInteraction: 'Ecommerce', browserInfo: store.browserInfo })).toEqual([
      'a stored card charged without shopperInteraction ContAuth',
      'a merchant-initiated charge carries 3-D Secure fields',
    ]);
  });
});

describe('disabling a stored card (DELETE /storedPaymentMethods/{id})', () => {
  const config = parseProvidersConfig(
    { adyen: { base_url: 'https://checkout-test.adyen.com/v71', api_key: 'AQE-test-key', merchant_account: ACCOUNT, hmac_key_hex: KEY } },
    'test',
  ).adyen as NonNullable<ReturnType<typeof parseProvidersConfig>['adyen']>;
  const answer = (status: number, body?: unknown): HttpAnswer => ({
    status,
    headers: {},
    text: body === undefined ? '' : JSON.stringify(body),
  });
  function scripted(...answers: HttpAnswer[]) {
    const sent: Array<{ method: string; url: string; headers: Record<string, string>; body?: string }> = [];
    const http: ProviderHttp = {
      async send(req) {
        sent.push({ method: req.method, url: req.url, headers: req.headers ?? {}, ...(req.body ? { body: req.body } : {}) });
        const a = answers.shift();
        if (!a) throw new Error('no scripted answer');
        return a;
      },
      close() {},
    };
    return { storedCards: adyenConnectors(config, adyenClient(config, http)).storedCards, sent };
  }
  const card = { shopperReference: shopperReferenceOf(id('md_')), storedPaymentMethodId: 'M5N7TQ4TG5PFWR50' };

  it('sends DELETE with the shopper and account in the query, no body and no Idempotency-Key; 204 is done', async () => {
    const { storedCards, sent } = scripted(answer(204));
    await storedCards.disable(card);
    expect(sent).toEqual([
      {
        method: 'DELETE',
        url: `https://checkout-test.adyen.com/v71/storedPaymentMethods/M5N7TQ4TG5PFWR50?shopperReference=${card.shopperReference}&merchantAccount=${ACCOUNT}`,
        headers: { 'x-api-key': 'AQE-test-key' },
      },
    ]);
  });

  it('a token already gone (404, 422 800 or 803) is done; another refusal is ProviderRejected; a 500 ProviderUnavailable', async () => {
    for (const a of [
      answer(404),
      answer(422, { status: 422, errorCode: '800', message: 'Contract not found' }),
      answer(422, { errorCode: '803' }),
    ])
      await expect(scripted(a).storedCards.disable(card)).resolves.toBeUndefined();
    await expect(scripted(answer(422, { status: 422, errorCode: '702' })).storedCards.disable(card)).rejects.toBeInstanceOf(
      ProviderRejected,
    );
    await expect(scripted(answer(500)).storedCards.disable(card)).rejects.toBeInstanceOf(ProviderUnavailable);
  });

  it('the provider names itself and derives the references', () => {
    const { storedCards } = scripted();
    const md = id('md_');
    expect(storedCards.provider).toMatchObject({ name: 'adyen' });
    expect(storedCards.provider.reference(md)).toBe(mandateReferenceOf(md));
    expect(storedCards.provider.shopperReference(md)).toBe(shopperReferenceOf(md));
  });
});

describe('notifications of a card mandate’s approval', () => {
  const sign = (i: NotificationItem): NotificationItem => {
    const { additionalData, ...fields } = i;
    return { ...fields, additionalData: { ...additionalData, hmacSignature: hmacOf(fields, KEY) } };
  };
  const parse = (...items: NotificationItem[]) =>
    adyenNotifications({ hmac_key_hex: KEY, merchant_account: ACCOUNT }).parse({
      live: 'false',
      notificationItems: items.map((i) => ({ NotificationRequestItem: sign(i) })),
    });
  const md = id('md_');
  const base = {
    merchantAccountCode: ACCOUNT,
    merchantReference: mandateReferenceOf(md),
    amount: { currency: 'BRL', value: 0 },
    eventDate: '2026-11-27T10:00:00+01:00',
  };

  it('a successful AUTHORISATION names the mandate and the token; it names no payment', () => {
    const r = parse({
      ...base,
      eventCode: 'AUTHORISATION',
      success: 'true',
      pspReference: 'QFQTPCQ8HXSKGK82',
      additionalData: {
        'tokenization.shopperReference': shopperReferenceOf(md),
        'tokenization.storedPaymentMethodId': 'M5N7TQ4TG5PFWR50',
        'tokenization.store.operationType': 'created',
      },
    });
    expect(r?.forged).toBe(0);
    expect(r?.items[0]).toMatchObject({
      event: 'authorisation',
      mandateId: md,
      storedPaymentMethodId: 'M5N7TQ4TG5PFWR50',
      paymentId: null,
    });
    expect(JSON.stringify(r?.items[0]?.record)).not.toContain('M5N7TQ4TG5PFWR50');
  });

  it('a refused one names the mandate and no token; RECURRING_CONTRACT names the token (its pspReference)', () => {
    const r = parse(
      { ...base, eventCode: 'AUTHORISATION', success: 'false', pspReference: 'P1', reason: 'Not enough balance' },
      {
        ...base,
        eventCode: 'RECURRING_CONTRACT',
        success: 'true',
        pspReference: 'M5N7TQ4TG5PFWR50',
        originalReference: 'QFQTPCQ8HXSKGK82',
      },
    );
    expect(r?.items[0]).toMatchObject({ mandateId: md, decline: { code: 'INSUFFICIENT_FUNDS' } });
    expect(r?.items[0]).not.toHaveProperty('storedPaymentMethodId');
    expect(r?.items[1]).toMatchObject({
      event: 'other',
      eventCode: 'RECURRING_CONTRACT',
      mandateId: md,
      storedPaymentMethodId: 'M5N7TQ4TG5PFWR50',
    });
  });

  it('a payment’s notification names no mandate', () => {
    const r = parse({
      ...base,
      merchantReference: paymentReferenceOf(id('pi_')),
      eventCode: 'AUTHORISATION',
      success: 'true',
      pspReference: 'P9',
    });
    expect(r?.items[0]).not.toHaveProperty('mandateId');
  });
});
