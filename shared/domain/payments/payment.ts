/**
 * Payments: statuses, the allowed transitions (SPEC.md 3.1 plus DESIGN.md's
 * extensions) and the event each status emits. Pure rules; the repository turns
 * each transition into a conditional write.
 */
import type { CountryCode, CurrencyCode } from '../geo';
import type { Dispute } from './dispute';

export const PAYMENT_STATUSES = ['pending', 'pending_3ds', 'processing', 'success', 'failed', 'cancelled', 'expired', 'refunded'] as const;
export type PaymentStatus = (typeof PAYMENT_STATUSES)[number];

export const PAYMENT_METHODS = [
  'pix',
  'card',
  'boleto',
  'bank_transfer',
  'cash',
  'wallet',
  'spei',
  'cip',
  'pse',
  'payin',
  'crypto',
] as const;
export type PaymentMethod = (typeof PAYMENT_METHODS)[number];

/** The transition table: from -> the statuses it may move to. */
export const PAYMENT_TRANSITIONS: Readonly<Record<PaymentStatus, readonly PaymentStatus[]>> = {
  pending: ['success', 'failed', 'expired', 'cancelled'],
  pending_3ds: ['success', 'failed', 'expired'],
  // processing -> pending: a live charge whose provider answered (or was read back) after the intent was committed;
  // processing -> pending_3ds: a live direct card whose provider asked for 3-D Secure after the intent was committed.
  processing: ['pending', 'pending_3ds', 'success', 'failed', 'expired'],
  success: ['refunded'],
  failed: [],
  cancelled: [],
  expired: [],
  refunded: [],
};

/** Statuses a payment may be created in (SPEC.md 3.1 rows from "(none)"). */
export const INITIAL_PAYMENT_STATUSES: readonly PaymentStatus[] = ['pending', 'pending_3ds', 'processing', 'success', 'failed'];

/** Statuses in which a payment still waits for the customer or the provider (it can still succeed, fail or expire). */
export const OPEN_PAYMENT_STATUSES: readonly PaymentStatus[] = ['pending', 'pending_3ds', 'processing'];
export const isOpenPaymentStatus = (s: PaymentStatus) => OPEN_PAYMENT_STATUSES.includes(s);

export const canTransition = (from: PaymentStatus, to: PaymentStatus) => PAYMENT_TRANSITIONS[from].includes(to);

/** Statuses from which `to` is reachable: the condition of the conditional write. */
export const sourcesOf = (to: PaymentStatus): PaymentStatus[] => PAYMENT_STATUSES.filter((from) => PAYMENT_TRANSITIONS[from].includes(to));

export const isFinal = (s: PaymentStatus) => PAYMENT_TRANSITIONS[s].length === 0 || s === 'success';

/** The webhook event a payment emits on reaching a status (SPEC.md 6.1, DESIGN.md section 5). */
export const PAYMENT_EVENT: Readonly<Partial<Record<PaymentStatus, string>>> = {
  pending_3ds: 'payment.pending_3ds',
  success: 'payment.success',
  failed: 'payment.failed',
  expired: 'payment.expired',
  cancelled: 'payment.cancelled',
  refunded: 'payment.refunded',
};

/**
 * Where a live payment is held outside the service: the connector that holds it and our reference there
 * (derived from the payment id, so it is known before the call), with what the provider answered. Set in
 * the same write that records the intent; absent in test mode.
 */
export interface ProviderLink {
  readonly name: string;
  readonly reference: string;
  readonly details: Readonly<Record<string, string>>;
  /** Which attempt of the payment this is (routing and failover, DESIGN.md 9.2); absent: the first. */
  readonly attempt?: number;
}

/**
 * An attempt at a provider that ended without moving money, so the payment went on to the next provider: its
 * reference there (none when it was skipped: never called), our failure code, and whether a late success there must
 * still be watched for (the call got no answer and the read-back found nothing: a request still in flight could land).
 */
export interface EndedAttempt {
  readonly provider: string;
  readonly outcome: 'failed' | 'skipped';
  readonly failure_code: string;
  readonly reference?: string;
  readonly attempt?: number;
  readonly at: string;
  /** How long the call took (ms), for latency per provider; absent when it was not called. */
  readonly latency_ms?: number;
  readonly watched?: boolean;
}

/** A live payment whose outcome the provider decides: the reconciliation job, not a timer, closes it. */
export const awaitsProvider = (p: Pick<Payment, 'provider' | 'status'>) => Boolean(p.provider) && isOpenPaymentStatus(p.status);

export interface CardSummary {
  readonly brand: string;
  readonly last_four: string;
}

/** A payment as stored: never a card number, CVV or full document. */
export interface Payment {
  readonly payment_id: string;
  readonly merchant_id: string;
  readonly livemode: boolean;
  readonly checkout_session_id: string | null;
  readonly payment_method: PaymentMethod;
  readonly method_code: string;
  readonly amount_minor: number;
  readonly currency: CurrencyCode;
  readonly country: CountryCode;
  readonly status: PaymentStatus;
  readonly description: string | null;
  readonly customer: { name: string; email: string; document_masked: string | null; phone: string | null };
  readonly card: CardSummary | null;
  readonly installments: number | null;
  readonly authorization_code: string | null;
  readonly failure_code: string | null;
  readonly failure_message: string | null;
  /** Method artefact: PIX code, boleto line, CLABE, voucher, ... */
  readonly artefact: Record<string, string> | null;
  readonly redirect_url: string | null;
  readonly return_url: string | null;
  readonly notification_url: string | null;
  readonly reference_id: string | null;
  readonly metadata: Record<string, string | number | boolean | null>;
  readonly expires_at: string | null;
  readonly paid_at: string | null;
  /** Refunds pending or succeeded, in minor units (absent until the first refund). */
  readonly refunded_minor?: number;
  /** Refunds succeeded, in minor units: the payment becomes refunded when this reaches its amount. */
  readonly refund_settled_minor?: number;
  /** Live payments held by a provider (see ProviderLink); absent or null otherwise. */
  readonly provider?: ProviderLink | null;
  /**
   * Attempts that ended without moving money before the current one (`provider`), oldest first: failed over
   * (routing, DESIGN.md 9.2) or skipped (the provider paused). Absent when the payment has had one attempt.
   */
  readonly ended_attempts?: readonly EndedAttempt[];
  /** A paid amount that does not match (recorded and alarmed, never settled): minor units the provider reported. */
  readonly provider_mismatch_minor?: number;
  /** A chargeback of this payment and where its case stands (live cards); absent when never disputed. */
  readonly dispute?: Dispute | null;
  /** A charge under a mandate (DESIGN.md 9.3): the mandate, and the due date it was charged for (YYYY-MM-DD). */
  readonly mandate_id?: string | null;
  readonly due_date?: string | null;
  readonly created_at: string;
  readonly updated_at: string;
}
