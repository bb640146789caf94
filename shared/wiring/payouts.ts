/** Payout dependencies: DynamoDB store, the sandbox rail, ids, clock and the event publisher. */
import { documentClient, sqsClient } from '../adapters/aws-clients';
import { randomIds, systemClock } from '../adapters/crypto';
import { payoutRepository } from '../adapters/dynamodb/payout.repository';
import { sandboxPayoutRails } from '../adapters/sqs/payout-rail';
import type { PayoutDeps } from '../application/payouts';
import { config } from '../config';
import { checkNotificationUrl } from './payments';
import { tableName } from './repositories';
import { eventPublisher } from './webhooks';

let deps: PayoutDeps | undefined;

export function payoutDeps(): PayoutDeps {
  deps ??= {
    store: payoutRepository(documentClient(), tableName),
    rails: sandboxPayoutRails(
      sqsClient(),
      () => config.queueUrl('payouts'),
      () => config.payoutSettlementDelaySeconds,
    ),
    ids: randomIds,
    clock: systemClock,
    checkNotificationUrl,
    publisher: eventPublisher,
  };
  return deps;
}
