/** The sandbox payout rail: each settlement step is a delayed message on the payouts queue. */
import { SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { PayoutRail, PayoutRails, SettlementMessage } from '../../application/payout-ports';

export function sandboxPayoutRails(
  sqs: SQSClient,
  queueUrl: () => string,
  delaySeconds: () => number,
  live: PayoutRail | null = null,
): PayoutRails {
  const sandbox: PayoutRail = {
    async schedule(payoutId, step) {
      const message: SettlementMessage = { payout_id: payoutId, step };
      await sqs.send(new SendMessageCommand({ QueueUrl: queueUrl(), MessageBody: JSON.stringify(message), DelaySeconds: delaySeconds() }));
    },
  };
  return { forMode: (livemode) => (livemode ? live : sandbox) };
}
