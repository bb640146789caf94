/** Mandate dependencies: the pay-in dependencies (charges are payments), the mandate store and the sandbox's decisions. */
import { documentClient, sqsClient } from '../adapters/aws-clients';
import { mandateRepository } from '../adapters/dynamodb/mandate.repository';
import { sandboxMandateDecisions } from '../adapters/sqs/payout-rail';
import type { MandateDeps } from '../application/mandates';
import { config } from '../config';
import { paymentDeps } from './payments';
import { tableName } from './repositories';

let deps: MandateDeps | undefined;

export function mandateDeps(): MandateDeps {
  deps ??= {
    ...paymentDeps(),
    mandates: mandateRepository(documentClient(), tableName),
    scheduleDecision: sandboxMandateDecisions(
      sqsClient(),
      () => config.queueUrl('payouts'),
      () => config.payoutSettlementDelaySeconds,
    ),
    lostIntentSeconds: config.providerLostIntentSeconds,
  };
  return deps;
}
