/**
 * The SDK (sdk/src) against the local stack over real HTTP, money-out side: sandbox.balance top-ups,
 * balance and its transactions followed page by page through the cursor, payouts (validate, create,
 * retrieve, list, cancel), events (list by cursor, retrieve, resend), and webhooks.verify on real payout
 * deliveries (X-Webhook-Signature).
 */
import { APIError, LatamPayments, SignatureVerificationError, type BalanceTransaction } from '../../sdk/src/index.ts';
import { startTestStack, type TestMerchant, type TestStack } from '../support/test-stack';
import { startReceiver, type Receiver } from '../support/receiver';
import { ledger } from '../support/payments';
import { pixBeneficiary } from '../support/sample-data';
import { until } from '../support/sdk-waits';

jest.setTimeout(60_000);

let stack: TestStack;
let receiver: Receiver;

beforeAll(async () => {
  Object.assign(process.env, { PAYOUT_SETTLEMENT_DELAY_SECONDS: '0', WEBHOOK_ALLOW_LOOPBACK: 'true', WEBHOOK_RETRY_SCHEDULE: '0,1' });
  stack = await startTestStack({ workers: true });
  receiver = await startReceiver();
});
afterAll(async () => {
  await receiver.stop();
  await stack.stop();
});

const beneficiary = (document = pixBeneficiary.document) => ({
  ...pixBeneficiary,
  document,
  document_type: 'CPF' as const,
  instant_transfer_type: 'email' as const,
});
const payout = (amount: number, document?: string) => ({
  method_code: 'svc-mt-5',
  amount,
  currency: 'BRL' as const,
  beneficiary: beneficiary(document),
});

async function merchant(): Promise<{ m: TestMerchant; client: LatamPayments }> {
  const m = await stack.createMerchant({ notification_url: receiver.url });
  return { m, client: new LatamPayments({ apiKey: m.apiKey, baseUrl: stack.baseUrl, merchantId: m.merchantId }) };
}

describe('balance', () => {
  it('top-ups show in balance.retrieve; for await over transactions follows the cursor through every page', async () => {
    const { m, client } = await merchant();
    for (const amount of [10, 20, 30, 40, 50]) await client.sandbox.balance.topUp({ currency: 'BRL', amount });
    const balance = await until(
      () => client.balance.retrieve(),
      (b) => b.balances.some((x) => x.currency === 'BRL' && x.available === 150),
    );
    expect(balance.livemode).toBe(false);

    const first = await client.balance.transactions.list({ currency: 'BRL', limit: 2 });
    expect(first).toMatchObject({ has_more: true, next_cursor: expect.any(String) });
    expect(first.data).toHaveLength(2);
    const seen: BalanceTransaction[] = [];
    for await (const tx of client.balance.transactions.list({ currency: 'BRL', limit: 2 })) seen.push(tx);
    expect(seen.map((t) => t.amount)).toEqual([50, 40, 30, 20, 10]);
    expect(new Set(seen.map((t) => t.id)).size).toBe(5);
    expect(seen.map((t) => t.type)).toEqual(Array(5).fill('top_up'));
    expect(seen).toHaveLength((await ledger(m)).length);
    expect(await client.balance.transactions.list({ currency: 'BRL', limit: 2 }).toArray({ limit: 3 })).toEqual(seen.slice(0, 3));
  });
});

describe('payouts', () => {
  it('validate, create, retrieve until completed, list through the cursor', async () => {
    const { client } = await merchant();
    await client.sandbox.balance.topUp({ currency: 'BRL', amount: 100 });
    expect(await client.payouts.validate({ method_code: 'svc-mt-5', beneficiary: beneficiary() })).toMatchObject({ valid: true });
    const invalid = await client.payouts.validate({ method_code: 'svc-mt-5', beneficiary: beneficiary('11111111111') });
    expect(invalid.valid).toBe(false);

    const ids: string[] = [];
    for (const amount of [5, 6, 7]) {
      const created = await client.payouts.create(payout(amount));
      expect(created).toMatchObject({ success: true, payout_id: expect.stringMatching(/^po_/), status: 'processing' });
      ids.push(created.payout_id);
    }
    const done = await until(
      () => client.payouts.retrieve(ids[0]!),
      (p) => p.status === 'completed',
    );
    expect(done).toMatchObject({ payout_id: ids[0], amount: 5, currency: 'BRL', completed_at: expect.any(String) });

    const listed: string[] = [];
    for await (const p of client.payouts.list({ limit: 1 })) listed.push(p.payout_id);
    expect(listed).toEqual([...ids].reverse());
    expect((await client.payouts.list({ limit: 1 })).data).toHaveLength(1);
    const methods = await client.payouts.methods.list({ country: 'BRA' });
    expect(methods.methods.map((x) => x.method_code)).toContain('svc-mt-5');
  });

  it('cancel: a pending payout is cancelled and its money returned; a second cancel is an APIError 409', async () => {
    const { client } = await merchant();
    await client.sandbox.balance.topUp({ currency: 'BRL', amount: 100 });
    const created = await client.payouts.create(payout(20, '00000000434'));
    expect(created.status).toBe('pending');
    expect(await client.payouts.cancel(created.payout_id)).toMatchObject({ payout_id: created.payout_id, status: 'cancelled' });
    expect((await client.payouts.retrieve(created.payout_id)).status).toBe('cancelled');
    expect((await client.balance.retrieve()).balances.find((b) => b.currency === 'BRL')?.available).toBe(100);
    const again = await client.payouts.cancel(created.payout_id).catch((e: unknown) => e as APIError);
    expect(again).toBeInstanceOf(APIError);
    expect((again as APIError).status).toBe(409);
  });
});

describe('events and payout webhooks', () => {
  it('list follows the cursor, retrieve shows the attempts, resend delivers again; verify accepts the payout delivery', async () => {
    const { m, client } = await merchant();
    await client.sandbox.balance.topUp({ currency: 'BRL', amount: 50 });
    const { payout_id } = await client.payouts.create(payout(5));
    const [delivery] = await receiver.waitFor(1, 15_000, (r) => r.body?.payout_id === payout_id && r.body?.event === 'payout.completed');

    const types: string[] = [];
    for await (const e of client.events.list({ object_id: payout_id, limit: 1 })) types.push(e.type);
    expect(types).toEqual(['payout.completed', 'payout.processing']);
    const eventId = String(delivery!.headers['webhook-id']);
    const event = await until(
      () => client.events.retrieve(eventId),
      (e) => e.delivery_status === 'delivered',
    );
    expect(event).toMatchObject({ event_id: eventId, type: 'payout.completed', object_id: payout_id });

    expect(await client.events.resend(eventId)).toMatchObject({ event_id: eventId, status: 'queued' });
    const [, redelivery] = await receiver.waitFor(2, 15_000, (r) => r.headers['webhook-id'] === eventId);

    for (const r of [delivery!, redelivery!]) {
      expect(r.headers['x-webhook-signature']).toBeDefined();
      expect(r.headers['x-signature']).toBeUndefined();
      const verified = client.webhooks.verify(r.rawBody, r.headers, m.webhookSecret);
      if (verified.event !== 'payout.completed') throw new Error(`got ${verified.event}`);
      expect(verified).toMatchObject({ payout_id, amount: 5 });
    }
    // Each signature is checked: a wrong hex one fails although the Standard Webhooks one is right, and the reverse.
    const { headers, rawBody } = delivery!;
    const badHex = { ...headers, 'x-webhook-signature': '0'.repeat(64) };
    expect(() => client.webhooks.verify(rawBody, badHex, m.webhookSecret)).toThrow(/X-Signature/);
    const badV1 = { ...headers, 'webhook-signature': `v1,${Buffer.alloc(32).toString('base64')}` };
    expect(() => client.webhooks.verify(rawBody, badV1, m.webhookSecret)).toThrow(/Webhook-Signature/);
    // Without the Webhook-* headers (no timestamp: replayable) only when allowed.
    const hexOnly = { 'x-webhook-signature': String(headers['x-webhook-signature']) };
    expect(() => client.webhooks.verify(rawBody, hexOnly, m.webhookSecret)).toThrow(SignatureVerificationError);
    expect(client.webhooks.verify(rawBody, hexOnly, m.webhookSecret, { allowHexOnly: true })).toMatchObject({ payout_id });
    expect(() => client.webhooks.verify(rawBody, {}, m.webhookSecret, { allowHexOnly: true })).toThrow(/No webhook signature/);
  });
});
