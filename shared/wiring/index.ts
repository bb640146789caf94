/**
 * The composition root: the one place where adapters are connected to use cases. Every HTTP handler,
 * queue worker, scheduled job, the ops CLI and the local stack's seed take their dependencies from here,
 * created once per container and reused across invocations.
 */
export { authenticator, idempotencyStore, rateLimiter } from './access';
export { adminService } from './admin';
export { checkNotificationUrl, paymentDeps, qrCodes } from './payments';
export { balanceDeps, ledgerFoldDeps, payoutDeps, reconciliationDeps } from './payouts';
export { mandateDeps } from './mandates';
export { disputeDeps } from './disputes';
export { settlementDeps, settlementGraceSeconds } from './settlements';
export { ids, repositories, tableName } from './repositories';
export { healthProbes } from './system';
export { eventPublisher, USER_AGENT, webhookDeps } from './webhooks';
