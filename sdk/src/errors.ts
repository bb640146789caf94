/**
 * Errors by family. The API answers in three body shapes (SPEC.md section 7): checkout and payouts
 * `{success:false, error:{code, message, details?, request_id}}`, direct payments
 * `{detail, error_code, payment_id}`, hosted-checkout processing `{success:false, status:'failed',
 * error_message, error_code}`. Each becomes one of the classes below, chosen by its code; every one
 * carries the HTTP status, the code as the API sent it, and the request id (X-Request-Id).
 */

export interface FieldError {
  readonly field: string;
  readonly message: string;
}

export interface ErrorInit {
  readonly status?: number;
  readonly code?: string;
  readonly requestId?: string;
  readonly details?: readonly FieldError[];
  readonly paymentId?: string;
  readonly retryAfter?: number;
  readonly headers?: Headers;
  readonly raw?: unknown;
}

/** The base of every error this library throws. */
export class LatamPaymentsError extends Error {
  /** The HTTP status, when the API answered. */
  readonly status?: number;
  /** The API's error code, as sent: `VALIDATION_ERROR`, `PAYOUT_NOT_FOUND`, or a direct-payment `card_declined`. */
  readonly code?: string;
  /** The request id (the X-Request-Id header): quote it to support. */
  readonly requestId?: string;
  /** The payment an error is about (direct payments). */
  readonly paymentId?: string;
  readonly headers?: Headers;
  /** The error body as received. */
  readonly raw?: unknown;

  constructor(message: string, init: ErrorInit = {}, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
    this.status = init.status;
    this.code = init.code;
    this.requestId = init.requestId;
    this.paymentId = init.paymentId;
    this.headers = init.headers;
    this.raw = init.raw;
  }
}

/** An error answer from the API that no narrower class below describes (a state conflict, a 5xx). */
export class APIError extends LatamPaymentsError {}
/** 401: the API key is missing, unknown or revoked. */
export class AuthenticationError extends APIError {}
/** 403: the key may not do this, or the merchant is inactive. */
export class PermissionError extends APIError {}
/** 400: the request was refused as invalid; `details` lists the fields when the API names them. */
export class ValidationError extends APIError {
  readonly details: readonly FieldError[];
  constructor(message: string, init: ErrorInit = {}) {
    super(message, init);
    this.details = init.details ?? [];
  }
}
/** 404: no such object for this key (or mode). */
export class NotFoundError extends APIError {}
/** 429: too many requests; `retryAfter` is the Retry-After seconds. Thrown once retries are spent. */
export class RateLimitError extends APIError {
  readonly retryAfter?: number;
  constructor(message: string, init: ErrorInit = {}) {
    super(message, init);
    this.retryAfter = init.retryAfter;
  }
}
/** 409/422 on X-Idempotency-Key: the first request with this key is still running, or had another body. */
export class IdempotencyError extends APIError {}
/** 502: the payment provider did not answer; the object is recorded and its outcome follows by webhook. */
export class ProviderUnavailableError extends APIError {}
/** 422: the card was declined (card_declined, insufficient_funds, expired_card, incorrect_cvc, authentication_failed). */
export class CardError extends APIError {}
/** No answer from the API: the connection failed. Requests that were safe to retry have been retried. */
export class ConnectionError extends LatamPaymentsError {}
/** No answer within the `timeout`. */
export class TimeoutError extends ConnectionError {}
/** `webhooks.verify` refused a delivery: missing or wrong signature, or a timestamp outside the tolerance. */
export class SignatureVerificationError extends LatamPaymentsError {}

const BY_CODE: Record<string, new (message: string, init: ErrorInit) => APIError> = {
  UNAUTHORIZED: AuthenticationError,
  unauthorized: AuthenticationError,
  FORBIDDEN: PermissionError,
  forbidden: PermissionError,
  MERCHANT_INACTIVE: PermissionError,
  merchant_inactive: PermissionError,
  VALIDATION_ERROR: ValidationError,
  RATE_LIMIT_EXCEEDED: RateLimitError,
  rate_limited: RateLimitError,
  IDEMPOTENCY_IN_PROGRESS: IdempotencyError,
  IDEMPOTENCY_KEY_REUSED: IdempotencyError,
  idempotency_conflict: IdempotencyError,
  PROVIDER_UNAVAILABLE: ProviderUnavailableError,
  provider_unavailable: ProviderUnavailableError,
  not_found: NotFoundError,
  CARD_DECLINED: CardError,
  INSUFFICIENT_FUNDS: CardError,
  EXPIRED_CARD: CardError,
  INCORRECT_CVC: CardError,
  AUTHENTICATION_FAILED: CardError,
  card_declined: CardError,
  insufficient_funds: CardError,
  expired_card: CardError,
  incorrect_cvc: CardError,
  authentication_failed: CardError,
};

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

function fieldErrors(v: unknown): FieldError[] | undefined {
  if (!Array.isArray(v)) return undefined;
  return v.flatMap((d: unknown) => {
    const o = d as { field?: unknown; message?: unknown } | null;
    return o && typeof o.field === 'string' && typeof o.message === 'string' ? [{ field: o.field, message: o.message }] : [];
  });
}

/** The error an answer with a non-2xx status stands for. */
export function errorFromResponse(status: number, headers: Headers, body: unknown): APIError {
  const b = (body && typeof body === 'object' ? body : {}) as Record<string, unknown>;
  const nested = (b.error && typeof b.error === 'object' ? b.error : {}) as Record<string, unknown>;
  const code = str(nested.code) ?? str(b.error_code);
  const message = str(nested.message) ?? str(b.detail) ?? str(b.error_message) ?? `HTTP ${status}`;
  const retryAfterHeader = Number(headers.get('retry-after'));
  const init: ErrorInit = {
    status,
    code,
    requestId: headers.get('x-request-id') ?? str(nested.request_id),
    details: fieldErrors(nested.details) ?? fieldErrors(b.details),
    paymentId: str(b.payment_id),
    retryAfter: headers.has('retry-after') && Number.isFinite(retryAfterHeader) ? retryAfterHeader : undefined,
    headers,
    raw: body,
  };
  const byCode = code ? BY_CODE[code] : undefined;
  const Class =
    byCode ??
    (status === 401
      ? AuthenticationError
      : status === 403
        ? PermissionError
        : status === 404 || (code?.endsWith('_NOT_FOUND') ?? false)
          ? NotFoundError
          : status === 429
            ? RateLimitError
            : status === 400
              ? ValidationError
              : APIError);
  return new Class(message, init);
}
