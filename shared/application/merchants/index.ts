/** Merchants (onboarding, keys, settings) and the payment-method discovery they see. */
export * from './merchants';
export * from './discovery';
