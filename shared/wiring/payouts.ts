/** Payout dependencies: DynamoDB store, the sandbox rail, ids, clock and the event publisher. */
import { documentClient, sqsClient } from '../adapters/aws-clients';
import { randomIds, systemClock } from '../adapters/crypto';
import { ledgerFolder } from '../adapters/dynamodb/ledger-fold';
import { ledgerRepository } from '../adapters/dynamodb/ledger.repository';
import { paymentRepository } from '../adapters/dynamodb/payment.repository';
import { payoutRepository } from '../adapters/dynamodb/payout.repository';
import { refundRepository } from '../adapters/dynamodb/refund.repository';
import type { BalanceTransactionDeps, ReconciliationDeps, LedgerFoldDeps } from '../application/balance';
import { livePayoutRail, sandboxPayoutRails } from '../adapters/sqs/payout-rail';
import { liveConnectors } from '../adapters/providers/live-providers';
import { routingObserver } from './attempts';
import type { PayoutDeps } from '../application/payouts';
import { config } from '../config';
import { checkNotificationUrl, publicBaseUrl } from './payments';
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
      livePayoutRail(sqsClient(), () => config.queueUrl('payouts')),
    ),
    ids: randomIds,
    clock: systemClock,
    checkNotificationUrl,
    publisher: eventPublisher,
    // Live payouts: only the providers of the stage's configuration (test mode never reaches a provider).
    connectors: { forMode: async (livemode) => (livemode ? liveConnectors() : null) },
    baseUrl: publicBaseUrl,
    attempts: routingObserver,
  };
  return deps;
}

/** The balance transactions list: balances (anchors) and the ledger reader. */
export function balanceDeps(): BalanceTransactionDeps {
  return { store: payoutDeps().store, ledger: ledgerRepository(documentClient(), tableName) };
}

/** The ops reconciliation listing: the balance transactions and the payments, payouts and refunds they point at. */
export function reconciliationDeps(): ReconciliationDeps {
  const db = documentClient();
  const payments = paymentRepository(db, tableName);
  const refunds = refundRepository(db, tableName);
  const payouts = payoutDeps().store;
  return {
    ...balanceDeps(),
    sources: {
      payment: (id) => payments.getPayment(id),
      payout: (id) => payouts.get(id),
      refund: (id) => refunds.get(id),
    },
  };
}

/** The fold of pending credits into balances (stream worker, sweep job). */
export function ledgerFoldDeps(): LedgerFoldDeps {
  return { folder: ledgerFolder(documentClient(), tableName) };
}
