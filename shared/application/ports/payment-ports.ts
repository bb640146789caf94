/** What the pay-in use cases need from storage; DynamoDB implements it with transactions. */
import type { DisputeCase } from '../../domain/disputes/dispute-case';
import type { IdempotencyDone } from './idempotency-ports';
import type { DomainEvent } from '../../domain/events';
import type { Dispute } from '../../domain/payments/dispute';
import type { EndedAttempt, Payment, PaymentStatus, ProviderLink } from '../../domain/payments/payment';
import type { AttemptWatch } from '../../domain/payments/attempt-watch';
import type { CheckoutSession, SessionStatus } from '../../domain/payments/session';

export interface Credit {
  readonly amountMinor: number;
  readonly currency: string;
  readonly entryId: string;
}

export interface SessionLink {
  readonly sessionId: string;
  /** The payment succeeded: the session completes (only from pending, before its expiry). */
  readonly complete: boolean;
  /** Update the session's payment_status only while this payment is its latest attempt. */
  readonly latestOnly: boolean;
}

/** The events a write committed (the outbox items of its transaction), for the publisher. */
export type Committed = readonly DomainEvent[];

/** Methods that commit events return them: the use case publishes exactly those (commitAndPublish). */
export interface PaymentStore {
  /** 'exists' when the id is taken (a keyed retry after a crash). */
  createSession(session: CheckoutSession): Promise<'created' | 'exists'>;
  getSession(sessionId: string): Promise<CheckoutSession | null>;
  getPayment(paymentId: string): Promise<Payment | null>;
  /**
   * A new payment in its initial status, its events, the session link and a credit, atomically; `done`: the keyed
   * request's answer in the same transaction (WriteConflict('idempotency') when its claim is lost).
   */
  recordNewPayment(op: {
    payment: Payment;
    session?: SessionLink;
    events: DomainEvent[];
    credit?: Credit;
    now: string;
    done?: IdempotencyDone;
  }): Promise<Committed>;
  /** payment.status -> to, conditional on the status read; session, events and credit in the same transaction. */
  transitionPayment(op: {
    payment: Payment;
    to: PaymentStatus;
    patch: Partial<Payment>;
    session?: SessionLink;
    events: DomainEvent[];
    credit?: Credit;
    now: string;
  }): Promise<Committed>;
  /**
   * The payment's dispute to its next stage (conditional on the stage read; WriteConflict when it moved), with
   * its balance movements (a chargeback debit may take the balance below zero) and events, atomically.
   */
  disputePayment(op: {
    payment: Payment;
    dispute: Dispute;
    /** The merchant's case (DESIGN.md 9.4) as it follows, conditional on the revision read (null: it must be new). */
    disputeCase: { next: DisputeCase; readRevision: number | null };
    movements: ReadonlyArray<{ amountMinor: number; reason: string; entryId: string }>;
    events: DomainEvent[];
    now: string;
  }): Promise<Committed>;
  /** The merchant's case of a disputed payment, by its id (strongly consistent), or null. */
  getDisputeCase(disputeId: string): Promise<DisputeCase | null>;
  /**
   * A patch that keeps the payment's status (conditional on it), and when a provider-held payment is read back
   * next (null: leave it). WriteConflict when the status changed meanwhile.
   */
  touchPayment(op: { payment: Payment; patch: Partial<Payment>; nextCheckAt: string | null; now: string }): Promise<void>;
  /**
   * Claims a read-back of a payment a provider holds for a status read: true (and the time kept) when the payment
   * is still in the status read and no read-back was claimed in the last `gapSeconds`; false otherwise.
   */
  claimReadBack(op: { payment: Payment; now: string; gapSeconds: number }): Promise<boolean>;
  /** Live payments a provider holds whose next read-back is due, from the work index (no Scan). */
  dueForProviderCheck(now: string, limit: number): Promise<string[]>;
  /** Since when (ISO) the oldest provider-held payment has waited for its read-back; null when none waits. */
  oldestProviderCheck(): Promise<string | null>;
  /**
   * A failover (DESIGN.md 9.2): the processing payment's current attempt (`payment.provider`, as read) ends (the
   * first of `ended`, then any skipped after it) and `next` becomes its attempt, conditional on the status and the
   * attempt's reference read (WriteConflict when either moved); with `watch`, the ended attempt is watched for a late
   * success in the same transaction.
   */
  switchAttempt(op: {
    payment: Payment;
    ended: readonly EndedAttempt[];
    next: ProviderLink;
    watch?: AttemptWatch;
    now: string;
  }): Promise<void>;
  /** Ended attempts whose watch is due (a late success to undo), from the work index (no Scan). */
  dueAttemptWatches(now: string, limit: number): Promise<AttemptWatch[]>;
  /** A watch read again later (`nextCheckAt`), or ended (null: deleted), conditional on the check time read. */
  moveAttemptWatch(op: { watch: AttemptWatch; nextCheckAt: string | null; outcome?: string; now: string }): Promise<void>;
  /** session.status -> to (cancelled/expired), with its still-open latest payment moved to `paymentTo`. */
  transitionSession(op: {
    session: CheckoutSession;
    to: Extract<SessionStatus, 'cancelled' | 'expired'>;
    payment?: { payment: Payment; to: Extract<PaymentStatus, 'cancelled' | 'expired'> };
    events: DomainEvent[];
    now: string;
    /** A keyed request's answer (a cancel), recorded in the same transaction. */
    done?: IdempotencyDone;
  }): Promise<Committed>;
  /** Sessions and payments whose expiry is due, from the work index (no Scan). */
  dueForExpiry(now: string, limit: number): Promise<Array<{ kind: 'session' | 'payment'; id: string }>>;
}

/** QR images of payment codes (the PIX BR Code): inline in the direct API, as an image for the hosted page. */
export interface QrCodes {
  /** 'data:image/png;base64,...' */
  pngDataUri(text: string): Promise<string>;
  png(text: string): Promise<Buffer>;
}
