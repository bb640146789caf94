/**
 * Payout method codes of SPEC.md 2.6. The full payout catalog (bounds, required
 * beneficiary fields) arrives with the payouts issue; merchants are enabled for
 * these codes from the start.
 */
export const PAYOUT_METHOD_CODES = ['svc-mt-5', 'svc-mt-6', 'svc-mt-30', 'svc-mt-31', 'svc-mt-32'] as const;
