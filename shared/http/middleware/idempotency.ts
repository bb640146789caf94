/**
 * Idempotent execution of a create/change (DESIGN.md section 4.5) with
 * Powertools idempotency: keyed by merchant + mode + route + X-Idempotency-Key,
 * 24 h; the payload hash is over the validated input, so the same key with a
 * different body is refused. Thrown errors are not stored (the record is deleted).
 */
import {
  IdempotencyAlreadyInProgressError,
  IdempotencyConfig,
  IdempotencyValidationError,
  makeIdempotent,
} from '@aws-lambda-powertools/idempotency';
import type { BasePersistenceLayer } from '@aws-lambda-powertools/idempotency/persistence';
import type { Context } from 'aws-lambda';
import { AppError } from '../../domain/errors';
import type { IdempotencyScope } from './idempotency-key';

export const IDEMPOTENCY_TTL_SECONDS = 24 * 60 * 60;
export const REPLAYED_HEADER = 'idempotent-replayed';
export { checkIdempotencyKey, deriveId, MAX_IDEMPOTENCY_KEY_LENGTH, type IdempotencyScope } from './idempotency-key';

/** Stable JSON: object keys sorted, so equal inputs hash equally whatever their key order. */
export function canonicalJson(value: unknown): string {
  if (value && typeof (value as { toJSON?: unknown }).toJSON === 'function') {
    return canonicalJson((value as { toJSON(): unknown }).toJSON());
  }
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    return `{${Object.keys(value)
      .sort()
      .filter((k) => (value as Record<string, unknown>)[k] !== undefined)
      .map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}

interface Envelope {
  readonly scope: IdempotencyScope;
  readonly payload: string;
}

/** Runs the work at most once per scope (merchant, mode, route, key) and replays its result. */
export type IdempotentRunner<R> = (scope: IdempotencyScope, input: unknown, context: Context, work: () => Promise<R>) => Promise<R>;

export function makeIdempotentRunner<R extends { headers?: Record<string, string | number | boolean> }>(
  store: () => BasePersistenceLayer,
): IdempotentRunner<R> {
  const config = new IdempotencyConfig({
    eventKeyJmesPath: 'scope',
    payloadValidationJmesPath: 'payload',
    expiresAfterSeconds: IDEMPOTENCY_TTL_SECONDS,
    hashFunction: 'sha256',
    throwOnNoIdempotencyKey: true,
    responseHook: (response) => {
      const r = response as unknown as R;
      return { ...r, headers: { ...(r.headers ?? {}), [REPLAYED_HEADER]: 'true' } } as never;
    },
  });
  let runner: ((envelope: Envelope, context: Context, work: () => Promise<R>) => Promise<R>) | undefined;

  return async function runIdempotently(scope: IdempotencyScope, input: unknown, context: Context, work: () => Promise<R>): Promise<R> {
    // Powertools hashes the first argument (the context in the second is how it
    // learns the remaining time); the work travels in the third, per call.
    runner ??= makeIdempotent(async (_envelope: Envelope, _ctx: Context, run: () => Promise<R>) => run(), {
      persistenceStore: store(),
      config,
    });
    try {
      return await runner({ scope, payload: canonicalJson(input) }, context, work);
    } catch (e) {
      if (e instanceof IdempotencyAlreadyInProgressError) throw new AppError('IDEMPOTENCY_IN_PROGRESS');
      if (e instanceof IdempotencyValidationError) throw new AppError('IDEMPOTENCY_KEY_REUSED');
      throw e;
    }
  };
}
