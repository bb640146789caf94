/**
 * Payouts: statuses, transitions (SPEC.md 3.3 plus DESIGN.md 5-6), the event
 * each status emits and its balance effect. Pure rules.
 */
import type { CountryCode, CurrencyCode } from '../geo';
import type { MaskedBeneficiary } from './masking';

export const PAYOUT_STATUSES = ['pending', 'processing', 'completed', 'failed', 'cancelled', 'refunded'] as const;
export type PayoutStatus = (typeof PAYOUT_STATUSES)[number];

export const PAYOUT_TRANSITIONS: Readonly<Record<PayoutStatus, readonly PayoutStatus[]>> = {
  pending: ['processing', 'cancelled'],
  processing: ['completed', 'failed'],
  completed: ['refunded'],
  failed: [],
  cancelled: [],
  refunded: [],
};

export const canPayoutTransition = (from: PayoutStatus, to: PayoutStatus) => PAYOUT_TRANSITIONS[from].includes(to);

/** Statuses that give the money back to the merchant's balance (the create debited it). */
export const RETURNS_FUNDS: ReadonlySet<PayoutStatus> = new Set(['failed', 'cancelled', 'refunded']);

export const PAYOUT_EVENT: Readonly<Partial<Record<PayoutStatus, string>>> = {
  processing: 'payout.processing',
  completed: 'payout.completed',
  failed: 'payout.failed',
  refunded: 'payout.refunded',
  cancelled: 'payout.cancelled',
};

/** DESIGN.md section 6: the sandbox beneficiary document decides the outcome. */
export type SandboxOutcome = 'complete' | 'fail' | 'complete_then_refund' | 'hold';
export function sandboxOutcome(document: string): SandboxOutcome {
  switch (document.replace(/\D/g, '')) {
    case '00000000272':
      return 'fail';
    case '00000000353':
      return 'complete_then_refund';
    case '00000000434':
      return 'hold';
    default:
      return 'complete';
  }
}

/** The beneficiary as a payout stores and shows it: document and keys masked (shared/domain/payouts/masking.ts). */
export type StoredBeneficiary = MaskedBeneficiary;

/**
 * A live payout held by a provider: our reference (derived from the payout id, known before the call), the
 * order exactly as sent (every send for one payout is the same request; it holds the full account, so it is
 * never shown or logged), and what the provider answered.
 */
export interface PayoutProviderLink {
  readonly name: string;
  readonly reference: string;
  readonly order: Readonly<Record<string, string | number>>;
  readonly details: Readonly<Record<string, string>>;
}

export interface Payout {
  readonly payout_id: string;
  readonly merchant_id: string;
  readonly livemode: boolean;
  readonly method_code: string;
  readonly country: CountryCode;
  readonly amount_minor: number;
  readonly currency: CurrencyCode;
  readonly status: PayoutStatus;
  readonly beneficiary: StoredBeneficiary;
  /** What the sandbox does with it, decided from the full document at creation (not stored). */
  readonly sandbox_outcome: SandboxOutcome | null;
  readonly description: string | null;
  readonly notification_url: string | null;
  readonly metadata: Record<string, string | number | boolean | null>;
  readonly failure_reason: string | null;
  readonly created_at: string;
  readonly updated_at: string;
  readonly completed_at: string | null;
  /** Live payouts paid through a provider (see PayoutProviderLink); absent otherwise. */
  readonly provider?: PayoutProviderLink | null;
}

/**
 * The settlement step a payout in this state still owes, if any: money in flight. Processing payouts are
 * settled; a sandbox payout that completes then is returned by the beneficiary bank still owes its return.
 */
export function owedSettlementStep(p: Pick<Payout, 'status' | 'sandbox_outcome'>): 'settle' | 'refund' | null {
  if (p.status === 'processing') return 'settle';
  if (p.status === 'completed' && p.sandbox_outcome === 'complete_then_refund') return 'refund';
  return null;
}
