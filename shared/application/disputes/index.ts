/** Disputes (DESIGN.md 9.4): the merchant's case of a chargeback or a PIX MED, its evidence, submission and acceptance. */
export type { DisputeDeps } from './dispute-deps';
export { getDispute, listDisputes, retrieveDispute, stageEvidence } from './disputes';
export { acceptDispute, missingDocuments, submitDispute } from './dispute-actions';
export { SANDBOX_DEFENSE_REASONS, defenseChannelOf } from './dispute-defense';
export { decideSandboxDispute, signalSandboxDispute, simulateDispute, SANDBOX_LOSING_EVIDENCE } from './sandbox-disputes';
export { warnDisputesDueSoon } from './dispute-warnings';
