/** Helpers for refund tests: the refund endpoints over HTTP, paid payments to refund, settlement waits, stored items. */
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient } from '../../shared/adapters/aws-clients';
import { config } from '../../shared/config';
import { card, ledger, payments } from './payments';
import type { TestMerchant, TestStack } from './test-stack';

export { pixBeneficiary } from './sample-data';

export function refunds(stack: TestStack, m: TestMerchant) {
  const api = payments(stack, m);
  const refundOf = (paymentId: string, body: Record<string, unknown> = {}, headers: Record<string, string> = {}) =>
    api.json('POST', `/api/v1/payments/${paymentId}/refunds`, body, headers);
  const get = (refundId: string) => api.json('GET', `/api/v1/refunds/${refundId}`);
  const list = (paymentId: string) => api.json('GET', `/api/v1/payments/${paymentId}/refunds`);

  /** A direct payment that succeeded: card at once, PIX through the sandbox simulate endpoint. */
  async function paid(method: 'pix' | 'card' = 'pix', over: Record<string, unknown> = {}): Promise<string> {
    const r = await api.direct(method === 'card' ? { payment_method: 'card', card: card('4242424242424242'), ...over } : over);
    expect(r.status).toBe(200);
    if (method === 'pix') expect((await api.simulate(r.body.payment_id, 'success')).status).toBe(200);
    return r.body.payment_id as string;
  }

  /** A checkout payment that succeeded, with its session id. */
  async function paidCheckout(method: string, session: Record<string, unknown> = {}, extra: Record<string, unknown> = {}) {
    const s = await api.createSession(session);
    expect(s.status).toBe(200);
    const p = await api.process(s.body.session_id, method, method === 'card' ? { card: card('4242424242424242'), ...extra } : extra);
    expect(p.status).toBe(200);
    if (method !== 'card') expect((await api.simulate(p.body.payment_id, 'success')).status).toBe(200);
    return { sessionId: s.body.session_id as string, paymentId: p.body.payment_id as string };
  }

  /** Polls GET /api/v1/refunds/{id} until the worker has settled it. */
  async function settled(refundId: string, status: 'succeeded' | 'failed' = 'succeeded') {
    const end = Date.now() + 15_000;
    for (;;) {
      const r = await get(refundId);
      if (r.body?.status === status) return r.body;
      if (Date.now() > end) throw new Error(`refund ${refundId} is ${r.body?.status}, not ${status}`);
      await new Promise((res) => setTimeout(res, 50));
    }
  }

  /** Polls the direct status record until the payment has the status. */
  async function paymentBecomes(paymentId: string, status: string) {
    const end = Date.now() + 15_000;
    for (;;) {
      const r = await api.status(paymentId);
      if (r.body?.status === status) return r.body;
      if (Date.now() > end) throw new Error(`payment ${paymentId} is ${r.body?.status}, not ${status}`);
      await new Promise((res) => setTimeout(res, 50));
    }
  }

  return { api, refundOf, get, list, paid, paidCheckout, settled, paymentBecomes };
}

/** The sum of the merchant's ledger entries (must equal the stored balance), and the entries' reasons. */
export const ledgerSum = async (m: TestMerchant, currency = 'BRL') =>
  (await ledger(m, currency)).reduce((s, e) => s + Number(e.amount_minor), 0);
export const ledgerReasons = async (m: TestMerchant, currency = 'BRL') => (await ledger(m, currency)).map((e) => String(e.reason)).sort();

/** Writes paid_at back in the stored payment item, as if it had been paid `days` ago. */
export async function paidDaysAgo(paymentId: string, days: number) {
  await documentClient().send(
    new UpdateCommand({
      TableName: config.tableName,
      Key: { PK: `PAYMENT#${paymentId}`, SK: 'PAYMENT' },
      UpdateExpression: 'SET paid_at = :at',
      ExpressionAttributeValues: { ':at': new Date(Date.now() - days * 86_400_000).toISOString() },
    }),
  );
}
