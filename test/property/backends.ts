/**
 * The stores behind a property run: the in-memory ports, or the real DynamoDB adapters on a fresh table of the
 * DynamoDB Local that jest's globalSetup started (test/support/global-setup.ts, engines.ts), the way
 * test/support/test-stack.ts gets its table. Everything else (clock, ids, publisher, queue, rails,
 * merchants) stays in memory in both, so a run is deterministic apart from the stores.
 */
import { randomBytes } from 'node:crypto';
import { DeleteTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { ensureTable } from '../../bin/local/services';
import { eventRepository } from '../../shared/adapters/dynamodb/event.repository';
import { LEDGER_SHARDS, ledgerEntryEntity } from '../../shared/adapters/dynamodb/entities/balance.entity';
import { paymentRepository } from '../../shared/adapters/dynamodb/payment.repository';
import { payoutRepository } from '../../shared/adapters/dynamodb/payout.repository';
import { refundRepository } from '../../shared/adapters/dynamodb/refund.repository';
import type { EventStore, StoredEvent } from '../../shared/application/webhooks';
import { engines } from '../support/engines';
import { memoryWorld, type FakeClock, type LedgerEntry } from '../support/in-memory';
import type { Backend } from './harness';

/** Every event of a merchant through the EventStore port's listing, page by page. */
async function allEvents(events: EventStore, merchantId: string): Promise<StoredEvent[]> {
  const out: StoredEvent[] = [];
  let cursor: string | undefined;
  do {
    const page = await events.list(merchantId, 'test', { limit: 100, cursor });
    out.push(...page.items);
    cursor = page.nextCursor ?? undefined;
  } while (cursor);
  return out;
}

export function memoryBackend(clock?: FakeClock): Backend {
  const world = memoryWorld({ clock });
  return {
    world,
    ledger: async (merchantId, currency) => world.table.ledgerEntries({ merchant_id: merchantId, mode: 'test', currency }),
    events: (merchantId) => allEvents(world.stores.events, merchantId),
  };
}

/** A DynamoDB Local connection for one test file, with the production document-client options. */
export function dynamoConnection() {
  const client = new DynamoDBClient({
    endpoint: engines().dynamodb,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  const doc = DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true, convertEmptyValues: false } });
  return {
    doc,
    /** A new empty table for one run. */
    async table(): Promise<{ name: string; drop(): Promise<void> }> {
      const name = `prop-${randomBytes(5).toString('hex')}`;
      await ensureTable(engines().dynamodb, name);
      return { name, drop: async () => void (await client.send(new DeleteTableCommand({ TableName: name }))) };
    },
    close: () => client.destroy(),
  };
}

export function dynamoBackend(doc: DynamoDBDocumentClient, tableName: string, clock?: FakeClock): Backend {
  const table = () => tableName;
  const events = eventRepository(doc, table);
  const world = memoryWorld({
    clock,
    stores: {
      payments: paymentRepository(doc, table),
      payouts: payoutRepository(doc, table),
      refunds: refundRepository(doc, table),
      events,
    },
  });
  return {
    world,
    async ledger(merchantId, currency) {
      const out: LedgerEntry[] = [];
      for (let shard = 0; shard < LEDGER_SHARDS; shard++) {
        let ExclusiveStartKey: Record<string, unknown> | undefined;
        do {
          const r = await doc.send(
            new QueryCommand({
              TableName: tableName,
              KeyConditionExpression: 'PK = :pk AND begins_with(SK, :sk)',
              ExpressionAttributeValues: {
                ':pk': ledgerEntryEntity.partition(merchantId, shard),
                ':sk': ledgerEntryEntity.prefix('test', currency),
              },
              ConsistentRead: true,
              ExclusiveStartKey,
            }),
          );
          out.push(...((r.Items ?? []) as LedgerEntry[]));
          ExclusiveStartKey = r.LastEvaluatedKey;
        } while (ExclusiveStartKey);
      }
      return out;
    },
    events: (merchantId) => allEvents(events, merchantId),
  };
}
