/**
 * A batch of payouts (POST /api/v1/payouts/batch), for merchants who pay out at volume: up to 100 payout
 * requests, each checked and answered on its own (a bad one never sinks the others), the accepted ones
 * committed by currency in chunks, each chunk ONE conditional debit of the balance for its sum with every
 * payout's own ledger entry and events in the same transaction. A merchant's concurrent payouts contend for
 * its balance item; a batch of 100 touches it 4 times instead of 100. Each payout is then its own object,
 * with its webhooks, its settlement and its credit-back like any other.
 */
import { createHash } from 'node:crypto';
import { AppError, type FieldError } from '../../domain/errors';
import { createPayoutBody } from '../../domain/payouts/payout.schemas';
import type { Payout } from '../../domain/payouts/payout';
import * as z from '../../domain/zod';
import type { Principal } from '../access';
import { commitAndPublish, WriteConflict, type Answering } from '../ports';
import type { PayoutDeps } from './payout-transition';
import { insufficientBalance, launchPayout, preparePayout, type PreparedPayout } from './payouts';

/**
 * Payouts per transaction: each writes its payout, ledger entry and event (3 actions), the chunk adds the
 * balance and the counters once; DynamoDB takes at most 100 actions in one transaction.
 */
export const BATCH_CHUNK = 30;
/** Live registrations (or sandbox schedules) running at once after the commit. */
const LAUNCH_CONCURRENCY = 8;

export type BatchItemResult =
  | { readonly index: number; readonly payout: Payout; readonly error?: AppError }
  | { readonly index: number; readonly payout?: undefined; readonly error: AppError };

export interface BatchResult {
  readonly batchId: string;
  readonly results: readonly BatchItemResult[];
}

/** The id of a batch's i-th payout: derived from the batch id (itself derived from the idempotency key). */
export function batchPayoutId(batchId: string, index: number): string {
  const digest = createHash('sha256').update(`${batchId}#${index}`).digest();
  return `po_${digest.subarray(0, 16).toString('base64url')}`;
}

function invalidItem(value: unknown): AppError | null {
  const r = z.safeParse(createPayoutBody, value);
  if (r.success) return null;
  const details: FieldError[] = r.error.issues.map((i) => ({
    field: i.path.length ? i.path.map(String).join('.') : 'body',
    message: i.message,
  }));
  return new AppError('VALIDATION_ERROR', `Invalid request parameters: ${details.map((d) => d.field).join(', ')}.`, { details });
}

interface Accepted {
  readonly index: number;
  readonly prepared: PreparedPayout;
  readonly amount: number;
}

function chunksOf(accepted: readonly Accepted[]): Accepted[][] {
  const byCurrency = new Map<string, Accepted[]>();
  for (const a of accepted) byCurrency.set(a.prepared.payout.currency, [...(byCurrency.get(a.prepared.payout.currency) ?? []), a]);
  const chunks: Accepted[][] = [];
  for (const list of byCurrency.values()) for (let i = 0; i < list.length; i += BATCH_CHUNK) chunks.push(list.slice(i, i + BATCH_CHUNK));
  return chunks;
}

/**
 * One payout alone, when its chunk could not commit whole (the balance covers only part of it, or a keyed
 * retry finds some payouts already made): committed, refused for the balance, or the one that already exists.
 */
async function commitOne(deps: PayoutDeps, a: Accepted): Promise<{ payout: Payout; fresh: boolean } | AppError> {
  const { payout, events } = a.prepared;
  try {
    await commitAndPublish(
      deps.publisher,
      deps.store.create({ payout, events, ledgerEntryId: deps.ids.newId('le_'), now: payout.created_at }),
    );
    return { payout, fresh: true };
  } catch (e) {
    if (e instanceof WriteConflict && e.entity === 'balance') return insufficientBalance(a.amount, payout.currency);
    if (e instanceof WriteConflict && e.entity === 'payout') {
      const existing = await deps.store.get(payout.payout_id);
      if (existing && existing.merchant_id === payout.merchant_id) return { payout: existing, fresh: false };
    }
    throw e;
  }
}

/** Runs `work` over `items` with at most `limit` at once, keeping each result at its item's place. */
async function pooled<T, R>(items: readonly T[], limit: number, work: (t: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  const lane = async () => {
    for (let i = next++; i < items.length; i = next++) out[i] = await work(items[i] as T);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
  return out;
}

/** The batch's answer once the payouts of `made` are committed, before any is launched (its recorded answer). */
function answerOf(batchId: string, results: readonly BatchItemResult[], made: readonly Accepted[]): BatchResult {
  const all = [...results];
  for (const a of made) all[a.index] = { index: a.index, payout: a.prepared.payout };
  return { batchId, results: all };
}

/**
 * `answering`: the keyed request's answer, recorded by the last chunk's transaction (every item's outcome is known
 * once it commits). A retry after a crash between chunks runs the batch again: the payouts already made are found
 * by their derived ids, never made twice.
 */
export async function createPayoutBatch(
  deps: PayoutDeps,
  principal: Principal,
  items: readonly unknown[],
  batchId: string,
  answering?: Answering<BatchResult>,
): Promise<BatchResult> {
  const results: BatchItemResult[] = [];
  const accepted: Accepted[] = [];
  // Every request checked on its own, before anything is written.
  for (const [index, item] of items.entries()) {
    const invalid = invalidItem(item);
    if (invalid) {
      results[index] = { index, error: invalid };
      continue;
    }
    const input = createPayoutBody.parse(item);
    try {
      accepted.push({ index, prepared: await preparePayout(deps, principal, input, batchPayoutId(batchId, index)), amount: input.amount });
    } catch (e) {
      if (!(e instanceof AppError)) throw e;
      results[index] = { index, error: e };
    }
  }

  // Committed by chunk: one debit each. A chunk the balance cannot cover whole goes one by one, so every payout
  // the balance covers is made, in request order, and the rest are refused for the balance.
  const launch: Accepted[] = [];
  const chunks = chunksOf(accepted);
  for (const [i, chunk] of chunks.entries()) {
    try {
      const payouts = chunk.map((a) => ({ payout: a.prepared.payout, events: a.prepared.events, ledgerEntryId: deps.ids.newId('le_') }));
      const done = i === chunks.length - 1 ? await answering?.(answerOf(batchId, results, [...launch, ...chunk])) : undefined;
      await commitAndPublish(deps.publisher, deps.store.createMany({ payouts, now: chunk[0]!.prepared.payout.created_at, done }));
      launch.push(...chunk);
    } catch (e) {
      if (!(e instanceof WriteConflict) || (e.entity !== 'balance' && e.entity !== 'payout')) throw e;
      for (const a of chunk) {
        const one = await commitOne(deps, a);
        if (one instanceof AppError) results[a.index] = { index: a.index, error: one };
        else if (one.fresh) launch.push(a);
        // Made by an earlier attempt of this keyed request: answered as it is; the resume job owns what is left.
        else results[a.index] = { index: a.index, payout: one.payout };
      }
    }
  }

  // After the commit, each payout starts on its rail; a provider's answer is that payout's alone.
  const launched = await pooled(launch, LAUNCH_CONCURRENCY, async (a): Promise<BatchItemResult> => {
    try {
      return { index: a.index, payout: await launchPayout(deps, a.prepared) };
    } catch (e) {
      if (!(e instanceof AppError)) throw e;
      // Unavailable: the payout is processing and its outcome follows by webhook; rejected: failed, credited back.
      const payout = (await deps.store.get(a.prepared.payout.payout_id)) ?? a.prepared.payout;
      return { index: a.index, payout, error: e };
    }
  });
  for (const r of launched) results[r.index] = r;
  return { batchId, results };
}
