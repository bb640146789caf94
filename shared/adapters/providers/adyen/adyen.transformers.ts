/**
 * Between our domain and Adyen's wire: merchant references derived from our ids (reversible), idempotency keys
 * derived from them, amounts in Adyen's minor units, the card payment we request, and what a resultCode and a
 * refusalReasonCode mean to us.
 */
import type { DeclineCode, HeldCardOutcome, HeldCardRequest, ShopperBrowser, ShopperRedirect } from '../../../application/providers';
import { CURRENCY_DECIMALS, type CountryCode, type CurrencyCode } from '../../../domain/geo';
import type { CardInput } from '../../../domain/payments/payment.schemas';
import type { AdyenAmount, AdyenBrowserInfo, PaymentRequest, PaymentResponse } from './adyen.schemas';
import { fromReference, toReference } from '../references';

/**
 * Merchant reference of a payment's attempt: `pi` + 32 hex for attempt 1 (the payment's reference as before
 * routing), then `a<n>` appended (`pi<hex>a2`, DESIGN.md 9.2): each attempt its own reference, so its own
 * Idempotency-Keys and its own payment at Adyen, and reversible to the payment and the attempt.
 */
export function paymentReferenceOf(paymentId: string, attempt = 1): string {
  if (!Number.isInteger(attempt) || attempt < 1 || attempt > 99) throw new RangeError('attempt must be 1-99');
  const base = toReference(paymentId, 'pi_', 'pi');
  return attempt === 1 ? base : `${base}a${attempt}`;
}

/** The payment and attempt of a merchant reference of ours, or null. */
export function attemptOfReference(ref: string): { paymentId: string; attempt: number } | null {
  const m = /^(pi[0-9a-f]{32})(?:a([2-9]|[1-9]\d))?$/.exec(ref);
  const paymentId = m ? fromReference(m[1] as string, 'pi_', 'pi') : null;
  return paymentId ? { paymentId, attempt: m?.[2] ? Number(m[2]) : 1 } : null;
}

export const paymentIdOfReference = (ref: string) => attemptOfReference(ref)?.paymentId ?? null;
/** Merchant reference of a refund: `re` + 32 hex. */
export const refundReferenceOf = (refundId: string) => toReference(refundId, 're_', 're');
export const refundIdOfReference = (ref: string) => fromReference(ref, 're_', 're');

/** Merchant reference of a card mandate's approval (the zero-value authorisation that stores the card): `md` + 32 hex. */
export const mandateReferenceOf = (mandateId: string) => toReference(mandateId, 'md_', 'md');
export const mandateIdOfReference = (ref: string) => fromReference(ref, 'md_', 'md');
/**
 * The shopperReference a mandate's card is stored under at Adyen: `sr` + the mandate id's 32 hex. Fixed by the
 * mandate (stable across retries), at least 3 characters, no personal data (Adyen forbids it in this field).
 */
export const shopperReferenceOf = (mandateId: string) => toReference(mandateId, 'md_', 'sr');

/** Idempotency-Key of one operation on one of our objects: the same on every retry of it, distinct across operations. */
export const idempotencyKeyOf = (operation: 'payment' | 'details' | 'refund' | 'cancel', reference: string) => `${operation}-${reference}`;

/**
 * Adyen's minor units per currency (its currency table), which differ from ours where ISO and Adyen disagree:
 * Adyen counts CLP in hundredths although the peso has no subunit.
 */
const ADYEN_DECIMALS: Readonly<Record<CurrencyCode, number>> = { BRL: 2, PEN: 2, COP: 2, CLP: 2, MXN: 2, USD: 2, ARS: 2, USDT: 2 };

export function adyenAmount(amountMinor: number, currency: CurrencyCode): AdyenAmount {
  return { currency, value: amountMinor * 10 ** (ADYEN_DECIMALS[currency] - CURRENCY_DECIMALS[currency]) };
}

export function ourMinor(value: number, currency: CurrencyCode): number {
  return Math.round(value / 10 ** (ADYEN_DECIMALS[currency] - CURRENCY_DECIMALS[currency]));
}

const ALPHA2: Readonly<Record<CountryCode, string>> = { BRA: 'BR', PER: 'PE', COL: 'CO', CHL: 'CL', MEX: 'MX', ECU: 'EC', ARG: 'AR' };

/** The raw card as Adyen's scheme details (PCI scope: never logged, never stored). */
export function cardDetailsOf(card: CardInput): Extract<PaymentRequest['paymentMethod'], { number: string }> {
  return {
    type: 'scheme',
    number: card.number,
    expiryMonth: card.expiry_month,
    expiryYear: card.expiry_year,
    cvc: card.cvv,
    holderName: card.holder_name,
  };
}

/** The shopper's browser for 3-D Secure 2, as Adyen's browserInfo. */
export function browserInfoOf(b: ShopperBrowser): AdyenBrowserInfo {
  return {
    acceptHeader: b.acceptHeader,
    colorDepth: b.colorDepth,
    javaEnabled: b.javaEnabled,
    language: b.language,
    screenHeight: b.screenHeight,
    screenWidth: b.screenWidth,
    timeZoneOffset: b.timeZoneOffset,
    userAgent: b.userAgent,
  };
}

/** The card payment: the same fields on every call for one payment (a retry repeats the same request). */
export function cardPaymentRequest(req: HeldCardRequest, merchantAccount: string): PaymentRequest {
  return {
    merchantAccount,
    reference: ourAttemptReference(req.paymentId, req.reference),
    amount: adyenAmount(req.amountMinor, req.currency),
    paymentMethod: cardDetailsOf(req.card),
    returnUrl: req.returnUrl,
    channel: 'Web',
    shopperInteraction: 'Ecommerce',
    countryCode: ALPHA2[req.country],
    shopperReference: req.shopper.reference,
    shopperEmail: req.shopper.email,
    ...(req.installments > 1 ? { installments: { value: req.installments } } : {}),
    ...(req.browser ? { browserInfo: browserInfoOf(req.browser) } : {}),
  };
}

/** An attempt's reference as given (one of this payment's: never another's), default attempt 1's. */
export function ourAttemptReference(paymentId: string, reference: string | undefined): string {
  if (reference === undefined) return paymentReferenceOf(paymentId);
  if (attemptOfReference(reference)?.paymentId !== paymentId) throw new RangeError('not a reference of this payment');
  return reference;
}

type Decline = { code: DeclineCode | 'AUTHENTICATION_FAILED'; message: string };

/**
 * The refusal reasons after which another acquirer may approve (one failover per payment, DESIGN.md 9.2): the
 * issuer never said no. From Adyen's refusal reasons page (docs.adyen.com/development-resources/refusal-reasons):
 * 4 "Acquirer Error" (the transaction did not go through due to an error on the acquirer's end) and 9 "Issuer
 * Unavailable" (the shopper's bank could not be contacted to authorise it). Chosen conservatively; left hard on
 * purpose: 2 Refused and 3 Referral (the do-not-honor class), 5/6/8 the card, 7 Invalid Amount, 10 Not supported
 * (the issuer's own no), 12 Not enough balance, 14/20/22/31 fraud, 11/38/39/42 3-D Secure, 21 "Not Submitted"
 * (whether anything reached the issuer is not said), 23/25/26/27 the issuer's refusals, 46 "blocked to prevent
 * excessive retry fees" (a retry elsewhere is what it forbids), and a resultCode Error (no reason given).
 */
export const ADYEN_SOFT_REFUSALS: ReadonlySet<string> = new Set(['4', '9']);

/**
 * refusalReasonCode (Adyen's refusal reasons) → our failure_code. Mapped: 6 Expired Card, 12 Not enough balance,
 * 24 CVC Declined, 11 3D Not Authenticated, 38 Authentication required, 39 RReq not received, 42 3DS
 * Authentication Error. Every other code (2 Refused, 5 Blocked Card, 7 Invalid Amount, 8 Invalid Card Number,
 * 14/20/22/31 fraud, ...) is a generic card_declined, with the provider code kept on the payment.
 */
const REFUSALS: Readonly<Record<string, Decline>> = {
  '6': { code: 'EXPIRED_CARD', message: 'The card has expired.' },
  '12': { code: 'INSUFFICIENT_FUNDS', message: 'The card has insufficient funds.' },
  '24': { code: 'INCORRECT_CVC', message: 'The card security code is incorrect.' },
  '11': { code: 'AUTHENTICATION_FAILED', message: '3-D Secure authentication failed.' },
  '38': { code: 'AUTHENTICATION_FAILED', message: 'The issuer requires 3-D Secure authentication.' },
  '39': { code: 'AUTHENTICATION_FAILED', message: '3-D Secure authentication failed.' },
  '42': { code: 'AUTHENTICATION_FAILED', message: '3-D Secure authentication failed.' },
};

export function declineOf(refusalReasonCode: string | undefined): Decline {
  return REFUSALS[refusalReasonCode ?? ''] ?? { code: 'CARD_DECLINED', message: 'The card was declined.' };
}

/** The shopper's next step from an action: a redirect we can forward to, or null (an action we do not drive). */
export function redirectOf(action: PaymentResponse['action']): ShopperRedirect | null {
  if (!action || action.type !== 'redirect' || typeof action.url !== 'string') return null;
  const method = String(action.method ?? 'GET').toUpperCase() === 'POST' ? 'POST' : 'GET';
  const raw = action.data;
  const data: Record<string, string> = {};
  if (raw && typeof raw === 'object')
    for (const [k, v] of Object.entries(raw as Record<string, unknown>)) if (typeof v === 'string') data[k] = v;
  return { url: action.url, method, data };
}

/**
 * resultCode → our outcome. Authorised: approved (automatic capture). Refused: declined with the refusal reason.
 * Error and Cancelled: declined (card_declined). RedirectShopper/IdentifyShopper/ChallengeShopper: the shopper
 * authenticates (only a redirect action can be forwarded; any other action waits for the notification).
 * Pending/Received/PresentToShopper and the rest: pending until the notification.
 */
export function outcomeOf(r: PaymentResponse): HeldCardOutcome {
  const psp = r.pspReference ? { pspReference: r.pspReference } : {};
  switch (r.resultCode) {
    case 'Authorised':
      if (!r.pspReference) return { kind: 'pending' };
      return { kind: 'approved', authorizationCode: r.additionalData?.authCode ?? r.pspReference, pspReference: r.pspReference };
    case 'Refused':
      return {
        kind: 'declined',
        ...declineOf(r.refusalReasonCode),
        providerCode: `refusal_${r.refusalReasonCode ?? 'unknown'}`,
        ...psp,
        ...(ADYEN_SOFT_REFUSALS.has(r.refusalReasonCode ?? '') ? { soft: true as const } : {}),
      };
    case 'Error':
    case 'Cancelled':
      return {
        kind: 'declined',
        code: 'CARD_DECLINED',
        message: 'The card was declined.',
        providerCode: r.resultCode.toLowerCase(),
        ...psp,
      };
    case 'RedirectShopper':
    case 'IdentifyShopper':
    case 'ChallengeShopper': {
      const redirect = redirectOf(r.action);
      return redirect ? { kind: 'redirect', redirect, ...psp } : { kind: 'pending', ...psp };
    }
    default:
      return { kind: 'pending', ...psp };
  }
}

/** A notification's `reason` for a refused AUTHORISATION is the refusal reason's text: the same mapping by text. */
const REFUSAL_TEXTS: Readonly<Record<string, string>> = {
  'expired card': '6',
  'not enough balance': '12',
  'cvc declined': '24',
  '3d not authenticated': '11',
  'authentication required': '38',
  '3ds authentication error': '42',
};

export function declineOfReason(reason: string | undefined): Decline {
  const text = (reason ?? '').split(':')[0]?.trim().toLowerCase() ?? '';
  return declineOf(REFUSAL_TEXTS[text]);
}

/** Adyen's shopperName from our customer's name: the last word is the last name. */
export function shopperNameOf(name: string): { firstName: string; lastName: string } {
  const parts = name.trim().split(/\s+/);
  const last = parts.length > 1 ? (parts.pop() as string) : (parts[0] as string);
  return { firstName: parts.join(' ').slice(0, 80) || last.slice(0, 80), lastName: last.slice(0, 80) };
}

export const countryAlpha2 = (c: CountryCode) => ALPHA2[c];
