/**
 * Between our card mandates and Adyen's tokenization (Checkout v71): the zero-value authorisation that stores a card
 * for a subscription (3-D Secure as the card payment does it, forced), the merchant-initiated charge on the stored
 * card (ContAuth, no shopper, no 3-D Secure), and what their answers mean to us. The authorisation's own mapping
 * (resultCode, refusal reasons, the redirect) is the card payment's, in adyen.transformers.ts.
 */
import type { HeldCardOutcome, StoreCardOutcome, StoreCardRequest, StoredCardChargeRequest } from '../../../application/providers';
import { cardBrand } from '../../../domain/payments/card';
import type { CardSummary } from '../../../domain/payments/payment';
import type { PaymentRequest, PaymentResponse } from './adyen.schemas';
import {
  adyenAmount,
  browserInfoOf,
  cardDetailsOf,
  countryAlpha2,
  mandateReferenceOf,
  ourAttemptReference,
  outcomeOf,
} from './adyen.transformers';

/** The recurring type of every card we store and charge: a mandate charges on a schedule (DESIGN.md 9.3). */
const MODEL = 'Subscription';

/** A mandate's approval reference as given (the mandate's own: never another's). */
function ourMandateReference(mandateId: string, reference: string): string {
  if (reference !== mandateReferenceOf(mandateId)) throw new RangeError('not the reference of this mandate');
  return reference;
}

/**
 * The approval: a zero-value authorisation in the mandate's currency that stores the card under the mandate's
 * shopperReference for subscription charges. Authenticated: the same browserInfo, returnUrl and channel as a card
 * payment, with 3-D Secure always attempted (the cardholder present once, for every later charge without them).
 */
export function storeCardRequest(req: StoreCardRequest, merchantAccount: string): PaymentRequest {
  return {
    merchantAccount,
    reference: ourMandateReference(req.mandateId, req.reference),
    amount: adyenAmount(0, req.currency),
    paymentMethod: cardDetailsOf(req.card),
    returnUrl: req.returnUrl,
    channel: 'Web',
    shopperInteraction: 'Ecommerce',
    countryCode: countryAlpha2(req.country),
    shopperReference: req.shopperReference,
    shopperEmail: req.shopper.email,
    storePaymentMethod: true,
    recurringProcessingModel: MODEL,
    authenticationData: { attemptAuthentication: 'always' },
    ...(req.browser ? { browserInfo: browserInfoOf(req.browser) } : {}),
  };
}

/**
 * A charge on the stored card: the token and the shopper it is stored under, ContAuth (no shopper present, so no
 * browserInfo and no 3-D Secure), the subscription model, the payment attempt's reference.
 */
export function storedChargeRequest(req: StoredCardChargeRequest, merchantAccount: string): PaymentRequest {
  return {
    merchantAccount,
    reference: ourAttemptReference(req.paymentId, req.reference),
    amount: adyenAmount(req.amountMinor, req.currency),
    paymentMethod: { type: 'scheme', storedPaymentMethodId: req.storedPaymentMethodId },
    returnUrl: req.returnUrl,
    shopperInteraction: 'ContAuth',
    recurringProcessingModel: MODEL,
    countryCode: countryAlpha2(req.country),
    shopperReference: req.shopperReference,
  };
}

/**
 * The stored card's id in an answer (or a notification's additionalData): `tokenization.storedPaymentMethodId`
 * (Checkout v71), else the field it replaces, `recurring.recurringDetailReference`.
 */
export function storedMethodIdOf(additionalData: Readonly<Record<string, string>> | undefined): string | null {
  const id = additionalData?.['tokenization.storedPaymentMethodId'] ?? additionalData?.['recurring.recurringDetailReference'];
  return id && /^[A-Za-z0-9]{1,64}$/.test(id) ? id : null;
}

/** Adyen's card variant (visa, visadebit, mc, mccredit, amex, elo, hipercard, ...) in our brand words. */
export function brandOfVariant(variant: string | undefined): string {
  const v = (variant ?? '').toLowerCase();
  if (v.startsWith('visa')) return 'visa';
  if (v === 'mc' || v.startsWith('mc') || v.startsWith('mastercard')) return 'mastercard';
  if (v.startsWith('amex')) return 'amex';
  if (v.startsWith('elo')) return 'elo';
  if (v.startsWith('hiper')) return 'hipercard';
  return /^[a-z0-9_]{1,32}$/.test(v) ? v : 'unknown';
}

/** The card's summary from our own input (brand by BIN, last four): never the number. */
export function cardSummaryOfInput(number: string): CardSummary {
  return { brand: cardBrand(number) ?? 'unknown', last_four: number.slice(-4) };
}

/**
 * The card's summary from an answer: the brand (`paymentMethod.brand`, v69+, or additionalData `paymentMethod`) and
 * additionalData `cardSummary` (its last four digits, sent only when the account's additional data settings
 * include it). Null when the last four are not there.
 */
export function cardSummaryOfAnswer(r: PaymentResponse): CardSummary | null {
  const lastFour = r.additionalData?.cardSummary;
  if (!lastFour || !/^\d{4}$/.test(lastFour)) return null;
  return { brand: brandOfVariant(r.paymentMethod?.brand ?? r.additionalData?.paymentMethod), last_four: lastFour };
}

/**
 * The approval's outcome: the card payment's mapping, where an authorisation that stored the card is `stored` with
 * its token and summary. An authorisation whose answer names no token is pending: the AUTHORISATION notification
 * (its additionalData) names it.
 */
export function storeOutcomeOf(r: PaymentResponse, card: CardSummary): StoreCardOutcome {
  const o = outcomeOf(r);
  if (o.kind !== 'approved') return o;
  const storedPaymentMethodId = storedMethodIdOf(r.additionalData);
  return storedPaymentMethodId
    ? { kind: 'stored', storedPaymentMethodId, card, pspReference: o.pspReference }
    : { kind: 'pending', pspReference: o.pspReference };
}

/**
 * A charge's outcome: the card payment's mapping. A refusal whose reason is Adyen's "803 PaymentDetail not found"
 * (the token was disabled, or never stored for that shopper) keeps a code of its own on the payment.
 */
export function chargeOutcomeOf(r: PaymentResponse): HeldCardOutcome {
  const o = outcomeOf(r);
  if (o.kind === 'declined' && /^803\b/.test(r.refusalReason ?? '')) return { ...o, providerCode: 'stored_method_not_found' };
  return o;
}
