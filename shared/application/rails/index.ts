/**
 * Live rails behind the connector ports: the held-strategy table (held.ts) and its strategies, reconciliation,
 * provider callbacks and notifications, disputes, deposits.
 */
export * from './held';
export * from './held-types';
export * from './held-card';
export * from './card-attempts';
export { lateRefundId } from './attempt-watches';
export * from './held-pix';
export * from './held-voucher';
export * from './held-local';
export * from './held-redirect';
export * from './held-ticket';
export * from './held-qr';
export * from './local-notifications';
export * from './reconcile-held';
export * from './pix-reconcile';
export * from './card-notifications';
export * from './disputes';
export * from './card-disputes';
export * from './card-chargebacks';
export * from './pix-disputes';
export * from './spei-deposits';
