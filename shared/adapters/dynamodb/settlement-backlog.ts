/**
 * Money in flight, from the settlement work index: payouts still processing and refunds still pending since a
 * time; and completed live payouts whose return check is due (their own partitions of the same index).
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { SettlementBacklog } from '../../application/payouts';
import { indexKeys } from './keys';
import { dueInWorkIndex, oldestInWorkIndex } from './work-index';

export function settlementBacklog(db: DynamoDBDocumentClient, tableName: () => string): SettlementBacklog {
  return {
    async since(before, limit) {
      const pks = await dueInWorkIndex(db, tableName(), indexKeys.settlementPartition, before, limit, 'PK');
      return pks.map((pk) => {
        const [kind, id] = pk.split('#') as [string, string];
        return { kind: kind === 'REFUND' ? ('refund' as const) : ('payout' as const), id };
      });
    },
    oldestSince() {
      return oldestInWorkIndex(db, tableName(), indexKeys.settlementPartition);
    },
    async returnChecksDue(atOrBefore, limit) {
      const pks = await dueInWorkIndex(db, tableName(), indexKeys.returnWatchPartition, atOrBefore, limit, 'PK');
      return pks.filter((pk) => pk.startsWith('PAYOUT#')).map((pk) => pk.slice('PAYOUT#'.length));
    },
  };
}
