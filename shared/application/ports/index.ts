/** The ports the capabilities share: storage, events, clock and ids, and the pay-in use cases' dependencies. */
export * from './ports';
export * from './payment-ports';
export * from './refund-ports';
export * from './payout-ports';
export * from './deposit-ports';
export * from './payment-deps';
export * from './idempotency-ports';
export * from './mandate-ports';
export * from './dispute-ports';
