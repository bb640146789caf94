/** Expiry without anyone reading, stale reads, and concurrent completions (one success, one credit). */
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { Context, ScheduledEvent } from 'aws-lambda';
import { documentClient } from '../../shared/adapters/aws-clients';
import { config } from '../../shared/config';
import { handler as expireJob } from '../../functions/jobs/expire-payments.handler';
import type { TestMerchant, TestStack } from '../support/test-stack';
import { balanceMinor, card, events, ledger, payments, paymentsSuite } from '../support/payments';

const suite = paymentsSuite();
let stack: TestStack;
let m: TestMerchant;
let api: ReturnType<typeof payments>;
beforeAll(() => {
  ({ stack, m, api } = suite);
});

const runJobAt = (time: Date) =>
  expireJob(
    { time: time.toISOString(), 'detail-type': 'Scheduled Event' } as ScheduledEvent,
    { getRemainingTimeInMillis: () => 60_000, functionName: 'expire' } as Context,
  );

async function workIndexHas(id: string) {
  const found = [];
  for (let shard = 0; shard < 4; shard++) {
    const r = await documentClient().send(
      new QueryCommand({
        TableName: config.tableName,
        IndexName: 'GSI2',
        KeyConditionExpression: 'GSI2PK = :pk',
        ExpressionAttributeValues: { ':pk': `EXPIRY#${shard}` },
      }),
    );
    found.push(...(r.Items ?? []).filter((i) => String(i.GSI2SK).endsWith(`#${id}`)));
  }
  return found.length > 0;
}

describe('expiry', () => {
  it('the scheduled job expires a due session and its open PIX payment, with events, and clears the work index', async () => {
    const s = (await api.createSession({ expires_in_minutes: 5 })).body.session_id;
    const p = (await api.process(s, 'pix')).body.payment_id;
    expect(await workIndexHas(s)).toBe(true);
    await runJobAt(new Date(Date.now() + 60_000)); // nothing due yet
    expect((await api.getSession(s)).body.status).toBe('pending');
    const result = await runJobAt(new Date(Date.now() + 6 * 60_000));
    expect(result).toEqual(expect.objectContaining({ expired: expect.any(Number) }));
    const stored = await documentClient().send(
      new QueryCommand({
        TableName: config.tableName,
        KeyConditionExpression: 'PK = :pk',
        ExpressionAttributeValues: { ':pk': `SESSION#${s}` },
      }),
    );
    expect(stored.Items?.[0]).toMatchObject({ status: 'expired' });
    expect(stored.Items?.[0]).not.toHaveProperty('GSI2PK');
    const evs = await events(m);
    expect(evs.some((e) => e.type === 'checkout.session.expired' && e.object_id === s)).toBe(true);
    expect(evs.some((e) => e.type === 'payment.expired' && e.object_id === p)).toBe(true);
    expect((await api.status(p)).body.status).toBe('expired');
    // An expired session refuses payment with 410 and cancellation with 410.
    const late = await api.process(s, 'pix');
    expect(late.status).toBe(410);
    expect(late.body).toMatchObject({ success: false, status: 'failed' });
    expect((await api.cancelSession(s)).status).toBe(410);
    expect((await api.simulate(p, 'success')).status).toBe(409);
  });

  it('reads never show a stale pending PIX past its expiry (short PIX_EXPIRY_SECONDS)', async () => {
    process.env.PIX_EXPIRY_SECONDS = '1';
    try {
      const p = (await api.direct()).body;
      expect(Date.parse(p.expires_at) - Date.now()).toBeLessThan(1500);
      await new Promise((r) => setTimeout(r, 1300));
      const r = await api.status(p.payment_id);
      expect(r.body.status).toBe('expired');
      expect((await events(m)).some((e) => e.type === 'payment.expired' && e.object_id === p.payment_id)).toBe(true);
    } finally {
      delete process.env.PIX_EXPIRY_SECONDS;
    }
  });

  it('a PIX payment of a session never outlives the session', async () => {
    const s = (await api.createSession({ expires_in_minutes: 5 })).body.session_id;
    const p = await api.process(s, 'pix');
    const session = await api.getSession(s);
    expect(p.body.expires_at).toBe(session.body.expires_at);
  });
});

describe('concurrency', () => {
  it('ten simultaneous completions of one payment: one success, one credit, one ledger entry', async () => {
    const fresh = await stack.createMerchant();
    const a = payments(stack, fresh);
    const s = (await a.createSession()).body.session_id;
    const p = (await a.process(s, 'pix')).body.payment_id;
    const results = await Promise.all(Array.from({ length: 10 }, () => a.simulate(p, 'success')));
    expect(results.every((r) => r.status === 200 && r.body.status === 'success')).toBe(true);
    expect(await balanceMinor(fresh)).toBe(10050);
    expect(await ledger(fresh)).toHaveLength(1);
    expect((await events(fresh)).filter((e) => e.type === 'payment.success')).toHaveLength(1);
  });

  it('two payments of one session both paid: one completes the session, the other is refunded in full as a duplicate', async () => {
    const fresh = await stack.createMerchant();
    const a = payments(stack, fresh);
    const s = (await a.createSession()).body.session_id;
    const first = (await a.process(s, 'pix')).body.payment_id;
    const second = (await a.process(s, 'wallet')).body.payment_id;
    const [x, y] = await Promise.all([a.simulate(first, 'success'), a.simulate(second, 'success')]);
    expect([x.status, y.status]).toEqual([200, 200]);
    const session = await a.getSession(s);
    expect(session.body.status).toBe('success');
    const winner = session.body.payment_id;
    expect([first, second]).toContain(winner);
    const loser = winner === first ? second : first;
    const refunds = await stack.request(`/api/v1/payments/${loser}/refunds`, { apiKey: fresh.apiKey });
    expect(refunds.status).toBe(200);
    expect(refunds.body).toMatchObject({ refunded_amount: 100.5, payment_status: 'success' });
    expect(refunds.body.data).toEqual([expect.objectContaining({ reason: 'duplicate', amount: 100.5, status: 'pending' })]);
    const none = await stack.request(`/api/v1/payments/${winner}/refunds`, { apiKey: fresh.apiKey });
    expect(none.body.data).toEqual([]);
    // Two credits and one refund debit: the shopper paid once in the end.
    expect(await balanceMinor(fresh)).toBe(10050);
    expect(await ledger(fresh)).toHaveLength(3);
  });

  it('two card payments racing on one session: exactly one succeeds', async () => {
    const fresh = await stack.createMerchant();
    const a = payments(stack, fresh);
    const s = (await a.createSession()).body.session_id;
    const results = await Promise.all([
      a.process(s, 'card', { card: card('4242424242424242') }),
      a.process(s, 'card', { card: card('5555555555554444') }),
    ]);
    expect(results.filter((r) => r.body.status === 'success')).toHaveLength(1);
    expect(await balanceMinor(fresh)).toBe(10050);
  });
});
