/**
 * Mandates (DESIGN.md 9.3): a payer's standing authorisation to be charged again, by Pix Automático or by a card
 * stored at the acquirer. Statuses, transitions, the event each status emits, the billing cycles of a frequency
 * and the sandbox's outcome. Pure rules; the repository turns each transition into a conditional write.
 */
import type { CountryCode, CurrencyCode } from '../geo';
import type { CardSummary } from '../payments/payment';

export const MANDATE_STATUSES = ['pending_approval', 'active', 'rejected', 'cancelled', 'expired'] as const;
export type MandateStatus = (typeof MANDATE_STATUSES)[number];

export const MANDATE_METHODS = ['pix_automatico', 'card'] as const;
export type MandateMethod = (typeof MANDATE_METHODS)[number];

export const MANDATE_FREQUENCIES = ['weekly', 'monthly', 'quarterly', 'semiannual', 'annual'] as const;
export type MandateFrequency = (typeof MANDATE_FREQUENCIES)[number];

export const MANDATE_RETRY_POLICIES = ['none', 'retry_3_in_7_days'] as const;
export type MandateRetryPolicy = (typeof MANDATE_RETRY_POLICIES)[number];

export const MANDATE_TRANSITIONS: Readonly<Record<MandateStatus, readonly MandateStatus[]>> = {
  pending_approval: ['active', 'rejected', 'expired', 'cancelled'],
  active: ['cancelled', 'expired'],
  rejected: [],
  cancelled: [],
  expired: [],
};

export const canMandateTransition = (from: MandateStatus, to: MandateStatus) => MANDATE_TRANSITIONS[from].includes(to);

export const MANDATE_EVENT: Readonly<Partial<Record<MandateStatus, string>>> = {
  active: 'mandate.approved',
  rejected: 'mandate.rejected',
  cancelled: 'mandate.cancelled',
  expired: 'mandate.expired',
};

/** What the payer approves: a recurrence QR, a request pushed to their bank app, or our hosted card page. */
export type MandateApproval =
  | { readonly type: 'pix_qr'; readonly pix_code: string }
  | { readonly type: 'pix_request' }
  | { readonly type: 'redirect'; readonly url: string };

/**
 * A live mandate held by a provider: its name, our reference there (derived from the mandate id, committed before
 * the call), the provider's own id once it answered (a recurrence's idRec), and what else it answered.
 */
export interface MandateProviderLink {
  readonly name: string;
  readonly reference: string;
  readonly provider_mandate_id: string | null;
  readonly details: Readonly<Record<string, string>>;
}

/** A card stored at the provider for this mandate (live cards only): never shown beyond brand and last four. */
export interface StoredCardLink {
  readonly shopper_reference: string;
  readonly stored_payment_method_id: string;
}

export interface Mandate {
  readonly mandate_id: string;
  readonly merchant_id: string;
  readonly livemode: boolean;
  readonly method: MandateMethod;
  readonly country: CountryCode;
  readonly currency: CurrencyCode;
  readonly status: MandateStatus;
  readonly description: string;
  readonly customer: { name: string; email: string; document_masked: string | null; phone: string | null };
  readonly frequency: MandateFrequency;
  /** A fixed amount per charge (minor units), or null: a variable amount up to max_amount_minor. */
  readonly amount_minor: number | null;
  readonly max_amount_minor: number | null;
  /** YYYY-MM-DD. */
  readonly start_date: string;
  readonly end_date: string | null;
  readonly retry_policy: MandateRetryPolicy;
  /** A PIX push request's target: the payer's bank (ISPB) and, masked, the account. */
  readonly payer: { bank_ispb: string; agency: string | null; account_masked: string | null } | null;
  readonly approval: MandateApproval | null;
  /** Until when the payer may approve (ISO); past it a pending mandate expires. */
  readonly approval_expires_at: string;
  readonly success_url: string | null;
  readonly cancel_url: string | null;
  readonly notification_url: string | null;
  readonly reference_id: string | null;
  readonly metadata: Record<string, string | number | boolean | null>;
  /** The card the payer approved with (card mandates, once approved). */
  readonly card: CardSummary | null;
  /** The sandbox's decision by the customer document (DESIGN.md 9.3); null live. */
  readonly sandbox_outcome: 'approve' | 'reject' | 'hold' | null;
  readonly provider?: MandateProviderLink | null;
  readonly stored_card?: StoredCardLink | null;
  /** Who cancelled (`merchant`, `payer`, `provider`) and why a mandate was rejected, when known. */
  readonly cancelled_by?: 'merchant' | 'payer' | 'provider' | null;
  readonly failure_code?: string | null;
  /** Charges made under the mandate (any status): a counter kept with each charge. */
  readonly charges_count?: number;
  /** When a live mandate the provider holds is read back next (the reconciliation job); null: not awaited. */
  readonly next_check_at?: string | null;
  readonly approved_at: string | null;
  readonly ended_at: string | null;
  readonly created_at: string;
  readonly updated_at: string;
}

/**
 * What POST /api/v1/sandbox/mandates/{id}/simulate can make happen (test mode): the payer approving, rejecting or
 * letting a pending mandate expire, or cancelling an active one in their bank app.
 */
export const SANDBOX_MANDATE_OUTCOMES = ['approve', 'reject', 'expire', 'payer_cancel'] as const;
export type SandboxMandateOutcome = (typeof SANDBOX_MANDATE_OUTCOMES)[number];

/** Each simulated outcome: the one status it acts on and the status it moves the mandate to. */
export const SANDBOX_MANDATE_MOVES: Readonly<Record<SandboxMandateOutcome, { from: MandateStatus; to: MandateStatus }>> = {
  approve: { from: 'pending_approval', to: 'active' },
  reject: { from: 'pending_approval', to: 'rejected' },
  expire: { from: 'pending_approval', to: 'expired' },
  payer_cancel: { from: 'active', to: 'cancelled' },
};

/**
 * DESIGN.md 9.3: the sandbox decides a mandate by the customer's document: 00000000272 rejects, 00000000434 stays
 * pending until simulated (as a payout to that document stays pending: the payer's page and simulate are then not
 * raced by the decision), any other approves.
 */
export function sandboxMandateOutcome(document: string): 'approve' | 'reject' | 'hold' {
  const d = document.replace(/\D/g, '');
  return d === '00000000272' ? 'reject' : d === '00000000434' ? 'hold' : 'approve';
}

const DAY_MS = 86_400_000;
const MONTHS: Readonly<Partial<Record<MandateFrequency, number>>> = { monthly: 1, quarterly: 3, semiannual: 6, annual: 12 };

const parseDate = (d: string) => Date.UTC(Number(d.slice(0, 4)), Number(d.slice(5, 7)) - 1, Number(d.slice(8, 10)));
export const dateOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);
export const addDays = (d: string, days: number) => dateOf(parseDate(d) + days * DAY_MS);
/** Today's date where the mandate's payer is (Brazil's and Spanish America's clocks are UTC-3 to UTC-6: UTC-3 is used). */
export const localToday = (now: Date) => dateOf(now.getTime() - 3 * 3_600_000);
/** The moment after a mandate's last day (midnight in Brazil's UTC-3): past it, an active mandate expires. */
export const mandateEndsAt = (endDate: string) => `${addDays(endDate, 1)}T03:00:00.000Z`;
export const daysBetween = (from: string, to: string) => Math.round((parseDate(to) - parseDate(from)) / DAY_MS);

/**
 * The billing cycle a due date falls in, counted from the mandate's start date (0 is the first): a week, or a run of
 * months from the start's day of the month. Null before the start date.
 */
export function cycleOf(m: Pick<Mandate, 'frequency' | 'start_date'>, dueDate: string): number | null {
  const days = daysBetween(m.start_date, dueDate);
  if (days < 0) return null;
  if (m.frequency === 'weekly') return Math.floor(days / 7);
  const span = MONTHS[m.frequency] ?? 1;
  const [sy, sm, sd] = [Number(m.start_date.slice(0, 4)), Number(m.start_date.slice(5, 7)), Number(m.start_date.slice(8, 10))];
  const [dy, dm, dd] = [Number(dueDate.slice(0, 4)), Number(dueDate.slice(5, 7)), Number(dueDate.slice(8, 10))];
  // A cycle starts on the start's day of the month, or the month's last day when it has no such day (31 Jan, 28 Feb).
  const lastDay = new Date(Date.UTC(dy, dm, 0)).getUTCDate();
  const months = (dy - sy) * 12 + (dm - sm) - (dd < Math.min(sd, lastDay) ? 1 : 0);
  return Math.floor(months / span);
}

/**
 * The days before its due date inside which a Pix Automático charge is sent (the central bank's Pix rules: the
 * receiver's PSP sends the instruction between 10 and 2 days before the due date); a live PSP's connector may say
 * otherwise (PixMandateConnector.chargeWindowDays).
 */
export const PIX_AUTOMATICO_CHARGE_WINDOW_DAYS = { min: 2, max: 10 } as const;

/** How long a payer has to approve: a PIX recurrence or push request, and our hosted card page. */
export const APPROVAL_DAYS: Readonly<Record<MandateMethod, number>> = { pix_automatico: 7, card: 1 };

/** A mandate's statuses in which a charge may be made. */
export const isChargeable = (m: Pick<Mandate, 'status'>) => m.status === 'active';
