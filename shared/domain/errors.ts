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

  constructor(
    code: ErrorCode,
    message?: string,
    extra: { details?: readonly FieldError[]; headers?: Record<string, string> } = {},
  ) {
    super(message ?? ERRORS[code].message);
    this.name = 'AppError';
    this.code = code;
    this.status = ERRORS[code].status;
    this.details = extra.details;
    this.headers = extra.headers;
  }
}

export const isAppError = (e: unknown): e is AppError => e instanceof AppError;
