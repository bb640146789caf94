/**
 * The table's stream: pending credits folded into their balances, one transaction per balance for up to 99
 * credits. A throw leaves the batch to the event source mapping, which retries it (folding is idempotent); the
 * sweep job folds whatever no stream batch ever did.
 */
import { MetricUnit } from '@aws-lambda-powertools/metrics';
import type { DynamoDBStreamEvent } from 'aws-lambda';
import { pendingCreditsOf } from '../../shared/adapters/dynamodb/ledger-stream';
import { foldCredits } from '../../shared/application/balance';
import { logger, metrics } from '../../shared/observability';
import { ledgerFoldDeps } from '../../shared/wiring';
import { instrumented } from '../../shared/workers/instrument';

export const handler = instrumented(async (event: DynamoDBStreamEvent) => {
  const { credits, malformed } = pendingCreditsOf(event);
  if (malformed > 0) logger.error('Pending credit records that do not parse (left to the sweep)', { malformed });
  const { folded } = await foldCredits(ledgerFoldDeps(), credits);
  metrics.addMetric('LedgerCreditsFolded', MetricUnit.Count, folded);
  return { folded };
});
