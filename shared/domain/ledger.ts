/**
 * The ledger as merchants read it (balance transactions): each entry's type from the reason its movement
 * was written with. One definition; a reason without a type is a bug the unit test catches.
 */
export const LEDGER_TYPES = [
  'payment',
  'refund',
  'refund_reversal',
  'payout',
  'payout_reversal',
  'top_up',
  'chargeback',
  'chargeback_reversal',
  'pix_fraud_return',
] as const;
export type LedgerType = (typeof LEDGER_TYPES)[number];

/** Every reason a balance movement is written with, and the type it is shown as. */
export const LEDGER_REASONS: Readonly<Record<string, LedgerType>> = {
  payment: 'payment',
  refund: 'refund',
  refund_failed: 'refund_reversal',
  payout: 'payout',
  payout_failed: 'payout_reversal',
  payout_cancelled: 'payout_reversal',
  payout_refunded: 'payout_reversal',
  test_top_up: 'top_up',
  initial_test_balance: 'top_up',
  chargeback: 'chargeback',
  chargeback_reversal: 'chargeback_reversal',
  pix_fraud_return: 'pix_fraud_return',
};

export function ledgerType(reason: string): LedgerType {
  const type = LEDGER_REASONS[reason];
  if (!type) throw new Error(`ledger reason without a type: ${reason}`);
  return type;
}

/** The reasons shown as one type (the type filter of the balance transactions list). */
export const reasonsOf = (type: LedgerType) => Object.keys(LEDGER_REASONS).filter((r) => LEDGER_REASONS[r] === type);

const DESCRIPTIONS: Readonly<Record<string, string>> = {
  payment: 'Payment',
  refund: 'Refund',
  refund_failed: 'Refund failed: amount returned',
  payout: 'Payout',
  payout_failed: 'Payout failed: amount returned',
  payout_cancelled: 'Payout cancelled: amount returned',
  payout_refunded: 'Payout returned by the beneficiary bank',
  test_top_up: 'Test balance top-up',
  initial_test_balance: 'Initial test balance',
  chargeback: 'Chargeback of payment',
  chargeback_reversal: 'Chargeback reversed: amount returned for payment',
  pix_fraud_return: 'PIX returned to the payer for fraud (MED) of payment',
};

export const ledgerDescription = (reason: string, sourceId: string) =>
  reason === 'test_top_up' || reason === 'initial_test_balance' ? DESCRIPTIONS[reason]! : `${DESCRIPTIONS[reason] ?? reason} ${sourceId}`;

/** One ledger entry: a signed movement of one currency's available balance and the object that caused it. */
export interface LedgerEntry {
  readonly entry_id: string;
  readonly currency: string;
  readonly amount_minor: number;
  readonly reason: string;
  readonly object_id: string;
  readonly created_at: string;
  /** Where the entry sits in its currency's ledger (created_at#entry_id): the pagination position. */
  readonly position: string;
}
