/** What the mandate use cases need from storage (DESIGN.md 9.3). */
import type { DomainEvent } from '../../domain/events';
import type { Mandate, MandateStatus } from '../../domain/mandates/mandate';
import type { Payment } from '../../domain/payments/payment';
import type { IdempotencyDone } from './idempotency-ports';
import type { Committed, Credit } from './payment-ports';

export interface MandateListQuery {
  readonly status?: MandateStatus;
  readonly from?: string;
  readonly to?: string;
  readonly limit: number;
  readonly offset: number;
  /** Cursor pagination: the page starts right after this mandate (offset is then 0). */
  readonly startingAfter?: Mandate;
}

export interface MandateStore {
  /**
   * A new mandate and its events; `done`: the keyed request's answer in the same transaction. WriteConflict('mandate')
   * when the id is taken.
   */
  create(op: { mandate: Mandate; events: DomainEvent[]; now: string; done?: IdempotencyDone }): Promise<Committed>;
  get(mandateId: string): Promise<Mandate | null>;
  /** status -> to with a patch, conditional on the status read (WriteConflict('mandate') when it moved); events and answer alike. */
  transition(op: {
    mandate: Mandate;
    to: MandateStatus;
    patch: Partial<Mandate>;
    events: DomainEvent[];
    now: string;
    done?: IdempotencyDone;
  }): Promise<Committed>;
  /**
   * A charge under an active mandate, atomically: the payment with its events (and its credit when it already
   * succeeded), the cycle's claim (new, or taken over from `replaces`, a failed charge of the cycle) and the mandate's
   * charge count, conditional on the mandate still active. WriteConflict('mandate') when it is not,
   * WriteConflict('mandate_cycle') when the cycle is held, WriteConflict('payment') when the id is taken.
   */
  createCharge(op: {
    payment: Payment;
    cycle: number;
    replaces: string | null;
    /** How many charges the cycle may have had at most, this one included (a retry policy's). */
    maxCharges: number;
    events: DomainEvent[];
    credit?: Credit;
    now: string;
    done?: IdempotencyDone;
  }): Promise<Committed>;
  /** The charge holding a cycle of a mandate, if any. */
  cycleCharge(mandateId: string, cycle: number): Promise<string | null>;
  /** The mandate a provider's own id (a recurrence's idRec) belongs to, kept when the provider first answered it. */
  mandateOfProvider(provider: string, providerMandateId: string): Promise<string | null>;
  /** Live mandates whose read-back is due, from the work index (no Scan). */
  dueForCheck(now: string, limit: number): Promise<string[]>;
  /** One page, newest first, with the total of the filter and whether older items remain. */
  list(merchantId: string, mode: string, q: MandateListQuery): Promise<{ items: Mandate[]; total: number; more: boolean }>;
}
