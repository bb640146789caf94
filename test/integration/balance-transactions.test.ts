/**
 * GET /api/v1/balance/transactions over HTTP on DynamoDB Local: thousands of entries paged by cursor with
 * no gap and no duplicate, each currency's running balance consistent entry to entry and equal to the
 * balance at the top, filters, isolation between merchants, and clear 400s.
 */
import { topUpTestBalance } from '../../shared/application/payouts';
import { payoutDeps } from '../../shared/wiring';
import { startTestStack, type TestMerchant, type TestStack } from '../support/test-stack';
import { card, payments } from '../support/payments';

jest.setTimeout(120_000);

let stack: TestStack;
let m: TestMerchant;
const BRL_TOP_UPS = 450;

beforeAll(async () => {
  stack = await startTestStack({ workers: false });
  m = await stack.createMerchant();
  // Written through the use case (one transaction each, as the API does), not 2,500 HTTP calls.
  for (let i = 0; i < BRL_TOP_UPS; i += 50) {
    await Promise.all(
      Array.from({ length: Math.min(50, BRL_TOP_UPS - i) }, (_, j) =>
        topUpTestBalance(payoutDeps(), m.merchantId, 'BRL', (i + j + 1) / 100),
      ),
    );
  }
  for (const amount of [100, 250.5, 0.75]) await topUpTestBalance(payoutDeps(), m.merchantId, 'MXN', amount);
  const paid = await payments(stack, m).direct({ payment_method: 'card', card: card('4242424242424242'), amount: 80 });
  expect(paid.body.status).toBe('success');
});
afterAll(() => stack.stop());

const list = (query: string, key = m.apiKey) => stack.request(`/api/v1/balance/transactions${query}`, { apiKey: key });

async function all(query: string) {
  const seen: any[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const r = await list(`${query}${query ? '&' : '?'}limit=100${cursor ? `&starting_after=${encodeURIComponent(cursor)}` : ''}`);
    expect(r.status).toBe(200);
    seen.push(...r.body.data);
    cursor = r.body.next_cursor;
    expect(r.body.has_more).toBe(cursor !== null);
    pages++;
  } while (cursor && pages < 100);
  return { seen, pages };
}

const balances = async () => {
  const r = await stack.request('/api/v1/balance', { apiKey: m.apiKey });
  return Object.fromEntries(r.body.balances.map((b: { currency: string; available: number }) => [b.currency, b.available]));
};
const cents = (v: number) => Math.round(v * 100);

describe('GET /api/v1/balance/transactions', () => {
  it('pages through every entry newest first, once each, with a running balance that adds up to the balance', async () => {
    const { seen, pages } = await all('');
    expect(seen).toHaveLength(BRL_TOP_UPS + 3 + 1);
    expect(pages).toBe(Math.ceil(seen.length / 100));
    expect(new Set(seen.map((t) => t.id)).size).toBe(seen.length);
    const created = seen.map((t) => t.created_at);
    expect([...created].sort().reverse()).toEqual(created);
    const now = await balances();
    for (const currency of ['BRL', 'MXN']) {
      const mine = seen.filter((t) => t.currency === currency);
      expect(cents(mine[0].balance_after)).toBe(cents(now[currency]));
      for (let i = 0; i + 1 < mine.length; i++) {
        // Each entry's balance before it is the next older entry's balance after.
        expect(cents(mine[i].balance_after) - cents(mine[i].amount)).toBe(cents(mine[i + 1].balance_after));
      }
      expect(cents(mine.at(-1).balance_after)).toBe(cents(mine.at(-1).amount));
      expect(mine.reduce((s, t) => s + cents(t.amount), 0)).toBe(cents(now[currency]));
    }
    expect(seen[0]).toEqual({
      id: expect.stringMatching(/^le_/),
      type: 'payment',
      amount: 80,
      currency: 'BRL',
      balance_after: now.BRL,
      source_id: expect.stringMatching(/^pi_/),
      description: expect.stringMatching(/^Payment pi_/),
      created_at: expect.any(String),
    });
  });

  it('filters by currency and by type, keeping the running balance of the whole ledger', async () => {
    const mxn = await all('?currency=MXN');
    expect(mxn.seen.map((t) => t.amount)).toEqual([0.75, 250.5, 100]);
    expect(mxn.seen.map((t) => t.balance_after)).toEqual([351.25, 350.5, 100]);
    const paymentsOnly = await all('?type=payment');
    expect(paymentsOnly.seen).toHaveLength(1);
    expect(paymentsOnly.seen[0]).toMatchObject({ type: 'payment', amount: 80 });
    const topUps = await list('?type=top_up&currency=BRL&limit=3');
    expect(topUps.body.data.map((t: any) => t.type)).toEqual(['top_up', 'top_up', 'top_up']);
    expect(cents(topUps.body.data[0].balance_after)).toBe(cents((await balances()).BRL) - 8000);
  });

  it('filters by date: entries inside the range only, their balance_after unchanged by what came later', async () => {
    const { seen } = await all('?currency=BRL');
    const pivot = seen[200];
    const to = await list(`?currency=BRL&to_date=${encodeURIComponent(pivot.created_at)}&limit=5`);
    expect(to.status).toBe(200);
    for (const t of to.body.data) expect(t.created_at <= pivot.created_at).toBe(true);
    const same = seen.find((t) => t.id === to.body.data[0].id);
    expect(to.body.data[0].balance_after).toBe(same.balance_after);
    const future = await list(`?from_date=${encodeURIComponent(new Date(Date.now() + 86_400_000).toISOString())}`);
    expect(future.body).toMatchObject({ data: [], has_more: false, next_cursor: null });
  });

  it("shows nothing of another merchant's ledger, and refuses its cursors", async () => {
    const other = await stack.createMerchant();
    const empty = await list('', other.apiKey);
    expect(empty.status).toBe(200);
    expect(empty.body.data).toEqual([]);
    await topUpTestBalance(payoutDeps(), other.merchantId, 'BRL', 12.34);
    const own = await list('', other.apiKey);
    expect(own.body.data).toEqual([
      expect.objectContaining({ type: 'top_up', amount: 12.34, balance_after: 12.34, source_id: other.merchantId }),
    ]);
    const mine = await list('?limit=5');
    const borrowed = await list(`?limit=5&starting_after=${encodeURIComponent(mine.body.next_cursor)}`, other.apiKey);
    expect(borrowed.status).toBe(400);
    expect(borrowed.body.error.details[0].field).toBe('starting_after');
  });

  it.each([
    ['?limit=0', 'limit'],
    ['?limit=101', 'limit'],
    ['?type=fee', 'type'],
    ['?currency=EUR', 'currency'],
    ['?from_date=yesterday', 'from_date'],
    ['?starting_after=not-a-cursor', 'starting_after'],
  ])('answers 400 VALIDATION_ERROR for %s, naming %s', async (query, field) => {
    const r = await list(query);
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe('VALIDATION_ERROR');
    expect(r.body.error.details.map((d: { field: string }) => d.field)).toContain(field);
  });

  it('refuses a cursor used with other filters', async () => {
    const first = await list('?currency=BRL&limit=2');
    const r = await list(`?currency=MXN&limit=2&starting_after=${encodeURIComponent(first.body.next_cursor)}`);
    expect(r.status).toBe(400);
    expect(r.body.error.details[0].field).toBe('starting_after');
  });
});
