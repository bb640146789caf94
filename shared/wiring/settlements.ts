/** The settlement resume job's dependencies: the work-index backlog and the payout and refund rails. */
import { documentClient } from '../adapters/aws-clients';
import { settlementBacklog } from '../adapters/dynamodb/settlement-backlog';
import type { SettlementDeps } from '../application/payouts';
import { config } from '../config';
import { paymentDeps } from './payments';
import { payoutDeps } from './payouts';
import { tableName } from './repositories';

export function settlementDeps(): SettlementDeps {
  return { backlog: settlementBacklog(documentClient(), tableName), payouts: payoutDeps(), payments: paymentDeps() };
}

/** How long money may be in flight before its step is sent again: the longer sandbox delay plus a minute. */
export const settlementGraceSeconds = () => Math.max(config.payoutSettlementDelaySeconds, config.refundSettlementDelaySeconds) + 60;
