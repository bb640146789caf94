/** Payout dependencies: DynamoDB store, the sandbox rail, ids, clock and the event publisher. */
import { documentClient, sqsClient } from '../adapters/aws-clients';
import { randomIds, systemClock } from '../adapters/crypto';
import { ledgerRepository } from '../adapters/dynamodb/ledger.repository';
import { payoutRepository } from '../adapters/dynamodb/payout.repository';
import type { BalanceTransactionDeps } from '../application/balance-transactions';
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

/** The balance transactions list: balances (anchors) and the ledger reader. */
export function balanceDeps(): BalanceTransactionDeps {
  return { store: payoutDeps().store, ledger: ledgerRepository(documentClient(), tableName) };
}
