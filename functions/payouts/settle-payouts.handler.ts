/** The sandbox payout settlement worker: one step (start, settle, refund) per message, partial batch failures. */
import { runSettlementStep } from '../../shared/application/payouts';
import { settlementMessage } from '../../shared/application/payout-ports';
import { payoutDeps } from '../../shared/wiring';
import { sqsHandler } from '../../shared/workers/sqs-handler';

export const handler = sqsHandler({
  message: settlementMessage,
  handle: async (m) => {
    await runSettlementStep(payoutDeps(), m.payout_id, m.step);
  },
  metrics: { received: 'PayoutSettlementSteps' },
});
