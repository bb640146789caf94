/** Live SPEI pay-ins' storage: CLABE claims and the record of each deposit the provider reported. */
export type DepositOutcome = 'settled' | 'mismatch' | 'late' | 'returned';

export interface DepositRecord {
  readonly provider: string;
  readonly deposit_id: string;
  readonly clabe: string;
  readonly amount_minor: number;
  readonly tracking_key: string;
  readonly payment_id: string | null;
  readonly outcome: DepositOutcome;
  readonly paid_at: string;
  readonly received_at: string;
}

export interface SpeiDepositStore {
  /** True when the CLABE was free and is now this payment's; false when some payment holds it. */
  claimClabe(clabe: string, paymentId: string, now: string): Promise<boolean>;
  paymentOfClabe(clabe: string): Promise<string | null>;
  /** Records a deposit once: the first record of this deposit id wins and is answered again to a redelivery. */
  record(d: DepositRecord): Promise<{ record: DepositRecord; duplicate: boolean }>;
}
