/**
 * One error enum with stable codes, HTTP statuses and default messages
 * (SPEC.md section 7, DESIGN.md section 5). Use cases throw AppError; the HTTP
 * layer renders it in the route's error family.
 */
export const ERRORS = {
  UNAUTHORIZED: { status: 401, direct: 'unauthorized', message: 'Invalid or missing API key.' },
  FORBIDDEN: { status: 403, direct: 'forbidden', message: 'This API key is not allowed to use this resource.' },
  MERCHANT_INACTIVE: { status: 403, direct: 'merchant_inactive', message: 'The merchant account is inactive.' },
  MERCHANT_NOT_FOUND: { status: 404, direct: 'not_found', message: 'Merchant not found.' },
  VALIDATION_ERROR: { status: 400, direct: 'invalid_request', message: 'Invalid request parameters.' },
  NOT_FOUND: { status: 404, direct: 'not_found', message: 'No such endpoint.' },
  METHOD_NOT_ALLOWED: { status: 405, direct: 'method_not_allowed', message: 'This endpoint does not support this HTTP method.' },
  COUNTRY_NOT_SUPPORTED: { status: 400, direct: 'invalid_request', message: 'Country not available for this merchant.' },
  METHOD_NOT_AVAILABLE: { status: 400, direct: 'invalid_request', message: 'Method not available for the merchant.' },
  AMOUNT_LIMIT_EXCEEDED: { status: 400, direct: 'invalid_request', message: 'Amount is outside the limits of the method.' },
  SESSION_NOT_FOUND: { status: 404, direct: 'not_found', message: 'Session not found.' },
  SESSION_EXPIRED: { status: 410, direct: 'invalid_request', message: 'Session expired.' },
  SESSION_NOT_PENDING: { status: 409, direct: 'invalid_request', message: 'The session is no longer pending.' },
  PAYMENT_NOT_FOUND: { status: 404, direct: 'not_found', message: 'Payment not found.' },
  PAYMENT_STATE_CONFLICT: { status: 409, direct: 'invalid_request', message: 'The payment is not in a state that allows this.' },
  CARD_DECLINED: { status: 422, direct: 'card_declined', message: 'The card was declined.' },
  INSUFFICIENT_FUNDS: { status: 422, direct: 'insufficient_funds', message: 'The card has insufficient funds.' },
  EXPIRED_CARD: { status: 422, direct: 'expired_card', message: 'The card has expired.' },
  INCORRECT_CVC: { status: 422, direct: 'incorrect_cvc', message: 'The card security code is incorrect.' },
  AUTHENTICATION_FAILED: { status: 422, direct: 'authentication_failed', message: '3-D Secure authentication failed.' },
  INVALID_BENEFICIARY: { status: 400, direct: 'invalid_request', message: 'Invalid beneficiary information.' },
  INSUFFICIENT_BALANCE: { status: 400, direct: 'invalid_request', message: 'Merchant balance insufficient.' },
  PAYOUT_NOT_FOUND: { status: 404, direct: 'not_found', message: 'Payout not found.' },
  CANNOT_CANCEL: { status: 409, direct: 'invalid_request', message: 'Payout already processing.' },
  PAYOUT_STATE_CONFLICT: { status: 409, direct: 'invalid_request', message: 'The payout is not in a state that allows this.' },
  REFUND_NOT_FOUND: { status: 404, direct: 'not_found', message: 'Refund not found.' },
  PAYMENT_NOT_REFUNDABLE: {
    status: 409,
    direct: 'invalid_request',
    message: 'Only a successful payment with an amount left to refund can be refunded.',
  },
  REFUND_AMOUNT_EXCEEDED: {
    status: 422,
    direct: 'invalid_request',
    message: 'The refund is larger than what is left to refund on the payment.',
  },
  REFUND_WINDOW_EXPIRED: { status: 422, direct: 'invalid_request', message: 'The payment is too old to be refunded with its method.' },
  MANDATE_NOT_FOUND: { status: 404, direct: 'not_found', message: 'Mandate not found.' },
  MANDATE_NOT_ACTIVE: { status: 409, direct: 'invalid_request', message: 'The mandate is not active: it cannot be charged.' },
  MANDATE_STATE_CONFLICT: { status: 409, direct: 'invalid_request', message: 'The mandate is not in a state that allows this.' },
  MANDATE_CYCLE_ALREADY_CHARGED: {
    status: 409,
    direct: 'invalid_request',
    message:
      'The mandate already has a charge in the billing cycle of this due date (a failed one is retried only as its retry policy allows).',
  },
  MANDATE_AMOUNT_EXCEEDED: { status: 400, direct: 'invalid_request', message: 'The charge is above what the mandate allows.' },
  DUE_DATE_OUTSIDE_WINDOW: {
    status: 400,
    direct: 'invalid_request',
    message: 'The due date is outside the window in which the charge can be sent.',
  },
  DISPUTE_NOT_FOUND: { status: 404, direct: 'not_found', message: 'Dispute not found.' },
  DISPUTE_NOT_OPEN: {
    status: 400,
    direct: 'invalid_request',
    message: 'The dispute no longer needs a response: evidence, submit and accept are closed.',
  },
  DISPUTE_DEADLINE_PASSED: { status: 409, direct: 'invalid_request', message: 'The evidence deadline of this dispute has passed.' },
  DISPUTE_NOT_DEFENDABLE: {
    status: 409,
    direct: 'invalid_request',
    message: 'The provider of this dispute takes no defense through the API: answer it with your provider directly.',
  },
  EVENT_NOT_FOUND: { status: 404, direct: 'not_found', message: 'Event not found.' },
  PAYMENT_METHOD_NOT_FOUND: { status: 404, direct: 'not_found', message: 'Payment method not found.' },
  RATE_LIMIT_EXCEEDED: { status: 429, direct: 'rate_limited', message: 'Too many requests.' },
  IDEMPOTENCY_IN_PROGRESS: {
    status: 409,
    direct: 'idempotency_conflict',
    message: 'A request with this X-Idempotency-Key is still being processed; retry shortly.',
  },
  IDEMPOTENCY_KEY_REUSED: {
    status: 422,
    direct: 'idempotency_conflict',
    message: 'This X-Idempotency-Key was already used with a different request body.',
  },
  PROVIDER_UNAVAILABLE: {
    status: 502,
    direct: 'provider_unavailable',
    message: 'The payment provider did not answer; the object is recorded and its outcome follows by webhook.',
  },
  PROVIDER_REJECTED: { status: 422, direct: 'provider_rejected', message: 'The payment provider refused the request.' },
  /**
   * A write could not get its turn on a contended item (most often the merchant's balance, which every payout and
   * refund debits) within the request's budget. Nothing was written and the idempotency key is free again: the
   * same request with the same key is safe and expected (answered with Retry-After).
   */
  BUSY_RETRY_SAME_KEY: {
    status: 503,
    direct: 'busy_retry_same_key',
    message:
      'Other requests are changing the same balance right now and this one did not get its turn; nothing was written. ' +
      'Send it again with the same X-Idempotency-Key after Retry-After seconds.',
  },
  INTERNAL_ERROR: { status: 500, direct: 'internal_error', message: 'An internal error occurred.' },
} as const satisfies Record<string, { status: number; direct: string; message: string }>;

export type ErrorCode = keyof typeof ERRORS;

export interface FieldError {
  readonly field: string;
  readonly message: string;
}

export class AppError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly details?: readonly FieldError[];
  readonly headers?: Readonly<Record<string, string>>;
  /** The payment a direct-payment error is about (SPEC.md section 7's payment_id). */
  readonly paymentId?: string;

  constructor(
    code: ErrorCode,
    message?: string,
    extra: { details?: readonly FieldError[]; headers?: Record<string, string>; paymentId?: string } = {},
  ) {
    super(message ?? ERRORS[code].message);
    this.name = 'AppError';
    this.code = code;
    this.status = ERRORS[code].status;
    this.details = extra.details;
    this.headers = extra.headers;
    this.paymentId = extra.paymentId;
  }
}

export const isAppError = (e: unknown): e is AppError => e instanceof AppError;
