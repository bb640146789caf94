/** What the payout use cases need from storage and from the payout rail. */
import type { Mode } from '../../domain/access';
import * as z from '../../domain/zod';
import type { DomainEvent } from '../../domain/events';
import type { EndedAttempt } from '../../domain/payments/payment';
import type { Payout, PayoutStatus, ReturnWatch } from '../../domain/payouts/payout';
import type { IdempotencyDone } from './idempotency-ports';
import type { Committed } from './payment-ports';

export interface BalanceView {
  readonly currency: string;
  readonly available_minor: number;
  readonly updated_at: string | null;
}

export interface PayoutListQuery {
  readonly status?: PayoutStatus;
  readonly from?: string;
  readonly to?: string;
  readonly limit: number;
  readonly offset: number;
  /** Cursor pagination: the page starts right after this payout (offset is then 0). */
  readonly startingAfter?: Payout;
}

export interface PayoutStore {
  /**
   * Payout + balance debit (conditional on covering it) + ledger entry + event + counters, one transaction.
   * WriteConflict('balance') when the balance is short. Returns the committed events. `done`: the keyed request's
   * answer, recorded in the same transaction (WriteConflict('idempotency') when its claim is no longer this attempt's).
   */
  create(op: { payout: Payout; events: DomainEvent[]; ledgerEntryId: string; now: string; done?: IdempotencyDone }): Promise<Committed>;
  /**
   * Several payouts of one merchant, mode and currency in one transaction (a batch's chunk): ONE balance debit for
   * their sum (conditional on covering it), each payout with its ledger entry and events, the counters once.
   * WriteConflict('balance') when the balance is short, WriteConflict('payout') when one of them already exists.
   * `done` as for create.
   */
  createMany(op: {
    payouts: readonly { payout: Payout; events: DomainEvent[]; ledgerEntryId: string }[];
    now: string;
    done?: IdempotencyDone;
  }): Promise<Committed>;
  get(payoutId: string): Promise<Payout | null>;
  /** status -> to conditional on the status read; counters, events and any credit-back in the same transaction. */
  transition(op: {
    payout: Payout;
    to: PayoutStatus;
    patch: Partial<Payout>;
    events: DomainEvent[];
    creditEntryId?: string;
    now: string;
    /** A keyed request's answer (a cancel), recorded in the same transaction. */
    done?: IdempotencyDone;
  }): Promise<Committed>;
  /**
   * A return check of a completed payout that found none: its watch moves on to `next`, or ends (null).
   * Conditional on the payout still completed with the watch read (WriteConflict otherwise).
   */
  rewatch(op: { payout: Payout; next: ReturnWatch | null; now: string }): Promise<void>;
  /**
   * Takes a live payout's send claim: true when the payout is still processing and nobody claimed it in the last
   * `leaseSeconds` (the claim is then this caller's), false otherwise.
   */
  claimSend(op: { payoutId: string; now: string; leaseSeconds: number }): Promise<boolean>;
  /** Ends a send claim stamped `claimedAt` early (its send ended without the provider holding it); another's is left. */
  releaseSend(op: { payoutId: string; claimedAt: string }): Promise<void>;
  /**
   * A failover (DESIGN.md 9.2): the processing payout's attempt (`payout.provider`, as read) ends as `ended` and `next`
   * (its order prepared at the next provider) takes its place, conditional on the status and the reference read.
   */
  switchAttempt(op: { payout: Payout; ended: readonly EndedAttempt[]; next: NonNullable<Payout['provider']>; now: string }): Promise<void>;
  /** Provider details learned after the commit (its order id), conditional on the status read. */
  annotate(op: { payout: Payout; provider: NonNullable<Payout['provider']>; now: string }): Promise<void>;
  /**
   * The provider's own id of a payout's order, kept once (before the payout records it): a later link of the
   * same id to another payout is a WriteConflict('payout'); the same link again changes nothing.
   */
  linkOrder(op: { provider: string; orderId: string; payoutId: string; now: string }): Promise<void>;
  /** The payout whose order the provider knows by this id, if we kept it. */
  payoutOfOrder(provider: string, orderId: string): Promise<string | null>;
  /** One page, newest first, with the total of the filter and whether older items remain. */
  list(merchantId: string, mode: string, q: PayoutListQuery): Promise<{ items: Payout[]; total: number; more: boolean }>;
  balances(merchantId: string, mode: Mode): Promise<BalanceView[]>;
  topUp(op: {
    merchantId: string;
    livemode: boolean;
    currency: string;
    amountMinor: number;
    entryId: string;
    reason: string;
    now: string;
    /** A keyed request's answer (a sandbox top-up), recorded in the same transaction. */
    done?: IdempotencyDone;
  }): Promise<void>;
}

/** `watch`: a completed live payout's return check (the provider read back; see ReturnWatch). */
export const SETTLEMENT_STEPS = ['start', 'settle', 'refund', 'watch'] as const;
export type SettlementStep = (typeof SETTLEMENT_STEPS)[number];

/** A message on the settlement (payouts) queue: one step of one payout. */
export const payoutStepMessage = z.object({
  payout_id: z.string().check(z.minLength(1), z.maxLength(100)),
  step: z.enum(SETTLEMENT_STEPS),
});
export type PayoutStepMessage = Readonly<z.infer<typeof payoutStepMessage>>;

/** A message on the settlement queue: a sandbox refund to settle. */
export const refundSettlementMessage = z.object({
  refund_id: z.string().check(z.minLength(1), z.maxLength(100)),
  step: z.literal('refund_settle'),
});
export type RefundSettlementMessage = Readonly<z.infer<typeof refundSettlementMessage>>;

/** A message on the settlement queue: a sandbox mandate's decision by its payer (DESIGN.md 9.3). */
export const mandateDecisionMessage = z.object({
  mandate_id: z.string().check(z.minLength(1), z.maxLength(100)),
  step: z.literal('mandate_decide'),
});
export type MandateDecisionMessage = Readonly<z.infer<typeof mandateDecisionMessage>>;

/** A message on the settlement queue: a submitted sandbox dispute's decision by the issuer (DESIGN.md 9.4). */
export const disputeDecisionMessage = z.object({
  dispute_id: z.string().check(z.minLength(1), z.maxLength(100)),
  step: z.literal('dispute_decide'),
});
export type DisputeDecisionMessage = Readonly<z.infer<typeof disputeDecisionMessage>>;

/** Everything the settlement worker reads from its queue. */
export const settlementMessage = z.union([payoutStepMessage, refundSettlementMessage, mandateDecisionMessage, disputeDecisionMessage]);
export type SettlementMessage = Readonly<z.infer<typeof settlementMessage>>;

/** Where payouts go to be paid: the sandbox simulator, or a live provider (none yet). */
export interface PayoutRail {
  /** Schedules the next step for a payout (the sandbox settles a few seconds later). */
  schedule(payoutId: string, step: SettlementStep): Promise<void>;
}

export interface PayoutRails {
  forMode(livemode: boolean): PayoutRail | null;
}
