/**
 * Refunds: statuses and their transitions, reasons, the windows in which each method can be refunded and
 * where the money goes (back to the instrument, or to a beneficiary for voucher-paid methods). Pure rules.
 */
import { BANK_FIELDS, PAYOUT_METHODS, type BeneficiaryRail } from '../catalog/payout-methods';
import type { DocumentType } from '../documents';
import type { CountryCode, CurrencyCode } from '../geo';
import type { MaskedBeneficiary } from '../payouts/masking';
import type { Payment, PaymentMethod, ProviderLink } from '../payments/payment';

export const REFUND_STATUSES = ['pending', 'succeeded', 'failed'] as const;
export type RefundStatus = (typeof REFUND_STATUSES)[number];

export const REFUND_TRANSITIONS: Readonly<Record<RefundStatus, readonly RefundStatus[]>> = {
  pending: ['succeeded', 'failed'],
  succeeded: [],
  failed: [],
};
export const canRefundTransition = (from: RefundStatus, to: RefundStatus) => REFUND_TRANSITIONS[from].includes(to);

export const REFUND_REASONS = ['requested_by_customer', 'duplicate', 'fraudulent', 'other'] as const;
export type RefundReason = (typeof REFUND_REASONS)[number];

/** The webhook event each refund status emits. */
export const REFUND_EVENT: Readonly<Record<RefundStatus, string>> = {
  pending: 'refund.created',
  succeeded: 'refund.succeeded',
  failed: 'refund.failed',
};

/** Days after the payment in which it can be refunded (PIX devolução: 90 days; card networks: 180). */
export const REFUND_WINDOW_DAYS: Readonly<Record<PaymentMethod, number>> = {
  pix: 90,
  card: 180,
  wallet: 180,
  boleto: 180,
  bank_transfer: 180,
  cash: 180,
  spei: 180,
  cip: 180,
  pse: 180,
  payin: 180,
  // A crypto order refunds in the currency paid; the provider refuses one past its own window.
  crypto: 180,
};

/**
 * Methods whose refunds go back to the original instrument (a crypto order: the payer's account at the provider, in
 * the currency paid); the others need a beneficiary account (a PSE or Peruvian
 * online-banking (`payin`) payment is a bank transfer: its refund goes to an account, as bank_transfer's does).
 */
export const REFUNDS_TO_INSTRUMENT: readonly PaymentMethod[] = ['pix', 'card', 'wallet', 'crypto'];
export const needsBeneficiary = (m: PaymentMethod) => !REFUNDS_TO_INSTRUMENT.includes(m);

/** A traditional bank transfer to the shopper's account in `country`, with SPEC.md 2.6's bank-transfer fields. */
const refundOnlyBankTransfer = (country: CountryCode, currency: CurrencyCode, document: DocumentType): BeneficiaryRail => ({
  name: 'Bank transfer',
  type: 'bank_transfer',
  country,
  currency,
  required_fields: BANK_FIELDS,
  document_types: [document],
  instant_transfer_types: [],
  refunds_only: true,
});

/**
 * Rails that carry refunds only, in countries SPEC.md gives no payout method (its payout discovery lists BRA, MEX,
 * ARG, PER and COL). They have no method code: never listed, never a payout's method.
 */
export const REFUND_ONLY_RAILS: readonly BeneficiaryRail[] = [
  refundOnlyBankTransfer('CHL', 'CLP', 'RUT'),
  refundOnlyBankTransfer('ECU', 'USD', 'CI'),
];

/**
 * The rail that carries a voucher-paid payment's refund in its country: its payout method (PIX, CLABE, CVU/CBU, bank
 * account), else a refund-only bank transfer (Chile, Ecuador).
 */
export function refundRail(country: CountryCode): BeneficiaryRail | null {
  return PAYOUT_METHODS.find((m) => m.country === country) ?? REFUND_ONLY_RAILS.find((m) => m.country === country) ?? null;
}

/** The window's end for a payment paid at `paidAt`. */
export function refundDeadline(p: Pick<Payment, 'payment_method' | 'paid_at' | 'created_at'>): Date {
  const paid = Date.parse(p.paid_at ?? p.created_at);
  return new Date(paid + REFUND_WINDOW_DAYS[p.payment_method] * 86_400_000);
}

/** What is left to refund: the amount minus refunds pending or succeeded. */
export const refundableMinor = (p: Pick<Payment, 'amount_minor' | 'refunded_minor'>) => p.amount_minor - (p.refunded_minor ?? 0);

/** Sandbox: a refund whose amount ends in 13 minor units (10.13) is declined by the bank; every other one succeeds. */
export const sandboxRefundFails = (amountMinor: number) => amountMinor % 100 === 13;

export interface Refund {
  readonly refund_id: string;
  readonly payment_id: string;
  readonly merchant_id: string;
  readonly livemode: boolean;
  readonly amount_minor: number;
  readonly currency: CurrencyCode;
  readonly status: RefundStatus;
  readonly reason: RefundReason;
  readonly metadata: Record<string, string | number | boolean | null>;
  /** Voucher-paid payments only: where the money goes, masked as payouts are. */
  readonly beneficiary: MaskedBeneficiary | null;
  /** The payment's reference (the session's order number or the direct payment's reference_id). */
  readonly reference_id: string | null;
  readonly notification_url: string | null;
  readonly failure_reason: string | null;
  /** Live refunds: the provider that returns the money and the refund's id there (derived from ours). */
  readonly provider?: ProviderLink | null;
  readonly created_at: string;
  readonly updated_at: string;
  readonly completed_at: string | null;
}
