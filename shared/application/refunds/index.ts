/** Refunds: create, read, settle (sandbox bank or live provider). */
export * from './refunds';
export * from './refund-decision';
export * from './refunds-live';
