/** Dispute dependencies: the pay-in dependencies (a dispute's money is its payment's), the dispute store, the sandbox's issuer. */
import { documentClient, sqsClient } from '../adapters/aws-clients';
import { disputeRepository } from '../adapters/dynamodb/dispute.repository';
import { sandboxDisputeDecisions } from '../adapters/sqs/payout-rail';
import type { DisputeDeps } from '../application/disputes';
import { config } from '../config';
import { paymentDeps } from './payments';
import { tableName } from './repositories';

let deps: DisputeDeps | undefined;

export function disputeDeps(): DisputeDeps {
  deps ??= {
    ...paymentDeps(),
    disputes: disputeRepository(documentClient(), tableName),
    scheduleSandboxDecision: sandboxDisputeDecisions(
      sqsClient(),
      () => config.queueUrl('payouts'),
      () => config.payoutSettlementDelaySeconds,
    ),
  };
  return deps;
}
