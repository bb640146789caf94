/** What the dispute use cases depend on: the pay-in dependencies (a dispute's money is its payment's) and the dispute store. */
import type { DisputeStore, PaymentDeps } from '../ports';

export interface DisputeDeps extends PaymentDeps {
  readonly disputes: DisputeStore;
  /** Sandbox: the issuer's decision on a submitted test dispute, a few seconds later (the settlement queue). */
  readonly scheduleSandboxDecision: (disputeId: string) => Promise<void>;
}
