/**
 * dLocal's chargebacks in our words (pure; wired by dlocal.chargeback-intake.ts, whose status -> signal is this
 * table's). What dLocal documents (docs/chargebacks,
 * reference/chargeback-asynchronous-notification, reference/chargeback-status; the older Credit Card Payment
 * Operations page): a chargeback is NOT told on the payment's notification. dLocal POSTs the chargeback object
 * (id, payment_id, amount, currency, status, status_code, status_detail, created_date, notification_url, order_id)
 * to the merchant's chargeback notification URL registered with dLocal, signed like every notification
 * (dlocal.signature.ts), and it can be read with GET /chargebacks/{chargeback_id}. The object carries `payment_id`,
 * as a refund notification does: dlocal.notifications.ts would read such a body as a refund, so chargebacks come to a
 * route of their own (POST /providers/dlocal/chargebacks).
 *
 * Statuses (reference/chargeback-status) and the signal each gives (dispute.ts: the funds' stage):
 *   PENDING 100 "The chargeback is pending"                   -> none (announced, not yet executed)
 *   DISPUTE_RECEIVED 101 "Dispute documentation received"     -> none (our documents, no money)
 *   COMPLETED 200 "The chargeback was executed"               -> withdrawn
 *   IN_DISPUTE 201 "Dispute documentation was sent"           -> withdrawn (the case is open; funds stay away)
 *   DISPUTE_LOST 202 "The chargeback dispute was lost"        -> lost
 *   REVERSAL 700 "The chargeback dispute was won"             -> won (funds returned)
 *   INQUIRY 800 "Request for information received"            -> none (a retrieval request, no money)
 *   CANCELLED 400 (only on the older page: "The chargeback was cancelled") -> won: it returns what COMPLETED took,
 *     and on a chargeback never executed dispute.ts writes both movements, net zero.
 * Assumed: that dLocal debits the merchant at COMPLETED and not at PENDING (the pages say "executed", not when the
 * balance moves); to confirm in dLocal's sandbox (its chargeback simulation takes a status).
 */
import * as z from '../../../domain/zod';
import { CURRENCY_DECIMALS, type CurrencyCode } from '../../../domain/geo';
import type { DisputeSignal } from '../../../domain/payments/dispute';
import { chargebackSchema, type ChargebackStatus, type DlocalChargeback } from './dlocal.card-schemas';
import { parseCardOrderId } from './dlocal.card-transformers';

const SIGNALS: Readonly<Record<ChargebackStatus, DisputeSignal | null>> = {
  PENDING: null,
  DISPUTE_RECEIVED: null,
  COMPLETED: 'withdrawn',
  IN_DISPUTE: 'withdrawn',
  DISPUTE_LOST: 'lost',
  REVERSAL: 'won',
  INQUIRY: null,
  CANCELLED: 'won',
};

export const chargebackSignalOf = (status: ChargebackStatus): DisputeSignal | null => SIGNALS[status];

/** A chargeback notice in our words, ready for applyDisputeSignal (dispute.ts), or null when it moves no money. */
export interface DlocalChargebackNotice {
  readonly signal: DisputeSignal;
  /** Our payment id and attempt, from a card order_id of ours; null when the order is not one of ours. */
  readonly paymentId: string | null;
  readonly attempt: number | null;
  /** dLocal's payment id (what the paid attempt recorded as its psp reference). */
  readonly providerPaymentId: string;
  /** dLocal's chargeback id: the dispute's provider reference (one dispute per chargeback). */
  readonly chargebackId: string;
  readonly amountMinor: number;
  readonly currency: string;
  readonly reasonCode: string | null;
  readonly at: string | null;
  /** dLocal's status, for the log (never its status_detail). */
  readonly status: ChargebackStatus;
}

export function chargebackNoticeOf(c: DlocalChargeback): DlocalChargebackNotice | null {
  const signal = chargebackSignalOf(c.status);
  if (!signal) return null;
  const ours = c.order_id ? parseCardOrderId(c.order_id) : null;
  const decimals = c.currency in CURRENCY_DECIMALS ? CURRENCY_DECIMALS[c.currency as CurrencyCode] : 2;
  const reason = c.reason_code === undefined ? null : String(c.reason_code).slice(0, 32);
  return {
    signal,
    paymentId: ours?.paymentId ?? null,
    attempt: ours?.attempt ?? null,
    providerPaymentId: c.payment_id,
    chargebackId: c.id,
    amountMinor: Math.round(c.amount * 10 ** decimals),
    currency: c.currency,
    reasonCode: reason && /^[\w.-]+$/.test(reason) ? reason : null,
    at: c.created_date ?? null,
    status: c.status,
  };
}

/** A body as a chargeback notice: null when it is not dLocal's chargeback shape, or moves no money. */
export function parseChargeback(body: unknown): { readonly notice: DlocalChargebackNotice | null } | null {
  const c = z.safeParse(chargebackSchema, body);
  return c.success ? { notice: chargebackNoticeOf(c.data) } : null;
}
