/**
 * Balance transactions without the engines: the cursor (opaque, bound to its filters, checked), the merge of
 * currencies newest first with each one's running balance, the reads a page costs, and the CLI's CSV fields.
 */
import { csvField } from '../../bin/cli/balance';
import {
  balanceTransactions,
  decodeCursor,
  encodeCursor,
  type BalanceTransactionDeps,
  type BalanceTransactionQuery,
} from '../../shared/application/balance';
import type { LedgerEntry } from '../../shared/domain/ledger';

const owner = { merchantId: 'mch_1', mode: 'test' as const };

/** A ledger in memory: the reader answers like the DynamoDB one (newest first, below a position, in dates). */
function fakeLedger(entries: LedgerEntry[]) {
  const stats = { queries: 0, itemsRead: 0 };
  const deps: BalanceTransactionDeps = {
    store: {
      balances: async () => {
        const sums = new Map<string, number>();
        for (const e of entries) sums.set(e.currency, (sums.get(e.currency) ?? 0) + e.amount_minor);
        return [...sums].map(([currency, available_minor]) => ({ currency, available_minor, updated_at: null }));
      },
    },
    ledger: {
      async entries(_m, _mode, currency, q) {
        stats.queries++;
        const hits = entries
          .filter((e) => e.currency === currency)
          .filter((e) => (!q.before || e.position < q.before) && (!q.from || e.created_at >= q.from) && (!q.to || e.created_at <= q.to))
          .sort((a, b) => (a.position < b.position ? 1 : -1));
        const items = hits.slice(0, q.limit);
        stats.itemsRead += items.length;
        return { items, more: hits.length > q.limit };
      },
      async sumAfter(_m, _mode, currency, after) {
        stats.queries++;
        return entries.filter((e) => e.currency === currency && e.created_at > after).reduce((s, e) => s + e.amount_minor, 0);
      },
    },
  };
  return { deps, stats };
}

let seq = 0;
function entry(currency: string, amount: number, minute: number, reason = 'test_top_up'): LedgerEntry {
  const created_at = new Date(Date.UTC(2026, 0, 1, 0, minute)).toISOString();
  const entry_id = `le_${String(++seq).padStart(6, '0')}`;
  return { entry_id, currency, amount_minor: amount, reason, object_id: 'mch_1', created_at, position: `${created_at}#${entry_id}` };
}

describe('balance transactions cursor', () => {
  const q = { currency: 'BRL', type: 'top_up' as const };

  it('round-trips the state, opaque (base64url) and bound to the merchant, mode and filters', () => {
    const state = { BRL: { at: '2026-01-01T00:00:00.000Z#le_000001', running: 1234 } };
    const raw = encodeCursor(owner, q, state);
    expect(raw).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
    expect(decodeCursor(owner, q, raw)).toEqual(state);
    expect(() => decodeCursor(owner, { currency: 'MXN', type: 'top_up' }, raw)).toThrow('another list');
    expect(() => decodeCursor(owner, { ...q, to_date: '2026-01-02' }, raw)).toThrow('another list');
    expect(() => decodeCursor({ ...owner, merchantId: 'mch_2' }, q, raw)).toThrow('another list');
    expect(() => decodeCursor({ ...owner, mode: 'live' }, q, raw)).toThrow('another list');
  });

  it.each([
    ['not a cursor', 'abc'],
    ['too many parts', `${encodeCursor(owner, q, {})}.x`],
    ['not JSON', `${encodeCursor(owner, q, {}).split('.')[0]}.bm90IGpzb24`],
    ['an array', `${encodeCursor(owner, q, {}).split('.')[0]}.${Buffer.from('[]').toString('base64url')}`],
    ['an unknown currency', encodeCursor(owner, q, { XYZ: { running: 1 } })],
    ['another currency than the filter', encodeCursor(owner, q, { MXN: { running: 1 } })],
    ['a fractional running balance', encodeCursor(owner, q, { BRL: { running: 1.5 } })],
    ['a position that is not created_at#entry_id', encodeCursor(owner, q, { BRL: { at: '~', running: 1 } })],
  ])('refuses %s with a VALIDATION_ERROR on starting_after', (_what, raw) => {
    try {
      decodeCursor(owner, q, raw);
      throw new Error('accepted');
    } catch (e) {
      expect(e).toMatchObject({ code: 'VALIDATION_ERROR', details: [{ field: 'starting_after' }] });
    }
  });
});

describe('balanceTransactions (in memory)', () => {
  const entries = [
    ...Array.from({ length: 250 }, (_, i) => entry('BRL', 100 + i, i * 2)),
    ...Array.from({ length: 40 }, (_, i) => entry('MXN', 1000 + i, i * 2 + 1)),
    entry('BRL', -5000, 600, 'payout'),
  ];

  async function pages(deps: BalanceTransactionDeps, base: Omit<BalanceTransactionQuery, 'limit'>, limit: number) {
    const seen = [];
    let starting_after: string | undefined;
    let n = 0;
    do {
      const page = await balanceTransactions(deps, owner, { ...base, limit, starting_after });
      expect(page.has_more).toBe(page.next_cursor !== null);
      seen.push(...page.data);
      starting_after = page.next_cursor ?? undefined;
      n++;
    } while (starting_after && n < 1000);
    return seen;
  }

  it('merges currencies newest first, every entry once, each currency running down to zero', async () => {
    const { deps } = fakeLedger(entries);
    const seen = await pages(deps, {}, 7);
    expect(seen.map((t) => t.entry_id).sort()).toEqual(entries.map((e) => e.entry_id).sort());
    expect(seen.map((t) => t.position)).toEqual([...seen.map((t) => t.position)].sort().reverse());
    for (const c of ['BRL', 'MXN']) {
      const mine = seen.filter((t) => t.currency === c);
      for (let i = 0; i + 1 < mine.length; i++)
        expect(mine[i]!.balance_after_minor - mine[i]!.amount_minor).toBe(mine[i + 1]!.balance_after_minor);
      expect(mine.at(-1)!.balance_after_minor).toBe(mine.at(-1)!.amount_minor);
    }
  });

  it('costs one Query of limit + 1 entries per currency a page, on page 1 and page 30 alike', async () => {
    const { deps, stats } = fakeLedger(entries);
    let starting_after: string | undefined;
    for (let page = 1; page <= 30; page++) {
      stats.queries = 0;
      stats.itemsRead = 0;
      const r = await balanceTransactions(deps, owner, { currency: 'BRL', limit: 5, starting_after });
      expect(r.data).toHaveLength(5);
      expect(stats.queries).toBe(1);
      expect(stats.itemsRead).toBe(6);
      starting_after = r.next_cursor!;
    }
  });

  it('filters by type over a bounded scan, the running balance still counting every entry', async () => {
    const { deps } = fakeLedger(entries);
    const payouts = await pages(deps, { type: 'payout' }, 10);
    expect(payouts).toHaveLength(1);
    const total = entries.filter((e) => e.currency === 'BRL').reduce((s, e) => s + e.amount_minor, 0);
    expect(payouts[0]).toMatchObject({ type: 'payout', amount_minor: -5000, balance_after_minor: total });
  });

  it('anchors a to_date list on the balance minus what came after it', async () => {
    const { deps } = fakeLedger(entries);
    const all = await pages(deps, { currency: 'BRL' }, 100);
    const pivot = all[100]!;
    const r = await balanceTransactions(deps, owner, { currency: 'BRL', to_date: pivot.created_at, limit: 3 });
    expect(r.data[0]).toMatchObject({ entry_id: pivot.entry_id, balance_after_minor: pivot.balance_after_minor });
  });

  it('refuses an entry whose reason has no type instead of guessing', async () => {
    const { deps } = fakeLedger([entry('BRL', 1, 0, 'fee')]);
    await expect(balanceTransactions(deps, owner, { limit: 5 })).rejects.toThrow('ledger reason without a type: fee');
  });
});

describe('reconciliation CSV fields', () => {
  it('quotes commas, quotes and line breaks, and defuses spreadsheet formulas in merchant text', () => {
    expect(csvField('plain')).toBe('plain');
    expect(csvField('a,b')).toBe('"a,b"');
    expect(csvField('say "hi"')).toBe('"say ""hi"""');
    expect(csvField('two\nlines')).toBe('"two\nlines"');
    expect(csvField('=HYPERLINK("x")')).toBe(`"'=HYPERLINK(""x"")"`);
    expect(csvField('@SUM(A1)')).toBe("'@SUM(A1)");
    expect(csvField('-12.50', false)).toBe('-12.50');
  });
});
