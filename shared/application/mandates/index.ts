/** Mandates (DESIGN.md 9.3): Pix Automático and cards on file, their charges, callbacks and reconciliation. */
export * from './mandate-deps';
export * from './mandates';
export * from './sandbox-mandates';
export * from './mandate-charges';
export * from './mandate-callbacks';
export { reconcileDueMandates, reconcileMandate } from './mandates-live';
export {
  applyCardMandateNotification,
  approvableCardMandate,
  approveCardMandate,
  cardMandatePaths,
  completeCardMandateReturn,
} from './card-mandates';
export { checkCharge, checkMandateRequest } from './mandate-rules';
