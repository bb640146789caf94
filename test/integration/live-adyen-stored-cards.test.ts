/**
 * Cards on file through Adyen (issue 43, DESIGN.md 9.3): the stored-card connector over HTTPS against the fake Adyen,
 * which checks every request against our schemas of Checkout v71 and its tokenization rules. The approval stores the
 * card (frictionless, or through the 3-D Secure challenge and the details call), a refused one stores nothing;
 * charges are ContAuth on the token (approved, declined by amount or script, refused once the token is disabled);
 * disabling is idempotent; faults are ProviderUnavailable; the approval's notification names the token. No DynamoDB:
 * the connector alone, as the mandate use cases will call it.
 */
import { randomBytes } from 'node:crypto';
import { ProviderUnavailable, type StoreCardRequest, type StoredCardConnector } from '../../shared/application/providers';
import { adyenConnectors } from '../../shared/adapters/providers/adyen/adyen.connector';
import { paymentReferenceOf } from '../../shared/adapters/providers/adyen/adyen.transformers';
import { assembleLiveProviders } from '../../shared/adapters/providers/live-providers';
import { parseProvidersConfig } from '../../shared/adapters/providers/providers.config';
import { startFakeAdyen, type FakeAdyen } from '../support/fake-adyen';

let adyen: FakeAdyen;
let connectors: ReturnType<typeof adyenConnectors>;
let cards: StoredCardConnector;
beforeAll(async () => {
  adyen = await startFakeAdyen({ hangMs: 5_000 });
  connectors = adyenConnectors(
    parseProvidersConfig({ adyen: adyen.adyenConfig({ timeouts: { connect_ms: 3_000, total_ms: 4_000 } }) }, 'test').adyen!,
  );
  cards = connectors.storedCards;
});
afterAll(async () => {
  connectors?.client.close();
  await adyen?.close();
});
afterEach(() => expect(adyen.violations).toEqual([]));

const id = (prefix: string) => `${prefix}${randomBytes(16).toString('base64url')}`;
const year = String(new Date().getUTCFullYear() + 3);

function approval(over: Partial<StoreCardRequest> = {}): StoreCardRequest {
  const mandateId = id('md_');
  return {
    mandateId,
    reference: cards.provider.reference(mandateId),
    shopperReference: cards.provider.shopperReference(mandateId),
    currency: 'BRL',
    country: 'BRA',
    card: { number: '4111111145551142', holder_name: 'ANA SILVA', expiry_month: '03', expiry_year: year, cvv: '737' },
    shopper: { reference: 'cus_gym_42', email: 'ana@example.com' },
    returnUrl: 'http://127.0.0.1:1/providers/adyen/mandates/return',
    browser: {
      acceptHeader: 'text/html',
      userAgent: 'Mozilla/5.0 (test)',
      language: 'pt-BR',
      colorDepth: 24,
      screenHeight: 900,
      screenWidth: 1440,
      timeZoneOffset: 180,
      javaEnabled: false,
    },
    ...over,
  };
}

/** A stored card, approved frictionless. */
async function stored() {
  const req = approval();
  const o = await cards.store(req);
  if (o.kind !== 'stored') throw new Error(`not stored: ${o.kind}`);
  return { req, storedPaymentMethodId: o.storedPaymentMethodId };
}

const charge = (s: { req: StoreCardRequest; storedPaymentMethodId: string }, amountMinor = 4990, paymentId = id('pi_')) =>
  cards.charge({
    paymentId,
    reference: paymentReferenceOf(paymentId),
    amountMinor,
    currency: 'BRL',
    country: 'BRA',
    shopperReference: s.req.shopperReference,
    storedPaymentMethodId: s.storedPaymentMethodId,
    returnUrl: 'http://127.0.0.1:1/providers/adyen/return/x',
  });

const lastRequest = (path: string) => [...adyen.requests].reverse().find((r) => r.path.startsWith(path));

describe('cards on file through Adyen (the fake)', () => {
  it('store frictionless: a zero-value authorisation that stores the card for Subscription; stored with the token', async () => {
    const req = approval();
    const o = await cards.store(req);
    const token = adyen.storedMethods().find((m) => m.shopperReference === req.shopperReference);
    expect(token).toMatchObject({ lastFour: '1142', disabled: false, supportedRecurringProcessingModels: ['Subscription'] });
    expect(o).toEqual({
      kind: 'stored',
      storedPaymentMethodId: token!.id,
      card: { brand: 'visa', last_four: '1142' },
      pspReference: adyen.payment(req.reference)!.pspReference,
    });
    const sent = lastRequest('/payments')!;
    expect(sent.headers['idempotency-key']).toBe(`payment-${req.reference}`);
    expect(sent.body).toMatchObject({
      amount: { currency: 'BRL', value: 0 },
      storePaymentMethod: true,
      recurringProcessingModel: 'Subscription',
      shopperInteraction: 'Ecommerce',
      shopperReference: req.shopperReference,
      authenticationData: { attemptAuthentication: 'always' },
    });
    // The same approval again (a retry after no answer) is the same call: the same token, nothing stored twice.
    expect(await cards.store(req)).toEqual(o);
    expect(adyen.storedMethods().filter((m) => m.shopperReference === req.shopperReference)).toHaveLength(1);
  });

  it('store with a 3-D Secure challenge: redirect, then completeStore with its redirectResult: stored, summary from the list', async () => {
    const req = approval({ card: { ...approval().card, number: '5555444433331111' } });
    adyen.nextCard({ resultCode: 'RedirectShopper' });
    const first = await cards.store(req);
    expect(first).toMatchObject({
      kind: 'redirect',
      redirect: { method: 'GET', url: expect.stringContaining(`/hpp/3ds/${req.reference}`) },
    });
    expect(adyen.storedMethods().some((m) => m.shopperReference === req.shopperReference)).toBe(false);
    const redirectResult = adyen.authenticate(req.reference, true);
    const done = await cards.completeStore({ mandateId: req.mandateId, redirectResult });
    const token = adyen.storedMethods().find((m) => m.shopperReference === req.shopperReference)!;
    expect(done).toEqual({
      kind: 'stored',
      storedPaymentMethodId: token.id,
      card: { brand: 'mastercard', last_four: '1111' },
      pspReference: adyen.payment(req.reference)!.pspReference,
    });
    expect(lastRequest('/storedPaymentMethods')?.headers['idempotency-key']).toBeUndefined();
  });

  it('a failed challenge and a refused approval store nothing: declined with the card payment’s codes', async () => {
    const req = approval();
    adyen.nextCard({ resultCode: 'RedirectShopper' });
    expect((await cards.store(req)).kind).toBe('redirect');
    expect(await cards.completeStore({ mandateId: req.mandateId, redirectResult: adyen.authenticate(req.reference, false) })).toMatchObject(
      {
        kind: 'declined',
        code: 'AUTHENTICATION_FAILED',
        providerCode: 'refusal_11',
      },
    );
    const refused = approval();
    adyen.nextCard({ resultCode: 'Refused', refusalReasonCode: '12', refusalReason: 'Not enough balance' });
    expect(await cards.store(refused)).toMatchObject({ kind: 'declined', code: 'INSUFFICIENT_FUNDS', providerCode: 'refusal_12' });
    for (const r of [req, refused]) expect(adyen.storedMethods().some((m) => m.shopperReference === r.shopperReference)).toBe(false);
  });

  it('charge: ContAuth on the token, no 3-D Secure, approved; the same attempt again is the same payment', async () => {
    const s = await stored();
    const paymentId = id('pi_');
    const o = await charge(s, 4990, paymentId);
    const reference = paymentReferenceOf(paymentId);
    expect(o).toEqual({ kind: 'approved', authorizationCode: expect.any(String), pspReference: adyen.payment(reference)!.pspReference });
    const sent = lastRequest('/payments')!;
    expect(sent.headers['idempotency-key']).toBe(`payment-${reference}`);
    expect(sent.body).toEqual({
      merchantAccount: adyen.merchantAccount,
      reference,
      amount: { currency: 'BRL', value: 4990 },
      paymentMethod: { type: 'scheme', storedPaymentMethodId: s.storedPaymentMethodId },
      returnUrl: 'http://127.0.0.1:1/providers/adyen/return/x',
      shopperInteraction: 'ContAuth',
      recurringProcessingModel: 'Subscription',
      countryCode: 'BR',
      shopperReference: s.req.shopperReference,
    });
    expect(await charge(s, 4990, paymentId)).toEqual(o);
  });

  it('charge declines: by amount (51 balance, 52 soft), by script, and a token of another shopper is refused', async () => {
    const s = await stored();
    expect(await charge(s, 4951)).toMatchObject({ kind: 'declined', code: 'INSUFFICIENT_FUNDS', providerCode: 'refusal_12' });
    expect(await charge(s, 4952)).toMatchObject({ kind: 'declined', code: 'CARD_DECLINED', providerCode: 'refusal_4', soft: true });
    adyen.nextStoredCharge({ resultCode: 'Refused', refusalReasonCode: '6', refusalReason: 'Expired Card' });
    expect(await charge(s, 4990)).toMatchObject({ kind: 'declined', code: 'EXPIRED_CARD' });
    const other = await stored();
    expect(await charge({ req: other.req, storedPaymentMethodId: s.storedPaymentMethodId })).toMatchObject({
      kind: 'declined',
      providerCode: 'stored_method_not_found',
    });
  });

  it('disable: the token is deleted at Adyen, a charge on it is refused, and disabling again is fine', async () => {
    const s = await stored();
    const card = { shopperReference: s.req.shopperReference, storedPaymentMethodId: s.storedPaymentMethodId };
    await cards.disable(card);
    expect(adyen.storedMethods().find((m) => m.id === s.storedPaymentMethodId)?.disabled).toBe(true);
    const del = lastRequest('/storedPaymentMethods')!;
    expect(del.headers['idempotency-key']).toBeUndefined();
    expect(await charge(s)).toMatchObject({ kind: 'declined', code: 'CARD_DECLINED', providerCode: 'stored_method_not_found' });
    await expect(cards.disable(card)).resolves.toBeUndefined();
  });

  it('faults: a 500 on a charge or a delete, a hang on the approval: ProviderUnavailable', async () => {
    const s = await stored();
    adyen.failNext('payments', { status: 500 });
    await expect(charge(s)).rejects.toBeInstanceOf(ProviderUnavailable);
    adyen.failNext('storedPaymentMethods', { status: 503 });
    await expect(
      cards.disable({ shopperReference: s.req.shopperReference, storedPaymentMethodId: s.storedPaymentMethodId }),
    ).rejects.toBeInstanceOf(ProviderUnavailable);
    const short = adyenConnectors(
      parseProvidersConfig({ adyen: adyen.adyenConfig({ timeouts: { connect_ms: 1_000, total_ms: 1_000 } }) }, 'test').adyen!,
    );
    adyen.failNext('payments', { hang: true });
    await expect(short.storedCards.store(approval())).rejects.toBeInstanceOf(ProviderUnavailable);
    short.client.close();
  });

  it('the approval’s AUTHORISATION notification names the mandate and the token', async () => {
    const s = await stored();
    const item = adyen.item({ eventCode: 'AUTHORISATION', merchantReference: s.req.reference });
    const parsed = connectors.notifications.parse({ live: 'false', notificationItems: [{ NotificationRequestItem: item }] });
    expect(parsed?.items[0]).toMatchObject({
      event: 'authorisation',
      success: true,
      paymentId: null,
      mandateId: s.req.mandateId,
      storedPaymentMethodId: s.storedPaymentMethodId,
    });
  });

  it('is wired: Connectors.storedCards with the adyen block, absent without it', () => {
    expect(assembleLiveProviders(null, null, connectors).connectors?.storedCards).toBe(connectors.storedCards);
    expect(assembleLiveProviders(null, null, null).connectors?.storedCards).toBeUndefined();
  });
});
