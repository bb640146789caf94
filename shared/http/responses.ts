/**
 * Renders responses and errors in SPEC.md section 7's three shapes, chosen by the
 * route's error family. A 5xx never carries its real message.
 */
import { AppError, ERRORS, isAppError } from '../domain/errors';
import type { ErrorFamily } from '../manifest/routes';
import { busyAppError, isContention } from '../adapters/dynamodb/contention';
import type { HttpResult } from './types';

export const JSON_HEADERS = { 'content-type': 'application/json; charset=utf-8' } as const;

export function jsonResult(status: number, body: unknown, headers: Record<string, string> = {}): HttpResult {
  return { statusCode: status, headers: { ...JSON_HEADERS, ...headers }, body: JSON.stringify(body) };
}

/**
 * Any thrown value as an AppError: contention on an item (a write that did not get its turn, a conflict or a
 * throttle that reached the handler) becomes BUSY_RETRY_SAME_KEY (503, Retry-After); other unknown errors
 * INTERNAL_ERROR.
 */
export function toAppError(err: unknown): AppError {
  if (isAppError(err)) return err;
  return isContention(err) ? busyAppError() : new AppError('INTERNAL_ERROR');
}

/** 5xx codes whose message is ours, written for the merchant, and shown (every other 5xx hides its message). */
const SHOWN_5XX: ReadonlySet<string> = new Set(['PROVIDER_UNAVAILABLE', 'BUSY_RETRY_SAME_KEY']);

export function errorBody(family: ErrorFamily, err: AppError, requestId: string): unknown {
  // A 5xx hides its message, except a provider outage (naming the object it left open) and contention (retry with the key).
  const message =
    err.status >= 500 && !SHOWN_5XX.has(err.code) ? `${ERRORS.INTERNAL_ERROR.message} Request id: ${requestId}.` : err.message;
  const details = err.status < 500 && err.details && err.details.length > 0 ? err.details : undefined;
  switch (family) {
    case 'checkout':
      return { success: false, error: { code: err.code, message, ...(details ? { details } : {}), request_id: requestId } };
    case 'direct':
      return {
        detail: details ? `${message} ${details.map((d) => `${d.field}: ${d.message}`).join('; ')}` : message,
        error_code: ERRORS[err.code].direct,
        payment_id: err.paymentId ?? null,
      };
    case 'process':
      // error_code and details are additions to SPEC.md's shape: the hosted page localises by them.
      return { success: false, status: 'failed', error_message: message, error_code: err.code, ...(details ? { details } : {}) };
  }
}

export function errorResult(family: ErrorFamily, err: AppError, requestId: string): HttpResult {
  return jsonResult(err.status, errorBody(family, err, requestId), { ...(err.headers ?? {}) });
}
