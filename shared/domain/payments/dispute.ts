/**
 * Disputes of a paid payment: pure rules. Two kinds, by how the money moves:
 *  - `chargeback` (cards): the stages below;
 *  - `fraud_return` (an instant payment's special return for fraud, PIX's MED): an infraction opens the case
 *    (stage 1, the funds are held at the provider, nothing moves here), closing it without a return wins it
 *    (stage 2, nothing moves), a fraud return loses it (stage 3, final: the returned amount is debited once,
 *    whether or not the case was seen open or won before; a later return of more of the same Pix debits only the
 *    difference, told again with payment.dispute_lost, as a notice carries the total returned).
 * For chargebacks: A provider tells us what happened to the money and
 * to the case; the dispute moves forward through funds stages and never back, so duplicate, replayed and
 * out-of-order notices settle the same money once:
 *
 *   stage 1  funds withdrawn  (the chargeback: the shopper's bank took the amount back)
 *   stage 2  funds returned   (the chargeback was reversed: the merchant defended it)
 *   stage 3  funds withdrawn  (a second chargeback, or pre-arbitration lost, after a reversal)
 *
 * A later stage implies the earlier ones: a reversal that arrives before its chargeback writes both movements
 * (net zero) and both events. The case's status is `open` (stage 1, undecided), `won` (stage 2) or `lost`
 * (final; funds withdrawn). The balance moves by the disputed amount at each stage: a debit at stages 1 and 3,
 * a credit at stage 2. A dispute debit is the one movement that may take a balance below zero: the money has
 * already left (payouts and refunds still need a covering balance).
 */
export const DISPUTE_STATUSES = ['open', 'won', 'lost'] as const;
export const DISPUTE_KINDS = ['chargeback', 'fraud_return'] as const;
export type DisputeKind = (typeof DISPUTE_KINDS)[number];
export type DisputeStatus = (typeof DISPUTE_STATUSES)[number];
/** 0: notified (a chargeback announced, nothing withdrawn yet); 1 withdrawn; 2 returned; 3 withdrawn again. */
export type DisputeStage = 0 | 1 | 2 | 3;

/** What a provider's notice says, in our words. */
export type DisputeSignal =
  /** A chargeback announced (the acquirer's notice of chargeback): the case opens, no money moves yet. */
  | 'notified'
  /** A chargeback: funds withdrawn, the case is still open. */
  | 'withdrawn'
  /** The chargeback was reversed / the case was won: funds returned. */
  | 'won'
  /** The case is lost (funds withdrawn, or withdrawn again after a reversal). */
  | 'lost';

export interface Dispute {
  /** Absent on disputes stored before fraud returns: a chargeback. */
  readonly kind?: DisputeKind;
  readonly status: DisputeStatus;
  readonly stage: DisputeStage;
  /** The disputed amount (minor units, the payment's currency): what each stage moves. */
  readonly amount_minor: number;
  /** The card scheme's reason code, or our word for a fraud return's reported situation, when the provider gives it. */
  readonly reason_code: string | null;
  /** When the case must be answered or is decided by, when the provider gives it. */
  readonly deadline?: string | null;
  /** The provider's reference of the dispute case. */
  readonly provider_reference: string;
  readonly opened_at: string;
  readonly updated_at: string;
  readonly closed_at: string | null;
}

export type DisputeMovementReason = 'chargeback' | 'chargeback_reversal' | 'pix_fraud_return';

export interface DisputeStep {
  readonly next: Dispute;
  /** Balance movements in order: debits (negative) and credits (positive), each with its ledger reason. */
  readonly movements: ReadonlyArray<{
    readonly amountMinor: number;
    readonly reason: DisputeMovementReason;
    readonly stage: Exclude<DisputeStage, 0>;
  }>;
  /** Payment events in order. */
  readonly events: readonly DisputeEventType[];
}

export const DISPUTE_EVENTS = ['payment.disputed', 'payment.dispute_won', 'payment.dispute_lost'] as const;
export type DisputeEventType = (typeof DISPUTE_EVENTS)[number];

const movementOf = (stage: Exclude<DisputeStage, 0>, amountMinor: number) =>
  stage === 2
    ? { amountMinor, reason: 'chargeback_reversal' as const, stage }
    : { amountMinor: -amountMinor, reason: 'chargeback' as const, stage };

export interface DisputeNotice {
  readonly amountMinor: number;
  readonly reasonCode: string | null;
  readonly providerReference: string;
  readonly at: string;
  /** Default `chargeback`; a stored dispute keeps its own. */
  readonly kind?: DisputeKind;
  readonly deadline?: string | null;
}

/** A fraud return's case: open (1) and won (2) move nothing; lost (3) debits the returned amount once. */
function fraudReturnStep(current: Dispute | null, signal: DisputeSignal, notice: DisputeNotice): DisputeStep | null {
  if (signal === 'notified') return null; // a card notice only: an infraction opens the case itself
  if (current?.status === 'lost') {
    // A further return of the same Pix (MED returns may come in parts): the notice's total is what left; only the
    // part not yet debited moves, and the merchant is told the new total. Anything else changes nothing.
    if (signal !== 'lost' || notice.amountMinor <= current.amount_minor) return null;
    return {
      next: { ...current, amount_minor: notice.amountMinor, updated_at: notice.at },
      movements: [{ amountMinor: current.amount_minor - notice.amountMinor, reason: 'pix_fraud_return', stage: 3 }],
      events: ['payment.dispute_lost'],
    };
  }
  const from: 0 | DisputeStage = current?.stage ?? 0;
  const [target, status]: [DisputeStage, DisputeStatus] =
    signal === 'withdrawn' ? [1, 'open'] : signal === 'won' ? [2, 'won'] : [3, 'lost'];
  if (from >= target) return null;
  const amountMinor = signal === 'lost' ? notice.amountMinor : (current?.amount_minor ?? notice.amountMinor);
  const events: DisputeEventType[] = [];
  if (!current) events.push('payment.disputed');
  if (status === 'won') events.push('payment.dispute_won');
  if (status === 'lost') events.push('payment.dispute_lost');
  const next: Dispute = {
    kind: 'fraud_return',
    status,
    stage: target,
    amount_minor: amountMinor,
    reason_code: current?.reason_code ?? notice.reasonCode,
    provider_reference: current?.provider_reference ?? notice.providerReference,
    deadline: status === 'open' ? (notice.deadline ?? current?.deadline ?? null) : (current?.deadline ?? notice.deadline ?? null),
    opened_at: current?.opened_at ?? notice.at,
    updated_at: notice.at,
    closed_at: status === 'open' ? null : notice.at,
  };
  const movements = status === 'lost' ? [{ amountMinor: -amountMinor, reason: 'pix_fraud_return' as const, stage: target }] : [];
  return { next, movements, events };
}

/**
 * The next state for a signal, with the movements and events that get there; null when the signal changes
 * nothing (a duplicate, a stale notice, or anything after the case is lost).
 */
export function applyDisputeSignal(current: Dispute | null, signal: DisputeSignal, notice: DisputeNotice): DisputeStep | null {
  if ((current?.kind ?? notice.kind) === 'fraud_return') return fraudReturnStep(current, signal, notice);
  if (current?.status === 'lost') return null;
  // Never disputed and notified (stage 0) move money alike: a chargeback withdraws from either.
  const from: DisputeStage = current?.stage ?? 0;
  let target: DisputeStage;
  let status: DisputeStatus;
  if (signal === 'notified') {
    // Opens the case (its deadline known), or tells a later deadline of an open one; nothing else.
    if (current && (current.status !== 'open' || !notice.deadline || notice.deadline === current.deadline)) return null;
    [target, status] = [from, 'open'];
  } else if (signal === 'withdrawn') {
    if (from >= 1) return null;
    [target, status] = [1, 'open'];
  } else if (signal === 'won') {
    if (from >= 2) return null;
    [target, status] = [2, 'won'];
  } else {
    // Lost: stays withdrawn when it is (stage 1), is withdrawn again after a reversal (stage 2 -> 3).
    [target, status] = [from === 2 ? 3 : 1, 'lost'];
  }
  const amountMinor = current?.amount_minor ?? notice.amountMinor;
  const movements: Array<DisputeStep['movements'][number]> = [];
  for (let s = from + 1; s <= target; s++) movements.push(movementOf(s as Exclude<DisputeStage, 0>, amountMinor));
  const events: DisputeEventType[] = [];
  if (!current) events.push('payment.disputed');
  if (status === 'won') events.push('payment.dispute_won');
  if (status === 'lost') events.push('payment.dispute_lost');
  const next: Dispute = {
    ...(current?.kind ? { kind: current.kind } : {}),
    status,
    stage: target,
    amount_minor: amountMinor,
    reason_code: current?.reason_code ?? notice.reasonCode,
    provider_reference: current?.provider_reference ?? notice.providerReference,
    ...(notice.deadline ? { deadline: notice.deadline } : current?.deadline !== undefined ? { deadline: current.deadline } : {}),
    opened_at: current?.opened_at ?? notice.at,
    updated_at: notice.at,
    closed_at: status === 'open' ? null : notice.at,
  };
  return { next, movements, events };
}

/** Whether the dispute keeps the disputed amount away from the merchant (a refund would pay the shopper twice). */
export const disputeHoldsFunds = (d: Dispute | null | undefined) => Boolean(d) && d!.status !== 'won';
