/** Starting a pay-in (direct or from a checkout) and what a merchant can be paid with. */
export * from './initiate-payment';
export * from './direct-payments';
export * from './served-methods';
export * from './choose-method';
