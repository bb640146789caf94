/** What the refund use cases need from storage and from the rail that returns the money. */
import type { Payment } from '../../domain/payments/payment';
import type { Refund, RefundStatus } from '../../domain/refunds/refund';
import type { DomainEvent } from '../../domain/events';
import type { IdempotencyDone } from './idempotency-ports';
import type { Committed, SessionLink } from './payment-ports';

export interface RefundStore {
  get(refundId: string): Promise<Refund | null>;
  /** A payment's refunds, oldest first. */
  listByPayment(paymentId: string): Promise<Refund[]>;
  /**
   * One transaction: the pending refund (id must be free), the payment's reservation (only while it is
   * successful and the refund fits what is left), the balance debit (never negative) with its ledger entry,
   * and the events. WriteConflict names the entity that refused: refund, payment or balance. `done`: the keyed
   * request's answer, recorded in the same transaction (WriteConflict('idempotency') when its claim is lost).
   */
  create(op: {
    refund: Refund;
    payment: Payment;
    events: DomainEvent[];
    ledgerEntryId: string;
    now: string;
    done?: IdempotencyDone;
  }): Promise<Committed>;
  /**
   * Claims the send of a pending refund to a provider whose sends are not idempotent: true for one caller per
   * send (a settlement message delivered twice at once sends once); a claim older than the lease (its sender died
   * mid-send) can be taken again.
   */
  claimSend(refundId: string, now: string, leaseSeconds: number): Promise<boolean>;
  /** The send claimed at `claimedAt` is over (answered or not): the next attempt reads back first, then may claim. */
  releaseSend(refundId: string, claimedAt: string): Promise<void>;
  /**
   * One transaction: refund pending -> to; succeeded counts as settled on the payment (and moves it to
   * refunded when `fullyRefunded`); failed releases the reservation and credits the balance back.
   */
  settle(op: {
    refund: Refund;
    to: Exclude<RefundStatus, 'pending'>;
    patch: Partial<Refund>;
    payment: Payment;
    fullyRefunded: boolean;
    /** When the payment is its session's latest: the session's payment_status follows it to refunded. */
    session?: SessionLink;
    events: DomainEvent[];
    creditEntryId?: string;
    now: string;
  }): Promise<Committed>;
}

/** Sends a refund's money back (the sandbox rail settles it after a delay through the settlement queue). */
export interface RefundRail {
  schedule(refundId: string): Promise<void>;
}

export interface RefundRails {
  forMode(livemode: boolean): RefundRail | null;
}
