/**
 * What `providers stats` reads: the live payments and payouts created since a time (a Scan with a filter: an
 * operator's command over a window, never a request path; it reads the whole table, so on a large stage keep the
 * window short or read the attempt log lines instead), and the breakers' last reported states (one Query).
 */
import { PutCommand, QueryCommand, ScanCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { Payment } from '../../domain/payments/payment';
import type { Payout } from '../../domain/payouts/payout';
import { breakerStateEntity } from './entities/breaker-state.entity';
import { stripKeys } from './keys';

export interface BreakerStateView {
  readonly provider: string;
  readonly kind: string;
  readonly state: string;
  readonly at: string;
}

export function providerStatsRepository(db: DynamoDBDocumentClient, tableName: () => string) {
  return {
    async liveSince(since: string): Promise<{ payments: Payment[]; payouts: Payout[] }> {
      const payments: Payment[] = [];
      const payouts: Payout[] = [];
      let ExclusiveStartKey: Record<string, unknown> | undefined;
      do {
        const r = await db.send(
          new ScanCommand({
            TableName: tableName(),
            FilterExpression: 'entity IN (:payment, :payout) AND livemode = :live AND created_at >= :since AND attribute_exists(provider)',
            ExpressionAttributeValues: { ':payment': 'payment', ':payout': 'payout', ':live': true, ':since': since },
            ExclusiveStartKey,
          }),
        );
        for (const item of r.Items ?? []) {
          if (item.entity === 'payment') payments.push(stripKeys<Payment>(item));
          else payouts.push(stripKeys<Payout>(item));
        }
        ExclusiveStartKey = r.LastEvaluatedKey;
      } while (ExclusiveStartKey);
      return { payments, payouts };
    },

    async recordBreaker(provider: string, kind: string, state: string, at: string): Promise<void> {
      await db.send(new PutCommand({ TableName: tableName(), Item: breakerStateEntity.item(provider, kind, state, at) }));
    },

    async breakers(): Promise<BreakerStateView[]> {
      const r = await db.send(
        new QueryCommand({ TableName: tableName(), KeyConditionExpression: 'PK = :pk', ExpressionAttributeValues: { ':pk': 'BREAKERS' } }),
      );
      return (r.Items ?? []).map((i) => ({ provider: String(i.provider), kind: String(i.kind), state: String(i.state), at: String(i.at) }));
    },
  };
}
