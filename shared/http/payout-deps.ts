/** The container's payout dependencies: DynamoDB store (events dispatched after commit), the sandbox rail, ids, clock. */
import type { PayoutDeps } from '../application/payouts';
import { dispatchAfterCommit } from '../application/dispatching-store';
import { dispatchEvents } from '../application/webhooks';
import { documentClient, sqsClient } from '../adapters/aws-clients';
import { randomIds, systemClock } from '../adapters/crypto';
import { payoutRepository } from '../adapters/dynamodb/payout.repository';
import { sandboxPayoutRails } from '../adapters/sqs/payout-rail';
import { config } from '../config';
import { paymentDeps, warnUndispatched } from './payment-deps';
import { webhookDeps } from './webhook-deps';

let deps: PayoutDeps | undefined;

export function payoutDeps(): PayoutDeps {
  deps ??= {
    store: dispatchAfterCommit(
      payoutRepository(documentClient(), () => config.tableName),
      ['create', 'transition'],
      (events) => dispatchEvents(webhookDeps(), events),
      warnUndispatched,
    ),
    rails: sandboxPayoutRails(
      sqsClient(),
      () => config.queueUrl('payouts'),
      () => config.payoutSettlementDelaySeconds,
    ),
    ids: randomIds,
    clock: systemClock,
    checkNotificationUrl: paymentDeps().checkNotificationUrl,
  };
  return deps;
}
