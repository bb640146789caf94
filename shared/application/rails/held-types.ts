/** The shape of the held-strategy table (held.ts): one row per kind of live method a provider holds. */
import type { CountryCode } from '../../domain/geo';
import type { Payment, PaymentMethod } from '../../domain/payments/payment';
import type { Initiated, InitiateRequest } from '../payments';
import type { PaymentDeps } from '../ports';
import type { Connectors, MerchantRouting } from '../providers';

/**
 * How a live method is held: a PIX charge, a card, a voucher (cash slip, boleto), a deposit to the payment's CLABE,
 * a local payment finished on the provider's page (redirect) or paid elsewhere with its ticket.
 */
export type HeldKind = 'recurring' | 'card' | 'deposit' | 'voucher' | 'redirect' | 'ticket' | 'qr' | 'pix';

/** What a reconciliation step did to a held payment. */
export type HeldOutcome = 'settled' | 'opened' | 'expired' | 'failed' | 'mismatch' | 'waiting' | 'closed';

export interface ReconcileOptions {
  /** Seconds between read-backs of an open charge (default 120). */
  readonly checkIntervalSeconds?: number;
  /** At most this many payments per run. */
  readonly limit?: number;
  /** A charge the provider does not have is given this long (a request still retrying) before its payment fails. */
  readonly lostIntentSeconds?: number;
}

/** A new payment's start at the provider that holds it: the intent committed first, then the provider called. */
export type HeldStart = (deps: PaymentDeps, req: InitiateRequest, base: Payment) => Promise<Initiated>;

/** The reconciliation job's step for one due payment, bound to it. */
export type HeldCheck = (deps: PaymentDeps, now: Date, opts: ReconcileOptions) => Promise<HeldOutcome>;

/**
 * One row: which live methods its provider collects (what a live merchant is offered), the start of a new
 * payment it holds, and the reconciliation of a stored one. Each answers null when this row's provider is not
 * configured or does not hold that payment, so the next row (or the sandbox connector) is asked.
 */
export interface HeldStrategy {
  /** Whether its check reads the payment back from the provider (a status read may then ask for one sooner). */
  readonly readsBack: boolean;
  /** Whether its provider serves the kind in the country (a routed kind: for a merchant with these overrides). */
  serves(c: Connectors, kind: PaymentMethod, country: CountryCode, merchantRouting?: MerchantRouting): boolean;
  start(c: Connectors, req: InitiateRequest): HeldStart | null;
  check(c: Connectors, paymentId: string, payment: Payment | null): HeldCheck | null;
}
