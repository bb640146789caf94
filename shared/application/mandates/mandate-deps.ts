/** What the mandate use cases depend on: the pay-in dependencies (charges are payments) and the mandate store. */
import type { MandateStore, PaymentDeps } from '../ports';

export interface MandateDeps extends PaymentDeps {
  readonly mandates: MandateStore;
  /** Sandbox: the payer's decision, a few seconds after the mandate is made (the settlement queue). */
  readonly scheduleDecision: (mandateId: string) => Promise<void>;
  /** How long an unanswered provider call may still be in flight before the job acts on it (seconds). */
  readonly lostIntentSeconds: number;
}
