/**
 * POST /api/v1/payouts/batch over HTTP on the local engines: each request answered on its own at its index,
 * the accepted ones debited (one debit per chunk), each payout its own object with its webhooks, the balance
 * covering only part of a batch, a keyed retry that makes nothing twice, and a bad envelope that writes nothing.
 */
import { startTestStack, type TestMerchant, type TestStack } from '../support/test-stack';
import { ledger } from '../support/payments';
import { startReceiver, type Receiver } from '../support/receiver';
import { verifyWebhook } from '../support/merchant-verify';

jest.setTimeout(90_000);

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

const pix = (document = '52998224725') => ({
  name: 'Ana Silva',
  document,
  document_type: 'CPF',
  instant_transfer_key: 'ana@example.com',
  instant_transfer_type: 'email',
});
const request = (amount: number, over: Record<string, unknown> = {}) => ({
  method_code: 'svc-mt-5',
  amount,
  currency: 'BRL',
  beneficiary: pix(),
  ...over,
});

function client(m: TestMerchant) {
  const call = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
    stack.request(path, {
      method,
      apiKey: m.apiKey,
      headers: { 'content-type': 'application/json', ...headers },
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });
  return {
    call,
    batch: (payouts: unknown, headers: Record<string, string> = {}) => call('POST', '/api/v1/payouts/batch', { payouts }, headers),
    balance: async () => {
      const r = await call('GET', '/api/v1/balance');
      return Math.round(
        ((r.body.balances as Array<{ currency: string; available: number }>).find((b) => b.currency === 'BRL')?.available ?? 0) * 100,
      );
    },
  };
}

async function merchantWith(minor: number) {
  const m = await stack.createMerchant({ notification_url: receiver.url });
  const c = client(m);
  const have = await c.balance();
  if (minor > have)
    expect((await c.call('POST', '/api/v1/sandbox/balance/top-up', { currency: 'BRL', amount: (minor - have) / 100 })).status).toBe(200);
  return { m, c, start: await c.balance() };
}

const payoutEntries = async (m: TestMerchant) => (await ledger(m)).filter((e) => e.reason === 'payout');
async function ledgerEqualsBalance(m: TestMerchant, c: ReturnType<typeof client>) {
  const sum = (await ledger(m)).reduce((s, e) => s + Number(e.amount_minor), 0);
  expect(sum).toBe(await c.balance());
}

describe('POST /api/v1/payouts/batch', () => {
  it('answers each request at its index: 33 made across two chunks, a bad field and a bad beneficiary refused alone', async () => {
    const { m, c, start } = await merchantWith(100_000);
    const payouts: unknown[] = Array.from({ length: 35 }, (_, i) => request(1 + i / 100, { metadata: { row: String(i) } }));
    payouts[7] = request(5, { amount: 'five' });
    payouts[31] = request(5, { beneficiary: pix('11111111111') });
    const r = await c.batch(payouts);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ success: true, batch_id: expect.stringMatching(/^pb_/), accepted: 33, rejected: 2 });
    const results = r.body.results as Array<Record<string, any>>;
    expect(results.map((x) => x.index)).toEqual(Array.from({ length: 35 }, (_, i) => i));
    expect(results[7]).toMatchObject({ success: false, error: { code: 'VALIDATION_ERROR', details: [{ field: 'amount' }] } });
    expect(results[7]).not.toHaveProperty('payout_id');
    expect(results[31]).toMatchObject({ success: false, error: { code: 'INVALID_BENEFICIARY' } });
    const made = results.filter((x) => x.success);
    expect(made.every((x) => /^po_/.test(x.payout_id) && x.status === 'processing')).toBe(true);
    expect(new Set(made.map((x) => x.payout_id)).size).toBe(33);

    // Exactly the accepted amounts left the balance, one ledger entry per payout, and the ledger adds up.
    const expected = made.reduce((s, x) => s + Math.round((1 + x.index / 100) * 100), 0);
    expect(await c.balance()).toBe(start - expected);
    expect((await payoutEntries(m)).map((e) => e.object_id).sort()).toEqual(made.map((x) => x.payout_id).sort());
    await ledgerEqualsBalance(m, c);

    // Each payout is its own object: read back with its row's metadata, then completed with a signed webhook.
    const one = await c.call('GET', `/api/v1/payout/${made[3]!.payout_id}`);
    expect(one.body).toMatchObject({ payout_id: made[3]!.payout_id, amount: 1.03, metadata: { row: '3' } });
    const hooks = await receiver.waitFor(
      33,
      30_000,
      (h) => h.body?.event === 'payout.completed' && made.some((x) => x.payout_id === h.body?.payout_id),
    );
    for (const h of hooks) expect(verifyWebhook(h.rawBody, h.headers as Record<string, string>, m.webhookSecret).ok).toBe(true);
    await ledgerEqualsBalance(m, c);
  });

  it('a balance that covers part of the batch: the first payouts it covers are made, the rest refused for the balance', async () => {
    const { m, c, start } = await merchantWith(5_000);
    const r = await c.batch(Array.from({ length: 8 }, () => request(10)));
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ accepted: 5, rejected: 3 });
    const results = r.body.results as Array<Record<string, any>>;
    expect(results.map((x) => x.success)).toEqual([true, true, true, true, true, false, false, false]);
    expect(results[6]).toMatchObject({ error: { code: 'INSUFFICIENT_BALANCE' } });
    expect(await c.balance()).toBe(start - 5_000);
    expect(await payoutEntries(m)).toHaveLength(5);
    await ledgerEqualsBalance(m, c);
  });

  it('a keyed retry answers the first response and makes nothing twice; the key with another body is a 422', async () => {
    const { m, c, start } = await merchantWith(10_000);
    const body = Array.from({ length: 4 }, (_, i) => request(2 + i));
    const key = { 'x-idempotency-key': `batch-${Date.now()}` };
    const first = await c.batch(body, key);
    expect(first.status).toBe(200);
    const again = await c.batch(body, key);
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    expect(await payoutEntries(m)).toHaveLength(4);
    expect(await c.balance()).toBe(start - 1_400);
    expect((await c.batch(body.slice(1), key)).status).toBe(422);
    expect(await payoutEntries(m)).toHaveLength(4);
  });

  it('a bad envelope is a 400 naming payouts and writes nothing', async () => {
    const { m, c, start } = await merchantWith(10_000);
    for (const payouts of [[], Array.from({ length: 101 }, () => request(1)), 'not a list']) {
      const r = await c.batch(payouts);
      expect(r.status).toBe(400);
      expect(r.body).toMatchObject({
        success: false,
        error: { code: 'VALIDATION_ERROR', details: [expect.objectContaining({ field: 'payouts' })] },
      });
    }
    expect((await c.call('POST', '/api/v1/payouts/batch', '{"payouts": [')).status).toBe(400);
    expect(await payoutEntries(m)).toHaveLength(0);
    expect(await c.balance()).toBe(start);
  });
});
