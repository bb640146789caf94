/**
 * A keyed request's idempotency record (X-Idempotency-Key) as the use cases see it (issue 31, lever 2): the
 * request claims its record before it runs, and the answer it makes is written in the SAME transaction as the
 * effect it guards (the payout, payment or refund and its events), so "committed" and "recorded as done" can
 * never disagree. A record still in progress after its claim expired therefore means the effect did not commit.
 */

/** A request's hold on its record: the record's id and the token only this attempt knows. */
export interface IdempotencyClaim {
  readonly recordId: string;
  readonly token: string;
}

/** The claim moved to done with its answer: one more write of the effect's transaction. */
export interface IdempotencyDone {
  readonly claim: IdempotencyClaim;
  /** What a replay answers: the HTTP response, opaque to the use cases. */
  readonly answer: Readonly<Record<string, unknown>>;
  /** Epoch seconds: when the record (and its answer) expires. */
  readonly expiresAt: number;
  /** Called by the store once the transaction that carried this write committed. */
  readonly committed: () => void;
}

/**
 * How a use case's result becomes its request's recorded answer; undefined on a request without a key. The use
 * case hands `await answering(result)` to the store that commits the effect.
 */
export type Answering<T> = ((result: T) => Promise<IdempotencyDone>) | undefined;

/** What a claim found: the record is ours, or already answered, or another attempt holds it, or another body's. */
export type ClaimOutcome =
  | { readonly kind: 'claimed'; readonly claim: IdempotencyClaim }
  | { readonly kind: 'completed'; readonly answer: Readonly<Record<string, unknown>> }
  | { readonly kind: 'in_progress' }
  | { readonly kind: 'reused' };

export interface IdempotencyRecords {
  /**
   * A conditional put of the record in progress until `inProgressUntil` (epoch ms). Taken when there is none,
   * when it has expired, or, for the same request (same payload hash), when a crashed attempt's claim expired or
   * a failed attempt left it reopened.
   */
  claim(op: {
    recordId: string;
    payloadHash: string;
    token: string;
    inProgressUntil: number;
    expiresAt: number;
    now: number;
  }): Promise<ClaimOutcome>;
  /** The answer recorded after the work (status COMPLETED), conditional on the claim still ours; false when not. */
  finish(done: IdempotencyDone): Promise<boolean>;
  /**
   * The work failed: the record is deleted when its effect did not commit (still in progress), or, when the effect
   * did commit and something after it failed, reopened to the same request (which finds its effect by its derived
   * ids and answers again); a different body stays refused. Nothing when the claim is no longer ours.
   */
  release(claim: IdempotencyClaim): Promise<void>;
}
