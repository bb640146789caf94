/** The sandbox rails: each payout step and each refund settlement is a delayed message on the settlement (payouts) queue. */
import { SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { PayoutRail, PayoutRails, SettlementMessage, RefundRail, RefundRails } from '../../application/ports';

const send = (sqs: SQSClient, queueUrl: string, message: SettlementMessage, delaySeconds: number) =>
  sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: JSON.stringify(message), DelaySeconds: delaySeconds }));

export function sandboxPayoutRails(
  sqs: SQSClient,
  queueUrl: () => string,
  delaySeconds: () => number,
  live: PayoutRail | null = null,
): PayoutRails {
  const sandbox: PayoutRail = {
    async schedule(payoutId, step) {
      await send(sqs, queueUrl(), { payout_id: payoutId, step }, delaySeconds());
    },
  };
  return { forMode: (livemode) => (livemode ? live : sandbox) };
}

export function sandboxRefundRails(
  sqs: SQSClient,
  queueUrl: () => string,
  delaySeconds: () => number,
  live: RefundRail | null = null,
): RefundRails {
  const sandbox: RefundRail = {
    async schedule(refundId) {
      await send(sqs, queueUrl(), { refund_id: refundId, step: 'refund_settle' }, delaySeconds());
    },
  };
  return { forMode: (livemode) => (livemode ? live : sandbox) };
}

/** Live payouts: the resume job's step goes to the settlement worker at once, which reads the order back from the provider. */
export const livePayoutRail = (sqs: SQSClient, queueUrl: () => string): PayoutRail => ({
  async schedule(payoutId, step) {
    await send(sqs, queueUrl(), { payout_id: payoutId, step }, 0);
  },
});

/** Live refunds: the settlement worker takes each at once and sends it to the provider; the resume job asks again while pending. */
export const liveRefundRail = (sqs: SQSClient, queueUrl: () => string): RefundRail => ({
  async schedule(refundId) {
    await send(sqs, queueUrl(), { refund_id: refundId, step: 'refund_settle' }, 0);
  },
});

/** Sandbox mandates: the payer's decision is a delayed message on the settlement queue. */
export const sandboxMandateDecisions =
  (sqs: SQSClient, queueUrl: () => string, delaySeconds: () => number) =>
  async (mandateId: string): Promise<void> => {
    await send(sqs, queueUrl(), { mandate_id: mandateId, step: 'mandate_decide' }, delaySeconds());
  };

/** Sandbox disputes: the issuer's decision on a submitted one is a delayed message on the settlement queue. */
export const sandboxDisputeDecisions =
  (sqs: SQSClient, queueUrl: () => string, delaySeconds: () => number) =>
  async (disputeId: string): Promise<void> => {
    await send(sqs, queueUrl(), { dispute_id: disputeId, step: 'dispute_decide' }, delaySeconds());
  };
