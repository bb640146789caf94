/** Payouts: create, read, cancel, settle (sandbox or live provider), and the settlement resume job. */
export * from './payouts';
export * from './payout-transition';
export * from './payouts-live';
export * from './payout-callbacks';
export * from './payouts-batch';
export * from './settlements';
