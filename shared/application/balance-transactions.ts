/**
 * Balance transactions: the ledger newest first across currencies, each entry with the running balance of
 * its currency right after it. The first page anchors each currency on its balance item (minus what came
 * after `to_date`); the cursor carries each currency's position and running balance, so every later page
 * costs one page of reads per currency and nothing is summed twice.
 */
import type { Mode } from '../domain/access';
import { AppError } from '../domain/errors';
import { ledgerType, type LedgerEntry, type LedgerType } from '../domain/ledger';
import type { Principal } from './authenticate';
import type { LedgerReader } from './ledger-ports';
import type { PayoutStore } from './payout-ports';

export interface BalanceTransactionDeps {
  readonly store: Pick<PayoutStore, 'balances'>;
  readonly ledger: LedgerReader;
}

export interface BalanceTransactionQuery {
  readonly currency?: string;
  readonly type?: LedgerType;
  readonly from_date?: string;
  readonly to_date?: string;
  readonly limit: number;
  readonly starting_after?: string;
}

export interface BalanceTransaction extends LedgerEntry {
  readonly type: LedgerType;
  /** The currency's available balance right after this entry (minor units). */
  readonly balance_after_minor: number;
}

/** Per currency: the position read down to (undefined: from the top) and the running balance there. */
type Cursor = Record<string, { at?: string; running: number; done?: boolean }>;

const encode = (c: Cursor) => Buffer.from(JSON.stringify(c)).toString('base64url');
function decode(raw: string): Cursor {
  try {
    const c = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8')) as Cursor;
    if (typeof c !== 'object' || c === null) throw new Error('not an object');
    for (const v of Object.values(c)) if (typeof v?.running !== 'number') throw new Error('bad running balance');
    return c;
  } catch {
    throw new AppError('VALIDATION_ERROR', 'starting_after is not a cursor this API returned.', {
      details: [{ field: 'starting_after', message: 'must be the next_cursor of a previous page' }],
    });
  }
}

/** A cursor only makes sense with the filters that produced it: they are part of it. */
const filterKey = (q: BalanceTransactionQuery) => [q.currency ?? '', q.type ?? '', q.from_date ?? '', q.to_date ?? ''].join('|');

const READ_BATCH = 100;
/** Entries a type filter may skip while filling one page, before the page is returned short (has_more stays true). */
const MAX_SCANNED = 2_000;

export async function listBalanceTransactions(deps: BalanceTransactionDeps, principal: Principal, q: BalanceTransactionQuery) {
  const merchantId = principal.merchant.merchant_id;
  const mode: Mode = principal.mode;
  const from = q.from_date ? new Date(q.from_date).toISOString() : undefined;
  const to = q.to_date ? new Date(q.to_date).toISOString() : undefined;

  let cursor: Cursor;
  if (q.starting_after) {
    const [filters, raw] = q.starting_after.split('.', 2);
    if (filters !== Buffer.from(filterKey(q)).toString('base64url') || !raw) {
      throw new AppError('VALIDATION_ERROR', 'starting_after belongs to a list with other filters.', {
        details: [{ field: 'starting_after', message: 'use it with the same currency, type, from_date and to_date' }],
      });
    }
    cursor = decode(raw);
  } else {
    cursor = {};
    const balances = await deps.store.balances(merchantId, mode);
    for (const b of balances) {
      if (q.currency && b.currency !== q.currency) continue;
      const after = to ? await deps.ledger.sumAfter(merchantId, mode, b.currency, to) : 0;
      cursor[b.currency] = { running: b.available_minor - after };
    }
  }

  // One buffer per currency, filled a batch at a time; the newest head across currencies goes next.
  const buffers = new Map<string, { items: LedgerEntry[]; more: boolean }>();
  const head = async (currency: string) => {
    const st = cursor[currency]!;
    let buf = buffers.get(currency);
    if (!buf || (buf.items.length === 0 && buf.more)) {
      if (st.done) return undefined;
      const page = await deps.ledger.entries(merchantId, mode, currency, { before: st.at, from, to, limit: READ_BATCH });
      buf = { items: page.items, more: page.more };
      buffers.set(currency, buf);
    }
    return buf.items[0];
  };

  const data: BalanceTransaction[] = [];
  let scanned = 0;
  while (data.length < q.limit && scanned < MAX_SCANNED) {
    let next: LedgerEntry | undefined;
    for (const currency of Object.keys(cursor)) {
      const h = await head(currency);
      if (h && (!next || h.position > next.position)) next = h;
    }
    if (!next) break;
    const st = cursor[next.currency]!;
    buffers.get(next.currency)!.items.shift();
    const type = ledgerType(next.reason);
    if (!q.type || q.type === type) data.push({ ...next, type, balance_after_minor: st.running });
    st.running -= next.amount_minor;
    st.at = next.position;
    scanned++;
  }
  for (const [currency, buf] of buffers) if (buf.items.length === 0 && !buf.more) cursor[currency]!.done = true;
  let hasMore = false;
  for (const currency of Object.keys(cursor)) if ((await head(currency)) !== undefined) hasMore = true;
  return {
    data,
    has_more: hasMore,
    next_cursor: hasMore ? `${Buffer.from(filterKey(q)).toString('base64url')}.${encode(cursor)}` : null,
  };
}
