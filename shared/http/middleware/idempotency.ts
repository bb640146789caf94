/**
 * Idempotent execution of a create/change (DESIGN.md section 4.5; issue 31, lever 2): keyed by merchant + mode +
 * route + X-Idempotency-Key, 24 h; the payload hash is over the validated input, so the same key with a different
 * body is refused (422), and a request whose first attempt still runs is told so (409).
 *   1. claim: a conditional put of the record, in progress until the function's timeout;
 *   2. the work, whose use case writes the answer in the same transaction as its effect (`answering`), so a
 *      record still in progress after its claim expired means nothing committed: the retry runs it again;
 *   3. the answer: recorded after the work when the work's final answer differs from the one its transaction
 *      wrote (a provider called after the commit) or when no transaction wrote one.
 * A failed attempt releases its claim (deleted, or reopened to the same request when its effect committed):
 * errors are not stored, so a 503 BUSY_RETRY_SAME_KEY leaves the key free for the retry.
 */
import { createHash, randomUUID } from 'node:crypto';
import type { Context } from 'aws-lambda';
import { AppError } from '../../domain/errors';
import { WriteConflict, type Answering, type IdempotencyDone, type IdempotencyRecords } from '../../application/ports';
import { logger } from '../../observability';
import type { IdempotencyScope } from './idempotency-key';

export const IDEMPOTENCY_TTL_SECONDS = 24 * 60 * 60;
export const REPLAYED_HEADER = 'idempotent-replayed';
/** The claim of a request whose context does not say its remaining time (tests): 60 s. */
const DEFAULT_CLAIM_MS = 60_000;
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

const sha256 = (text: string) => createHash('sha256').update(text).digest('base64url');

/** The record of a scope: one per merchant, mode, route and key. */
export const recordIdOf = (scope: IdempotencyScope) => sha256([scope.merchantId, scope.mode, scope.routeId, scope.key].join('\u0000'));

/** Runs the work at most once per scope (merchant, mode, route, key) and replays its answer. */
export type IdempotentRunner<R> = (
  scope: IdempotencyScope,
  input: unknown,
  context: Pick<Context, 'getRemainingTimeInMillis'>,
  work: (answering: NonNullable<Answering<R>>) => Promise<R>,
) => Promise<R>;

/** A plain copy of an answer (what DynamoDB stores: no undefined). */
const plain = (r: unknown) => JSON.parse(JSON.stringify(r)) as Record<string, unknown>;

export function makeIdempotentRunner<R extends { headers?: Record<string, string | number | boolean> }>(
  records: () => IdempotencyRecords,
  now: () => number = Date.now,
): IdempotentRunner<R> {
  return async function runIdempotently(scope, input, context, work) {
    const at = now();
    const remaining = typeof context.getRemainingTimeInMillis === 'function' ? context.getRemainingTimeInMillis() : DEFAULT_CLAIM_MS;
    const expiresAt = Math.floor(at / 1000) + IDEMPOTENCY_TTL_SECONDS;
    const found = await records().claim({
      recordId: recordIdOf(scope),
      payloadHash: sha256(canonicalJson(input)),
      token: randomUUID(),
      inProgressUntil: at + remaining,
      expiresAt,
      now: at,
    });
    if (found.kind === 'in_progress') throw new AppError('IDEMPOTENCY_IN_PROGRESS');
    if (found.kind === 'reused') throw new AppError('IDEMPOTENCY_KEY_REUSED');
    if (found.kind === 'completed') {
      const r = found.answer as R;
      return { ...r, headers: { ...(r.headers ?? {}), [REPLAYED_HEADER]: 'true' } };
    }

    const { claim } = found;
    let committed: string | undefined; // the answer the effect's transaction wrote, once it committed
    const answering = async (result: R): Promise<IdempotencyDone> => {
      const answer = plain(result);
      const text = JSON.stringify(answer);
      return { claim, answer, expiresAt, committed: () => (committed = text) };
    };
    let result: R;
    try {
      result = await work(answering);
    } catch (e) {
      // Not released (DynamoDB failing too): the claim ends at its expiry, and the caller still gets the first error.
      await records()
        .release(claim)
        .catch((err: unknown) => logger.warn('idempotency claim not released', { error: err }));
      // The effect's transaction met the record taken over by another attempt of the same request.
      if (e instanceof WriteConflict && e.entity === 'idempotency') throw new AppError('IDEMPOTENCY_IN_PROGRESS');
      throw e;
    }
    const answer = plain(result);
    if (JSON.stringify(answer) !== committed) await records().finish({ claim, answer, expiresAt, committed: () => undefined });
    return result;
  };
}
