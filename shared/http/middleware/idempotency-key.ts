/**
 * The X-Idempotency-Key header and the ids a keyed create derives from it: what
 * every route's pipeline needs, without the idempotency engine that only the
 * idempotent routes bundle (shared/http/idempotent.ts).
 */
import { createHash } from 'node:crypto';
import { AppError } from '../../domain/errors';

export const MAX_IDEMPOTENCY_KEY_LENGTH = 255;

export interface IdempotencyScope {
  readonly merchantId: string;
  readonly mode: string;
  readonly routeId: string;
  readonly key: string;
}

/** Validates an X-Idempotency-Key header value: 1-255 printable ASCII characters. */
export function checkIdempotencyKey(key: string): string {
  if (key.length === 0 || key.length > MAX_IDEMPOTENCY_KEY_LENGTH || !/^[\x21-\x7e]+$/.test(key)) {
    throw new AppError(
      'VALIDATION_ERROR',
      `X-Idempotency-Key must be 1-${MAX_IDEMPOTENCY_KEY_LENGTH} printable characters without spaces.`,
      {
        details: [{ field: 'x-idempotency-key', message: `must be 1-${MAX_IDEMPOTENCY_KEY_LENGTH} printable ASCII characters` }],
      },
    );
  }
  return key;
}

/**
 * The id of the object a keyed create makes: derived from merchant, mode, route
 * and key, so that a retry after a crash between the idempotency record and the
 * write finds the same id (and the write's attribute_not_exists condition) instead
 * of creating a duplicate. 128 bits of SHA-256, URL-safe.
 */
export function deriveId(prefix: string, scope: IdempotencyScope): string {
  const digest = createHash('sha256').update([scope.merchantId, scope.mode, scope.routeId, scope.key].join('\u0000')).digest();
  return `${prefix}${digest.subarray(0, 16).toString('base64url')}`;
}
