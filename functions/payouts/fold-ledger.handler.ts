/**
 * The table's stream: pending credits folded into their balances, one transaction per balance for up to 99
 * credits. A throw leaves the batch to the event source mapping, which retries it (folding is idempotent); the
 * sweep job folds whatever no stream batch ever did (and its LedgerCreditsSwept pages). No count of its own:
 * nothing read one, and a custom metric is $0.30 a month.
 */
import type { DynamoDBStreamEvent } from 'aws-lambda';
import { pendingCreditsOf } from '../../shared/adapters/dynamodb/ledger-stream';
import { foldCredits } from '../../shared/application/balance';
import { logger } from '../../shared/observability';
import { ledgerFoldDeps } from '../../shared/wiring';
import { instrumented } from '../../shared/workers/instrument';

export const handler = instrumented(async (event: DynamoDBStreamEvent) => {
  const { credits, malformed } = pendingCreditsOf(event);
  if (malformed > 0) logger.error('Pending credit records that do not parse (left to the sweep)', { malformed });
  const { folded } = await foldCredits(ledgerFoldDeps(), credits);
  return { folded };
});
