/**
 * The sandbox settlement worker: one payout step, one refund, one mandate decision or one dispute decision per message,
 * partial batch failures.
 */
import { runSettlementStep } from '../../shared/application/payouts';
import { settlementMessage } from '../../shared/application/ports';
import { settleRefund } from '../../shared/application/refunds';
import { decideSandboxMandate } from '../../shared/application/mandates';
import { decideSandboxDispute } from '../../shared/application/disputes';
import { disputeDeps, mandateDeps, paymentDeps, payoutDeps } from '../../shared/wiring';
import { sqsHandler } from '../../shared/workers/sqs-handler';

export const handler = sqsHandler({
  message: settlementMessage,
  handle: async (m) => {
    if ('refund_id' in m) await settleRefund(paymentDeps(), m.refund_id);
    else if ('mandate_id' in m) await decideSandboxMandate(mandateDeps(), m.mandate_id);
    else if ('dispute_id' in m) await decideSandboxDispute(disputeDeps(), m.dispute_id);
    else await runSettlementStep(payoutDeps(), m.payout_id, m.step);
  },
  // No metric of its own: nothing read one (the queue's NumberOfMessagesReceived and the function's Invocations count it).
  metrics: {},
});
