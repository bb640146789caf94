/** Helpers for pay-in tests: create sessions and payments over HTTP, read balances, ledger and events. */
import { QueryCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient } from '../../shared/adapters/aws-clients';
import { config } from '../../shared/config';
import { FOLD_SHARDS, LEDGER_SHARDS, ledgerEntryEntity, pendingCreditEntity } from '../../shared/adapters/dynamodb/entities/balance.entity';
import { eventListKinds } from '../../shared/adapters/dynamodb/entities/event.entity';
import { INDEX } from '../../shared/adapters/dynamodb/keys';
import { fetchItems } from '../../shared/adapters/dynamodb/listing';
import { customer, SESSION_BODY } from './sample-data';
import type { TestMerchant, TestStack } from './test-stack';
import { contractFetch } from './contract';

export { CPF, customer } from './sample-data';
export const future = { expiry_month: '12', expiry_year: String(new Date().getUTCFullYear() + 3) };
export const card = (number: string, cvv = '123') => ({ number, holder_name: 'ANA SILVA', cvv, ...future });

export function payments(stack: TestStack, m: TestMerchant) {
  const json = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
    stack.request(path, {
      method,
      apiKey: path.startsWith('/api/v1/checkout/process') ? undefined : m.apiKey,
      headers: { 'content-type': 'application/json', ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  return {
    json,
    createSession: (over: Record<string, unknown> = {}, headers: Record<string, string> = {}) =>
      json(
        'POST',
        '/api/v1/checkout',
        {
          ...SESSION_BODY,
          ...over,
        },
        headers,
      ),
    getSession: (id: string) => json('GET', `/api/v1/checkout/${id}`),
    cancelSession: (id: string) => json('POST', `/api/v1/checkout/${id}/cancel`),
    process: (sessionId: string, method: string, extra: Record<string, unknown> = {}) =>
      json('POST', '/api/v1/checkout/process', { session_id: sessionId, payment_method: method, customer, ...extra }),
    direct: (over: Record<string, unknown> = {}) =>
      json('POST', '/cashier/cashier/payment', { payment_method: 'pix', amount: 25, currency: 'BRL', country: 'BRA', customer, ...over }),
    status: (paymentId: string, merchantId = m.merchantId) => json('GET', `/cashier/cashier/status/${merchantId}/${paymentId}`),
    simulate: (paymentId: string, outcome: 'success' | 'failed') =>
      json('POST', `/api/v1/sandbox/payments/${paymentId}/simulate`, { outcome }),
    /** Submits a sandbox page form (3DS, wallet, pay) like a browser, without following the redirect. */
    page: async (kind: string, paymentId: string, outcome: 'success' | 'failed') =>
      contractFetch(`${stack.baseUrl}/sandbox/${kind}/${paymentId}`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: `outcome=${outcome}`,
        redirect: 'manual',
      }),
  };
}

async function queryAll(params: Omit<ConstructorParameters<typeof QueryCommand>[0], 'TableName'>) {
  const r = await documentClient().send(new QueryCommand({ ...params, TableName: config.tableName }));
  return r.Items ?? [];
}

/**
 * The merchant's available balance as stored: the balance item plus the credits still pending their fold
 * (shared/adapters/dynamodb/entities/balance.entity.ts), which is what GET /api/v1/balance answers.
 */
export async function balanceMinor(m: TestMerchant, currency = 'BRL'): Promise<number> {
  // A fold between the reads would move a credit from one to the other: read until the pending credits are the
  // same before and after the balance item (folds only remove them, payments only add them).
  const ids = (items: Record<string, unknown>[]) =>
    items
      .map((c) => String(c.entry_id))
      .sort()
      .join(',');
  for (;;) {
    const before = await pendingCredits(m, currency);
    const items = await queryAll({
      KeyConditionExpression: 'PK = :pk AND SK = :sk',
      ExpressionAttributeValues: { ':pk': `MERCHANT#${m.merchantId}`, ':sk': `BALANCE#test#${currency}` },
      ConsistentRead: true,
    });
    const after = await pendingCredits(m, currency);
    if (ids(before) === ids(after)) return Number(items[0]?.available_minor ?? 0) + after.reduce((s, c) => s + Number(c.amount_minor), 0);
  }
}

/** Every item under one sort-key prefix in each of these partitions (a sharded entity), consistently read. */
async function underPrefix(partitions: readonly string[], prefix: string) {
  const pages = await Promise.all(
    partitions.map((pk) =>
      queryAll({
        KeyConditionExpression: 'PK = :pk AND begins_with(SK, :sk)',
        ExpressionAttributeValues: { ':pk': pk, ':sk': prefix },
        ConsistentRead: true,
      }),
    ),
  );
  return pages.flat();
}

const shardsOf = (n: number) => Array.from({ length: n }, (_, s) => s);

/** The merchant's credits not yet folded into the balance item, across the fold shards. */
export const pendingCredits = (m: TestMerchant, currency = 'BRL') =>
  underPrefix(
    shardsOf(FOLD_SHARDS).map((s) => pendingCreditEntity.partition(s)),
    pendingCreditEntity.prefix(m.merchantId, 'test', currency),
  );

/** The merchant's ledger entries in one currency, across the ledger shards, oldest first. */
export async function ledger(m: Pick<TestMerchant, 'merchantId'>, currency = 'BRL', mode: 'test' | 'live' = 'test') {
  const entries = await underPrefix(
    shardsOf(LEDGER_SHARDS).map((s) => ledgerEntryEntity.partition(m.merchantId, s)),
    ledgerEntryEntity.prefix(mode, currency),
  );
  return entries.sort((a, b) => (String(a.SK) < String(b.SK) ? -1 : 1));
}

/** The merchant's event items, oldest first. */
export async function events(m: TestMerchant) {
  const pages = await Promise.all(
    eventListKinds.map((kind) =>
      queryAll({
        IndexName: INDEX.listing,
        KeyConditionExpression: 'GSI1PK = :pk',
        ExpressionAttributeValues: { ':pk': `MERCHANT#${m.merchantId}#test#${kind}` },
      }),
    ),
  );
  // The listing index holds keys only: the items come from the table.
  const items = await fetchItems(documentClient(), config.tableName, pages.flat());
  return items.sort((a, b) => (String(a.GSI1SK) < String(b.GSI1SK) ? -1 : 1));
}

/** The merchant's stored sessions or payments (a test may Scan: nothing lists them). */
export async function listed(m: TestMerchant, entity: 'SESSION' | 'PAYMENT') {
  const out: Record<string, unknown>[] = [];
  let ExclusiveStartKey: Record<string, unknown> | undefined;
  do {
    const r = await documentClient().send(
      new ScanCommand({
        TableName: config.tableName,
        FilterExpression: 'merchant_id = :m AND entity = :e',
        ExpressionAttributeValues: { ':m': m.merchantId, ':e': entity === 'SESSION' ? 'checkout_session' : 'payment' },
        ConsistentRead: true,
        ExclusiveStartKey,
      }),
    );
    out.push(...(r.Items ?? []));
    ExclusiveStartKey = r.LastEvaluatedKey;
  } while (ExclusiveStartKey);
  return out;
}

/**
 * The usual pay-in suite: one isolated stack and one merchant for the file.
 * Call at the top level of a test file; read the fields inside tests.
 */
export function paymentsSuite() {
  const suite = {} as { stack: TestStack; m: TestMerchant; api: ReturnType<typeof payments> };
  beforeAll(async () => {
    const { startTestStack } = await import('./test-stack');
    suite.stack = await startTestStack();
    suite.m = await suite.stack.createMerchant();
    suite.api = payments(suite.stack, suite.m);
  });
  afterAll(() => suite.stack.stop());
  return suite;
}
