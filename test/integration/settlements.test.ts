/**
 * Money in flight survives a lost settlement message: a payout left processing and a refund left pending
 * (the process died between the commit and the send) are settled once the resume job finds them on the
 * settlement work index past the grace period; settled ones leave the index and are not sent again.
 */
import type { Context, ScheduledEvent } from 'aws-lambda';
import { handler as resumeJob } from '../../functions/jobs/resume-settlements.handler';
import { createPayout, type PayoutDeps } from '../../shared/application/payouts';
import { randomIds } from '../../shared/adapters/crypto';
import { createRefund } from '../../shared/application/refunds';
import type { Principal } from '../../shared/application/access';
import { paymentDeps, payoutDeps, repositories, settlementGraceSeconds } from '../../shared/wiring';
import { startTestStack, type TestMerchant, type TestStack } from '../support/test-stack';
import { card, payments } from '../support/payments';
import { between } from '../support/matchers';

jest.setTimeout(60_000);

let stack: TestStack;
beforeAll(async () => {
  Object.assign(process.env, { PAYOUT_SETTLEMENT_DELAY_SECONDS: '0', REFUND_SETTLEMENT_DELAY_SECONDS: '0' });
  stack = await startTestStack({ workers: true });
});
afterAll(() => stack.stop());

/** A rail that loses every message: what a crash between commit and send leaves behind. */
const lost = { forMode: () => ({ schedule: async () => undefined }) };

const runJobAt = (time: Date) =>
  resumeJob({ time: time.toISOString() } as ScheduledEvent, { getRemainingTimeInMillis: () => 60_000, functionName: 'resume' } as Context);

async function principalOf(m: TestMerchant): Promise<Principal> {
  const merchant = (await repositories.merchants.get(m.merchantId))!;
  return { merchant, key: { merchant_id: m.merchantId } as Principal['key'], mode: 'test', livemode: false };
}

async function waitFor<T>(read: () => Promise<T>, done: (v: T) => boolean, ms = 15_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await read();
    if (done(v) || Date.now() > end) return v;
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** A fresh merchant with 100 BRL to pay out. */
async function fundedMerchant() {
  const m = await stack.createMerchant();
  const topUp = await stack.request('/api/v1/sandbox/balance/top-up', {
    method: 'POST',
    apiKey: m.apiKey,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ currency: 'BRL', amount: 100 }),
  });
  expect(topUp.status).toBe(200);
  return m;
}

/** A 10 BRL PIX payout through the use case with the given rails; the CPF decides its sandbox outcome. */
const pixPayout = async (deps: PayoutDeps, m: TestMerchant, document: string) =>
  createPayout(
    deps,
    await principalOf(m),
    {
      method_code: 'svc-mt-5',
      amount: 10,
      currency: 'BRL',
      beneficiary: {
        name: 'Ana Silva',
        document,
        document_type: 'CPF',
        instant_transfer_key: 'ana@example.com',
        instant_transfer_type: 'email',
      },
      metadata: {},
    },
    randomIds.newId('po_'),
  );

const later = () => new Date(Date.now() + (settlementGraceSeconds() + 1) * 1000);
/** The age the job reports for what is in flight at later(): past the grace period, by less than a minute. */
const overGrace = () => between(settlementGraceSeconds() + 1, settlementGraceSeconds() + 60);

describe('resumeSettlements job', () => {
  it('settles a payout whose settle message was lost, and only once', async () => {
    const m = await fundedMerchant();
    const payout = await pixPayout({ ...payoutDeps(), rails: lost }, m, '52998224725');
    expect(payout.status).toBe('processing');
    const get = () => stack.request(`/api/v1/payout/${payout.payout_id}`, { apiKey: m.apiKey });
    await new Promise((r) => setTimeout(r, 1500));
    expect((await get()).body.status).toBe('processing'); // nothing will move it on its own

    expect(await runJobAt(new Date())).toMatchObject({ resumed: 0 }); // not overdue yet
    expect(await runJobAt(later())).toEqual({ due: 1, resumed: 1, oldestAgeSeconds: overGrace(), returnChecks: 0 });
    const done = await waitFor(get, (r) => r.body.status === 'completed');
    expect(done.body.status).toBe('completed');
    expect(await runJobAt(later())).toEqual({ due: 0, resumed: 0, oldestAgeSeconds: 0, returnChecks: 0 }); // it left the settlement index
  });

  it('settles a refund whose settle message was lost; a settled refund leaves the backlog', async () => {
    const m = await stack.createMerchant();
    const p = await payments(stack, m).direct({ payment_method: 'card', card: card('4242424242424242') });
    expect(p.body.status).toBe('success');
    const refund = await createRefund(
      { ...paymentDeps(), refundRails: lost },
      await principalOf(m),
      p.body.payment_id,
      { amount: 5, reason: 'requested_by_customer', metadata: {} },
      `re_${'resume'.padEnd(24, 'x')}${Date.now()}`,
    );
    const get = () => stack.request(`/api/v1/refunds/${refund.refund_id}`, { apiKey: m.apiKey });
    expect((await get()).body.status).toBe('pending');
    expect(await runJobAt(later())).toEqual({ due: 1, resumed: 1, oldestAgeSeconds: overGrace(), returnChecks: 0 });
    const done = await waitFor(get, (r) => r.body.status === 'succeeded');
    expect(done.body).toMatchObject({ status: 'succeeded', amount: 5 });
    expect(await runJobAt(later())).toEqual({ due: 0, resumed: 0, oldestAgeSeconds: 0, returnChecks: 0 }); // nothing in flight
    const status = await stack.request(`/cashier/cashier/status/${m.merchantId}/${p.body.payment_id}`, { apiKey: m.apiKey });
    expect(status.body).toMatchObject({ status: 'success', refunded_amount: 5 });
  });
});

describe('a sandbox payout that completed just before a crash', () => {
  it('still gets its return by the beneficiary bank: from a redelivered settle, and from the resume job', async () => {
    const { runSettlementStep } = await import('../../shared/application/payouts');
    const m = await fundedMerchant();
    // 00000000353 completes and is then returned; every message of this payout is lost until the job runs.
    const deps = { ...payoutDeps(), rails: lost };
    const payout = await pixPayout(deps, m, '00000000353');
    expect((await runSettlementStep(deps, payout.payout_id, 'settle'))?.status).toBe('completed'); // the refund step is lost
    const get = () => stack.request(`/api/v1/payout/${payout.payout_id}`, { apiKey: m.apiKey });
    expect((await get()).body.status).toBe('completed');
    expect(await runJobAt(later())).toEqual({ due: 1, resumed: 1, oldestAgeSeconds: overGrace(), returnChecks: 0 });
    const done = await waitFor(get, (r) => r.body.status === 'refunded');
    expect(done.body).toMatchObject({ status: 'refunded', failure_reason: 'returned_by_beneficiary_bank' });
    expect(await runJobAt(later())).toEqual({ due: 0, resumed: 0, oldestAgeSeconds: 0, returnChecks: 0 }); // nothing in flight
  });
});
