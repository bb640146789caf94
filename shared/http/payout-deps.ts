/** The container's payout dependencies: DynamoDB store (events dispatched after commit), the sandbox rail, ids, clock. */
import type { PayoutDeps } from '../application/payouts';
import type { PayoutStore } from '../application/payout-ports';
import { dispatchEvents } from '../application/webhooks';
import { documentClient, sqsClient } from '../adapters/aws-clients';
import { randomIds, systemClock } from '../adapters/crypto';
import { payoutRepository } from '../adapters/dynamodb/payout.repository';
import { sandboxPayoutRails } from '../adapters/sqs/payout-rail';
import { config } from '../config';
import { logger } from '../observability';
import { paymentDeps } from './payment-deps';
import { webhookDeps } from './webhook-deps';

/** Hands each committed payout transaction's events to the webhook queue; the sweeper covers a failure. */
function dispatching(store: PayoutStore): PayoutStore {
  const after = async (events: Parameters<PayoutStore['create']>[0]['events']) => {
    try {
      await dispatchEvents(webhookDeps(), events);
    } catch (e) {
      logger.warn('Events committed but not enqueued; the outbox sweeper will enqueue them', { error: e as Error });
    }
  };
  return {
    ...store,
    async create(op) {
      await store.create(op);
      await after(op.events);
    },
    async transition(op) {
      await store.transition(op);
      await after(op.events);
    },
  };
}

let deps: PayoutDeps | undefined;

export function payoutDeps(): PayoutDeps {
  deps ??= {
    store: dispatching(payoutRepository(documentClient(), () => config.tableName)),
    rails: sandboxPayoutRails(sqsClient(), () => config.queueUrl('payouts'), () => config.payoutSettlementDelaySeconds),
    ids: randomIds,
    clock: systemClock,
    checkNotificationUrl: paymentDeps().checkNotificationUrl,
  };
  return deps;
}
