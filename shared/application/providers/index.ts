/** The connector ports (DESIGN.md section 8), by kind: what the application asks of a provider. */
export * from './card';
export * from './deposits';
export * from './errors';
export * from './local';
export * from './notification-log';
export * from './payouts';
export * from './pix';
export * from './refunds';
export * from './registry';
export * from './voucher';
export * from './mandates';
export * from './disputes';
