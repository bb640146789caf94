/** Helpers for pay-in tests: create sessions and payments over HTTP, read balances, ledger and events. */
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient } from '../../shared/adapters/aws-clients';
import { config } from '../../shared/config';
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

export async function balanceMinor(m: TestMerchant, currency = 'BRL'): Promise<number> {
  const items = await queryAll({
    KeyConditionExpression: 'PK = :pk AND SK = :sk',
    ExpressionAttributeValues: { ':pk': `MERCHANT#${m.merchantId}`, ':sk': `BALANCE#test#${currency}` },
    ConsistentRead: true,
  });
  return Number(items[0]?.available_minor ?? 0);
}

export async function ledger(m: TestMerchant, currency = 'BRL') {
  return queryAll({
    KeyConditionExpression: 'PK = :pk AND begins_with(SK, :sk)',
    ExpressionAttributeValues: { ':pk': `MERCHANT#${m.merchantId}`, ':sk': `LEDGER#test#${currency}#` },
    ConsistentRead: true,
  });
}

/** The merchant's event items (the outbox), oldest first. */
export async function events(m: TestMerchant) {
  return queryAll({
    IndexName: 'GSI1',
    KeyConditionExpression: 'GSI1PK = :pk',
    ExpressionAttributeValues: { ':pk': `MERCHANT#${m.merchantId}#test#EVENT` },
  });
}

export async function listed(m: TestMerchant, entity: 'SESSION' | 'PAYMENT') {
  return queryAll({
    IndexName: 'GSI1',
    KeyConditionExpression: 'GSI1PK = :pk',
    ExpressionAttributeValues: { ':pk': `MERCHANT#${m.merchantId}#test#${entity}` },
  });
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
