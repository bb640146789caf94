/**
 * Between our domain and dLocal's card wire: the order_id of each attempt (derived from our payment id, reversible),
 * the card payment we send, what a status and a rejection code mean to us (the decline table, with which declines
 * allow one failover to another acquirer), and which refusals dLocal documents as nothing created. Sources are named
 * in dlocal.card-schemas.ts. Neither dLocal's texts (status_detail, message) nor the card's number or CVV leave here.
 */
import type { DeclineCode, HeldCardOutcome, HeldCardRequest } from '../../../application/providers';
import { toReference } from '../references';
import { CARD_ORDER_ID, type CardPaymentRequest, type DlocalCardPayment } from './dlocal.card-schemas';
import { ALPHA2, dlocalAmount } from './dlocal.transformers';

/**
 * order_id of a card payment: `dc` + 32 hex (toReference, as every provider reference of ours), for attempt 1; the
 * attempt number appended as `a<n>` from attempt 2 (DESIGN.md 9.2). `dc`, not the `dp` of local pay-ins, so a card
 * order is never read as one of those (dlocal.notifications.ts maps `dp` order ids).
 */
export function cardOrderIdOf(paymentId: string, attempt = 1): string {
  if (!Number.isInteger(attempt) || attempt < 1 || attempt > 99) throw new RangeError('attempt must be 1-99');
  const base = toReference(paymentId, 'pi_', 'dc');
  return attempt === 1 ? base : `${base}a${attempt}`;
}

/** Our payment id and attempt of a card order_id, or null when it is not one of ours. */
export function parseCardOrderId(orderId: string): { paymentId: string; attempt: number } | null {
  if (!CARD_ORDER_ID.test(orderId)) return null;
  const hex = orderId.slice(2, 34);
  const attempt = orderId.length > 34 ? Number(orderId.slice(35)) : 1;
  return { paymentId: `pi_${Buffer.from(hex, 'hex').toString('base64url')}`, attempt };
}

/**
 * The request the connector takes: the application's held card request, with what dLocal asks for and the router
 * threads through. `reference` is the attempt's order_id (default `provider.reference(paymentId)`, attempt 1);
 * dLocal requires the payer's document ("User's personal identification number. Required.", the Payer Object):
 * without it the payment is refused before any call. `notificationUrl` is our notification route (POST
 * /providers/dlocal/notifications); without it, the URL in dLocal's panel.
 */
export type DlocalCardRequest = HeldCardRequest;

/**
 * The body of POST /secure_payments: the same fields on every call for one attempt. The card's data is here and
 * only here: this object is never logged, and the connector sends it and drops it.
 */
export function cardPaymentRequestOf(req: DlocalCardRequest, orderId: string): CardPaymentRequest | { invalid: string } {
  const document = req.payer?.document.replace(/[^0-9A-Za-z]/g, '') ?? '';
  if (!/^[0-9A-Za-z]{5,20}$/.test(document)) return { invalid: 'payer_document_required' };
  const c = req.card;
  return {
    amount: dlocalAmount(req.amountMinor, req.currency),
    currency: req.currency,
    country: ALPHA2[req.country],
    payment_method_id: 'CARD',
    payment_method_flow: 'DIRECT',
    payer: {
      name: (req.payer?.name ?? c.holder_name).slice(0, 100),
      email: req.shopper.email,
      document,
      user_reference: req.shopper.reference.slice(0, 100),
    },
    card: {
      holder_name: c.holder_name.slice(0, 100),
      number: c.number,
      cvv: c.cvv,
      expiration_month: Number(c.expiry_month),
      expiration_year: Number(c.expiry_year),
      ...(req.installments > 1 ? { installments: String(req.installments) } : {}),
      capture: true,
    },
    order_id: orderId,
    ...(req.notificationUrl ? { notification_url: req.notificationUrl } : {}),
    callback_url: req.returnUrl,
  };
}

export type CardDeclineCode = DeclineCode | 'AUTHENTICATION_FAILED';

/** One rejection code in our words: our failure code, and whether another acquirer may approve (one failover). */
export interface CardDecline {
  readonly code: CardDeclineCode;
  readonly soft: boolean;
}

/**
 * dLocal's rejection codes (reference/payment-status-codes, "Rejection status", 300-326) as our decline codes.
 * Hard (no failover): the issuer's or the card's own no (300 generic and 301 "rejected by bank" are the
 * do-not-honor class), insufficient funds, an expired, lost, stolen, blocked, restricted or invalid card, a wrong
 * CVV, risk and fraud (303 blacklisted, 304 score validation, 317 high risk), limits (305, 319, 325), 307 a
 * duplicated payment (another acquirer would charge twice), the payer's account (322-326, wallet codes a card does
 * not meet), and 320 "3D-Secure is required" (the issuer asked for an authentication: a failed authentication, not
 * an acquirer's fault). Soft (another acquirer may approve, once): 321 "Error in acquirer" (dLocal's acquirer failed,
 * the issuer never said no) and 316 "Unsupported operation" (what dLocal's acquirer cannot do for this card, another
 * may). dLocal's table has no "issuer unavailable" code of its own; a code not listed is a hard CARD_DECLINED.
 */
export const DLOCAL_CARD_DECLINES: Readonly<Record<string, CardDecline>> = {
  '300': { code: 'CARD_DECLINED', soft: false }, // The payment was rejected.
  '301': { code: 'CARD_DECLINED', soft: false }, // Rejected by bank.
  '302': { code: 'INSUFFICIENT_FUNDS', soft: false }, // Insufficient amount.
  '303': { code: 'CARD_DECLINED', soft: false }, // Card blacklisted.
  '304': { code: 'CARD_DECLINED', soft: false }, // Score validation.
  '305': { code: 'CARD_DECLINED', soft: false }, // Max attempts reached.
  '306': { code: 'CARD_DECLINED', soft: false }, // Call bank for authorize.
  '307': { code: 'CARD_DECLINED', soft: false }, // Duplicated payment.
  '308': { code: 'CARD_DECLINED', soft: false }, // Credit card disabled.
  '309': { code: 'EXPIRED_CARD', soft: false }, // Card expired.
  '310': { code: 'CARD_DECLINED', soft: false }, // Card reported lost.
  '311': { code: 'CARD_DECLINED', soft: false }, // Card requested by the bank.
  '312': { code: 'CARD_DECLINED', soft: false }, // Card restricted by the bank.
  '313': { code: 'CARD_DECLINED', soft: false }, // Card reported stolen.
  '314': { code: 'CARD_DECLINED', soft: false }, // Invalid card number.
  '315': { code: 'INCORRECT_CVC', soft: false }, // Invalid security code.
  '316': { code: 'CARD_DECLINED', soft: true }, // Unsupported operation.
  '317': { code: 'CARD_DECLINED', soft: false }, // Rejected due to high risk.
  '318': { code: 'CARD_DECLINED', soft: false }, // Invalid transaction.
  '319': { code: 'CARD_DECLINED', soft: false }, // Amount exceeded.
  '320': { code: 'AUTHENTICATION_FAILED', soft: false }, // 3D-Secure is required.
  '321': { code: 'CARD_DECLINED', soft: true }, // Error in acquirer.
  '322': { code: 'CARD_DECLINED', soft: false }, // Wallet disabled.
  '323': { code: 'CARD_DECLINED', soft: false }, // Invalid user account.
  '324': { code: 'CARD_DECLINED', soft: false }, // Invalid PIN.
  '325': { code: 'CARD_DECLINED', soft: false }, // Transaction frequency limit exceeded.
  '326': { code: 'CARD_DECLINED', soft: false }, // User account disabled or blocked.
};

const MESSAGES: Readonly<Record<CardDeclineCode, string>> = {
  CARD_DECLINED: 'The card was declined.',
  INSUFFICIENT_FUNDS: 'The card has insufficient funds.',
  EXPIRED_CARD: 'The card has expired.',
  INCORRECT_CVC: 'The card security code is incorrect.',
  AUTHENTICATION_FAILED: '3-D Secure authentication failed.',
};

export const cardDeclineOf = (statusCode: string | undefined): CardDecline =>
  DLOCAL_CARD_DECLINES[statusCode ?? ''] ?? { code: 'CARD_DECLINED', soft: false };

/** The providerCode a declined outcome carries for a REJECTED payment: `rejected_<status_code>`. */
export const rejectedProviderCode = (statusCode: string | undefined) =>
  `rejected_${statusCode && /^\d{1,4}$/.test(statusCode) ? statusCode : 'unknown'}`;

/** Whether a declined outcome of this connector allows one failover (DLOCAL_CARD_DECLINES' soft codes). */
export function softDecline(outcome: HeldCardOutcome): boolean {
  if (outcome.kind !== 'declined') return false;
  const m = /^rejected_(\d{1,4})$/.exec(outcome.providerCode);
  return m ? cardDeclineOf(m[1]).soft : false;
}

/**
 * A card payment's status as our outcome. PAID: approved (capture is always true; dLocal's payment object carries
 * no authorization code of the network on the pages read, so dLocal's payment id stands for it, as Adyen's
 * pspReference does). PENDING with a 3-D Secure redirect_url (`three_dsecure.redirect_url`, or a top-level
 * redirect_url): the shopper authenticates there (GET). Other PENDING, AUTHORIZED (held but not captured: never
 * asked for, voided by cancelByReference) and VERIFIED (a zero-amount check, never asked for): pending.
 * REJECTED: declined by DLOCAL_CARD_DECLINES. CANCELLED and EXPIRED: declined, card_declined.
 */
export function cardOutcomeOf(
  p: Pick<DlocalCardPayment, 'id' | 'status' | 'status_code' | 'three_dsecure' | 'redirect_url'>,
): HeldCardOutcome {
  const pspReference = p.id;
  switch (p.status) {
    case 'PAID':
      return { kind: 'approved', authorizationCode: p.id, pspReference };
    case 'REJECTED': {
      const d = cardDeclineOf(p.status_code);
      const providerCode = rejectedProviderCode(p.status_code);
      return { kind: 'declined', code: d.code, message: MESSAGES[d.code], providerCode, pspReference, ...(d.soft ? { soft: true } : {}) };
    }
    case 'CANCELLED':
    case 'EXPIRED':
      return {
        kind: 'declined',
        code: 'CARD_DECLINED',
        message: MESSAGES.CARD_DECLINED,
        providerCode: p.status.toLowerCase(),
        pspReference,
      };
    case 'PENDING': {
      const url = p.three_dsecure?.redirect_url ?? p.redirect_url;
      if (url && /^https?:\/\//.test(url)) return { kind: 'redirect', redirect: { url, method: 'GET', data: {} }, pspReference };
      return { kind: 'pending', pspReference };
    }
    default:
      return { kind: 'pending', pspReference };
  }
}

/** A documented refusal of a create, in our words: our code, and whether it is about the payer (no other provider). */
export interface NotProcessed {
  readonly code: string;
  readonly payer: boolean;
}

/**
 * dLocal's 4xx refusals of a create that name a request it did not take (reference/http-errors-payments, "Payments
 * HTTP Errors", 400 Bad Request): no payment object comes back, so none was created. Assumed from the page's
 * nature, not its words: dLocal does not write "nothing was created" beside each code. Left out on purpose:
 * 5009 "Order ID is duplicated" (a payment with our order_id exists: read it back), 5002 "Invalid transaction
 * status" and 5018 "Chargeback in place" (about an existing payment), 4000 "Payment not found" (a read), the 403s
 * 3001-3003 (our credentials or address: the client answers ProviderUnavailable, a configuration to fix), 6000 "Too
 * many requests" (429: the client answers ProviderUnavailable) and 7000 (500). 5010 is "Method not available" as a
 * 400 but "Request Timeout" as a 504: only the 400 counts (notProcessed takes the HTTP status). `payer`: a refusal
 * about the payer (cadastral situation, user limit, blacklist), which another provider should not be asked to
 * override.
 */
export const DLOCAL_NOT_PROCESSED: Readonly<Record<number, NotProcessed>> = {
  5000: { code: 'invalid_request', payer: false }, // Invalid request.
  5001: { code: 'invalid_request', payer: false }, // Missing or invalid parameter.
  5003: { code: 'method_not_available', payer: false }, // Country not supported.
  5004: { code: 'method_not_available', payer: false }, // Currency not allowed for this country.
  5005: { code: 'payer_not_allowed', payer: true }, // User unauthorized due to cadastral situation.
  5006: { code: 'limit_exceeded', payer: true }, // User limit exceeded.
  5007: { code: 'limit_exceeded', payer: false }, // Amount exceeded.
  5008: { code: 'invalid_request', payer: false }, // Token not found or inactive.
  5010: { code: 'method_not_available', payer: false }, // Method not available (400 only).
  5011: { code: 'invalid_request', payer: false }, // Enrollment not found.
  5013: { code: 'method_not_available', payer: false }, // Unsupported operation.
  5014: { code: 'payer_not_allowed', payer: true }, // User blacklisted.
  5016: { code: 'amount_too_low', payer: false }, // Amount too low.
  5017: { code: 'invalid_request', payer: false }, // Invalid API Version.
  5021: { code: 'acquirer_unavailable', payer: false }, // Acquirer could not process the request.
  5043: { code: 'invalid_installments', payer: false }, // Invalid number of installments.
};

/** Whether a refusal (dLocal's error code, and the HTTP status it came with) is one dLocal documents as not processed. */
export function notProcessed(errorCode: number | null, httpStatus = 400): boolean {
  return errorCode !== null && httpStatus >= 400 && httpStatus < 500 && errorCode in DLOCAL_NOT_PROCESSED;
}
