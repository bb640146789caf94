/**
 * The dispute a merchant sees and fights (DESIGN.md 9.4): one per provider dispute (a card chargeback, a PIX MED
 * infraction), id `dsp_` + the disputed payment's id suffix, so the notices of one case, however many, however
 * ordered, can only ever find or create that one. Its money (stages, ledger movements) stays the payment's dispute
 * (shared/domain/payments/dispute.ts); this object adds what the merchant does about it: staged evidence, a
 * submission or an acceptance, and what the provider said to them. Pure rules, no I/O.
 */
import type { Dispute as MoneyDispute } from '../payments/dispute';
import type { CurrencyCode } from '../geo';

export const DISPUTE_CASE_STATUSES = ['needs_response', 'under_review', 'won', 'lost', 'accepted'] as const;
export type DisputeCaseStatus = (typeof DISPUTE_CASE_STATUSES)[number];
export const DISPUTE_CASE_KINDS = ['chargeback', 'pix_med'] as const;
export type DisputeCaseKind = (typeof DISPUTE_CASE_KINDS)[number];

/** Why the payer disputed, in our words (the provider's own code stays in provider_reason_code). */
export const DISPUTE_REASONS = ['fraudulent', 'authorization', 'processing_error', 'consumer_dispute', 'pix_fraud', 'general'] as const;
export type DisputeReason = (typeof DISPUTE_REASONS)[number];

export const DISPUTE_CASE_EVENTS = [
  'dispute.created',
  'dispute.updated',
  'dispute.won',
  'dispute.lost',
  'dispute.evidence_due_soon',
] as const;
export type DisputeCaseEvent = (typeof DISPUTE_CASE_EVENTS)[number];

/** How long before evidence_due_by the merchant is warned, when nothing was submitted. */
export const EVIDENCE_DUE_SOON_HOURS = 48;

/** A document as staged: its bytes are kept apart (dispute evidence chunks); the object shows what it is. */
export interface StagedDocument {
  readonly type: string;
  readonly mime: 'application/pdf' | 'image/jpeg' | 'image/tiff';
  readonly size_bytes: number;
  readonly sha256: string;
}

export interface StagedEvidence {
  /** The chosen defense reason's code (a card dispute's; null on a PIX MED, which takes text only). */
  readonly defense_reason: string | null;
  readonly text: string | null;
  readonly documents: readonly StagedDocument[];
  /** The staging's id: its documents' chunks are stored under it. */
  readonly staging_id: string;
  readonly staged_at: string;
}

/** What the merchant asked of the provider, committed before the provider is called (intent before call). */
export interface DisputeAction {
  readonly action: 'submit' | 'accept';
  /** pending: committed, the provider not (yet) confirmed; done: the provider took it; failed: it refused. */
  readonly state: 'pending' | 'done' | 'failed';
  readonly at: string;
  /** The staging submitted (a submit's). */
  readonly staging_id?: string;
  /** Document types supplied to the provider by this submission (a retry supplies the rest). */
  readonly supplied?: readonly string[];
  /**
   * Document types an earlier failed submission left at the provider, removed before this one supplies its own (a retry
   * removes them again, each by the same request to the provider).
   */
  readonly removing?: readonly string[];
  /** The defense was sent (a retry after this sends nothing more). */
  readonly defended?: boolean;
}

export interface DisputeCase {
  readonly dispute_id: string;
  readonly payment_id: string;
  readonly merchant_id: string;
  readonly livemode: boolean;
  readonly kind: DisputeCaseKind;
  readonly status: DisputeCaseStatus;
  readonly reason: DisputeReason;
  readonly provider_reason_code: string | null;
  readonly amount_minor: number;
  readonly currency: CurrencyCode;
  /** Whether the disputed amount is out of the merchant's balance now (a chargeback debited and not reversed, a MED return). */
  readonly funds_withdrawn: boolean;
  readonly evidence_due_by: string | null;
  /** The provider that holds the case (its name in our providers block), null in the sandbox. */
  readonly provider: string | null;
  /** The provider's own id of the case (a chargeback's pspReference, an infraction's id). */
  readonly provider_reference: string;
  readonly evidence: StagedEvidence | null;
  readonly last_action: DisputeAction | null;
  readonly submitted_at: string | null;
  readonly accepted_at: string | null;
  /** The provider's refusal of the last submission or acceptance (the case stays needs_response). */
  readonly last_error: { readonly code: string; readonly message: string; readonly at: string } | null;
  readonly evidence_due_soon_sent: boolean;
  readonly notification_url: string | null;
  /** The disputed payment's metadata, as the merchant set it. */
  readonly metadata: Record<string, string | number | boolean | null>;
  readonly revision: number;
  readonly created_at: string;
  readonly updated_at: string;
  readonly closed_at: string | null;
}

/** The dispute's id for a payment's case: one per payment, whatever the number of notices. */
export const disputeIdOf = (paymentId: string) => `dsp_${paymentId.replace(/^pi_/, '')}`;

/**
 * A card scheme's reason code in our words: Visa's groups (10 fraud, 11 authorisation, 12 processing errors,
 * 13 consumer disputes) and Mastercard's four-digit codes by the same groups; anything else is general.
 */
export function reasonOf(kind: DisputeCaseKind, code: string | null): DisputeReason {
  if (kind === 'pix_med') return 'pix_fraud';
  const c = (code ?? '').trim();
  const visa = /^(1[0-3])\.\d{1,2}(\.\d)?$/.exec(c);
  if (visa) return (['fraudulent', 'authorization', 'processing_error', 'consumer_dispute'] as const)[Number(visa[1]) - 10]!;
  const MASTERCARD: Readonly<Record<string, DisputeReason>> = {
    '4837': 'fraudulent',
    '4840': 'fraudulent',
    '4849': 'fraudulent',
    '4863': 'fraudulent',
    '4870': 'fraudulent',
    '4871': 'fraudulent',
    '4808': 'authorization',
    '4812': 'authorization',
    '4834': 'processing_error',
    '4831': 'processing_error',
    '4842': 'processing_error',
    '4846': 'processing_error',
    '4853': 'consumer_dispute',
    '4841': 'consumer_dispute',
    '4855': 'consumer_dispute',
    '4859': 'consumer_dispute',
    '4860': 'consumer_dispute',
  };
  return MASTERCARD[c] ?? 'general';
}

/** Whether the money's stage has the amount out of the balance: a chargeback at 1 or 3, a lost fraud return. */
export const fundsWithdrawn = (money: Pick<MoneyDispute, 'kind' | 'stage' | 'status'>) =>
  money.kind === 'fraud_return' ? money.status === 'lost' : money.stage === 1 || money.stage === 3;

/** The merchant's status from where the money stands and what the merchant did. */
export function caseStatusOf(
  money: Pick<MoneyDispute, 'status'>,
  defense: Pick<DisputeCase, 'accepted_at' | 'submitted_at'>,
): DisputeCaseStatus {
  if (money.status === 'won') return 'won';
  if (defense.accepted_at) return 'accepted';
  if (money.status === 'lost') return 'lost';
  return defense.submitted_at ? 'under_review' : 'needs_response';
}

/** Closed: nothing the merchant does changes it any more. */
export const caseClosed = (s: DisputeCaseStatus) => s === 'won' || s === 'lost' || s === 'accepted';

export interface CaseOrigin {
  readonly payment_id: string;
  readonly merchant_id: string;
  readonly livemode: boolean;
  readonly currency: CurrencyCode;
  readonly notification_url: string | null;
  readonly metadata: Record<string, string | number | boolean | null>;
  readonly provider: string | null;
}

/**
 * The case after the payment's dispute moved (money: the payment's dispute as it now stands): new on the first
 * notice, else its money fields follow. The events: dispute.created for a new case, dispute.won / dispute.lost when
 * it closes by the provider's decision, dispute.updated when anything the merchant reads changed otherwise.
 */
export function caseAfterNotice(
  current: DisputeCase | null,
  money: MoneyDispute,
  origin: CaseOrigin,
  at: string,
): { readonly next: DisputeCase; readonly events: readonly DisputeCaseEvent[] } {
  const kind: DisputeCaseKind = money.kind === 'fraud_return' ? 'pix_med' : 'chargeback';
  const base: DisputeCase = current ?? {
    dispute_id: disputeIdOf(origin.payment_id),
    payment_id: origin.payment_id,
    merchant_id: origin.merchant_id,
    livemode: origin.livemode,
    kind,
    status: 'needs_response',
    reason: reasonOf(kind, money.reason_code),
    provider_reason_code: money.reason_code,
    amount_minor: money.amount_minor,
    currency: origin.currency,
    funds_withdrawn: false,
    evidence_due_by: money.deadline ?? null,
    provider: origin.provider,
    provider_reference: money.provider_reference,
    evidence: null,
    last_action: null,
    submitted_at: null,
    accepted_at: null,
    last_error: null,
    evidence_due_soon_sent: false,
    notification_url: origin.notification_url,
    metadata: origin.metadata,
    revision: 0,
    created_at: at,
    updated_at: at,
    closed_at: null,
  };
  const status = caseStatusOf(money, base);
  const next: DisputeCase = {
    ...base,
    status,
    amount_minor: money.amount_minor,
    funds_withdrawn: fundsWithdrawn(money),
    provider_reason_code: base.provider_reason_code ?? money.reason_code,
    reason: base.provider_reason_code ? base.reason : reasonOf(kind, money.reason_code),
    evidence_due_by: money.deadline ?? base.evidence_due_by,
    closed_at: caseClosed(status) ? (base.closed_at ?? at) : null,
    updated_at: at,
    revision: base.revision + 1,
  };
  if (!current) return { next, events: ['dispute.created', ...closingEvent(status)] };
  const changed = (['status', 'amount_minor', 'funds_withdrawn', 'evidence_due_by', 'provider_reason_code'] as const).some(
    (f) => next[f] !== current[f],
  );
  if (!changed) return { next, events: [] };
  return { next, events: status !== current.status && closingEvent(status).length > 0 ? closingEvent(status) : ['dispute.updated'] };
}

const closingEvent = (s: DisputeCaseStatus): DisputeCaseEvent[] => (s === 'won' ? ['dispute.won'] : s === 'lost' ? ['dispute.lost'] : []);

/** Whether the case's evidence deadline has passed at `now`. */
export const deadlinePassed = (c: Pick<DisputeCase, 'evidence_due_by'>, now: Date) =>
  c.evidence_due_by !== null && Date.parse(c.evidence_due_by) <= now.getTime();

/** Whether the merchant is due the 48-hour warning at `now`: open, nothing submitted, not yet warned, deadline near. */
export function evidenceDueSoon(c: DisputeCase, now: Date): boolean {
  if (c.status !== 'needs_response' || c.evidence_due_soon_sent || c.evidence_due_by === null) return false;
  const left = Date.parse(c.evidence_due_by) - now.getTime();
  return left > 0 && left <= EVIDENCE_DUE_SOON_HOURS * 3600 * 1000;
}
