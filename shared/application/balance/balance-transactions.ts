/**
 * Balance transactions: the ledger newest first across currencies, each entry with the running balance of
 * its currency right after it. The first page anchors each currency on its balance item (minus what came
 * after `to_date`); the cursor carries each currency's position and running balance, so every later page
 * costs one page of reads per currency and nothing is summed twice.
 */
import { createHash } from 'node:crypto';
import type { Mode } from '../../domain/access';
import { AppError } from '../../domain/errors';
import { CURRENCY_CODES } from '../../domain/geo';
import { ledgerType, type LedgerEntry, type LedgerType } from '../../domain/ledger';
import type { Principal } from '../access';
import type { LedgerReader, SourceReader } from './ledger-ports';
import type { PayoutStore } from '../ports';

export interface BalanceTransactionDeps {
  readonly store: Pick<PayoutStore, 'balances'>;
  readonly ledger: LedgerReader;
}

/** Whose ledger: a merchant in one mode (the API key's principal, or the ops CLI's arguments). */
export interface LedgerOwner {
  readonly merchantId: string;
  readonly mode: Mode;
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

/**
 * Per currency still to read: the position read down to (absent: from the top) and the running balance
 * there. A currency read to its end leaves the cursor.
 */
export type LedgerCursor = Record<string, { at?: string; running: number }>;

type CursorFilters = Pick<BalanceTransactionQuery, 'currency' | 'type' | 'from_date' | 'to_date'>;

/** A cursor only makes sense for the ledger and filters that produced it: a digest of them is part of it. */
const filterKey = (owner: LedgerOwner, q: CursorFilters) =>
  createHash('sha256')
    .update(JSON.stringify([owner.merchantId, owner.mode, q.currency ?? '', q.type ?? '', q.from_date ?? '', q.to_date ?? '']))
    .digest('base64url')
    .slice(0, 22);

const POSITION = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z#[A-Za-z0-9_-]{1,100}$/;

/** `<binding>.<state>`, both base64url: opaque to clients, bound to the merchant, mode and filters of the list that returned it. */
export const encodeCursor = (owner: LedgerOwner, q: CursorFilters, c: LedgerCursor) =>
  `${filterKey(owner, q)}.${Buffer.from(JSON.stringify(c)).toString('base64url')}`;

const badCursor = (message: string, detail: string) =>
  new AppError('VALIDATION_ERROR', message, { details: [{ field: 'starting_after', message: detail }] });

/** The state a cursor carries, checked: known currencies (the filtered one only), positions, whole running balances. */
export function decodeCursor(owner: LedgerOwner, q: CursorFilters, raw: string): LedgerCursor {
  const [filters, state, extra] = raw.split('.');
  if (!filters || !state || extra !== undefined) {
    throw badCursor('starting_after is not a cursor this API returned.', 'must be the next_cursor of a previous page');
  }
  if (filters !== filterKey(owner, q)) {
    throw badCursor(
      'starting_after belongs to another list (other filters, or another merchant or mode).',
      'use it with the same key and the same currency, type, from_date and to_date',
    );
  }
  let c: unknown;
  try {
    c = JSON.parse(Buffer.from(state, 'base64url').toString('utf8'));
  } catch {
    c = null;
  }
  const ok =
    typeof c === 'object' &&
    c !== null &&
    !Array.isArray(c) &&
    Object.entries(c).every(
      ([currency, v]) =>
        (CURRENCY_CODES as readonly string[]).includes(currency) &&
        (!q.currency || currency === q.currency) &&
        typeof v === 'object' &&
        v !== null &&
        Number.isSafeInteger((v as { running?: unknown }).running) &&
        ((v as { at?: unknown }).at === undefined || POSITION.test(String((v as { at?: unknown }).at))),
    );
  if (!ok) throw badCursor('starting_after is not a cursor this API returned.', 'must be the next_cursor of a previous page');
  return c as LedgerCursor;
}

/** Entries read per Query when a type filter may skip many (the page is filled from these). */
const TYPED_BATCH = 100;
/** Entries a type filter may skip while filling one page, before the page is returned short (has_more stays true). */
const MAX_SCANNED = 2_000;

/** GET /api/v1/balance/transactions for the API key's merchant and mode. */
export const listBalanceTransactions = (deps: BalanceTransactionDeps, principal: Principal, q: BalanceTransactionQuery) =>
  balanceTransactions(deps, { merchantId: principal.merchant.merchant_id, mode: principal.mode }, q);

/**
 * One page. Reads: the first page one Query of the balance items (plus, with to_date, the entries after
 * it), then per currency one Query of limit + 1 entries (the extra one tells has_more); with a type
 * filter, Queries of 100 until the page is full or 2,000 entries were skipped.
 */
export async function balanceTransactions(deps: BalanceTransactionDeps, owner: LedgerOwner, q: BalanceTransactionQuery) {
  const { merchantId, mode } = owner;
  const from = q.from_date ? new Date(q.from_date).toISOString() : undefined;
  const to = q.to_date ? new Date(q.to_date).toISOString() : undefined;

  let cursor: LedgerCursor;
  if (q.starting_after) {
    cursor = decodeCursor(owner, q, q.starting_after);
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
  // Untyped, one batch of limit + 1 per currency covers the page and its has_more.
  const batch = q.type ? Math.max(TYPED_BATCH, q.limit + 1) : q.limit + 1;
  const buffers = new Map<string, { items: LedgerEntry[]; more: boolean }>();
  const head = async (currency: string) => {
    const st = cursor[currency]!;
    let buf = buffers.get(currency);
    if (!buf || (buf.items.length === 0 && buf.more)) {
      const page = await deps.ledger.entries(merchantId, mode, currency, { before: st.at, from, to, limit: batch });
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
  for (const currency of Object.keys(cursor)) if ((await head(currency)) === undefined) delete cursor[currency];
  const hasMore = Object.keys(cursor).length > 0;
  return { data, has_more: hasMore, next_cursor: hasMore ? encodeCursor(owner, q, cursor) : null };
}

/** One line of the reconciliation listing: the transaction and the reference of the object that caused it. */
export interface ReconciliationRow {
  readonly transaction: BalanceTransaction;
  /** The payment's reference_id; a refund's payment reference; a payout's metadata.reference_id or description; else ''. */
  readonly reference_id: string;
}

export interface ReconciliationDeps extends BalanceTransactionDeps {
  readonly sources: SourceReader;
}

/** The reference an entry's source object carries, found by the id's prefix; '' when none (top-ups) or not found. */
async function referenceOf(sources: SourceReader, owner: LedgerOwner, sourceId: string): Promise<string> {
  const mine = <T extends { merchant_id: string }>(o: T | null) => (o && o.merchant_id === owner.merchantId ? o : null);
  if (sourceId.startsWith('pi_')) return mine(await sources.payment(sourceId))?.reference_id ?? '';
  if (sourceId.startsWith('po_')) {
    const p = mine(await sources.payout(sourceId));
    const ref = p?.metadata.reference_id;
    return ref !== undefined && ref !== null ? String(ref) : (p?.description ?? '');
  }
  if (sourceId.startsWith('re_')) {
    const r = mine(await sources.refund(sourceId));
    if (!r) return '';
    return r.reference_id ?? mine(await sources.payment(r.payment_id))?.reference_id ?? '';
  }
  return '';
}

/**
 * The ops reconciliation listing: every entry of the filters, newest first, page after page (100 a page),
 * each with its source object's reference (each source read once).
 */
export async function* reconciliation(
  deps: ReconciliationDeps,
  owner: LedgerOwner,
  q: Pick<BalanceTransactionQuery, 'currency' | 'from_date' | 'to_date'>,
): AsyncGenerator<ReconciliationRow> {
  const references = new Map<string, Promise<string>>();
  let starting_after: string | undefined;
  do {
    const page = await balanceTransactions(deps, owner, { ...q, limit: 100, starting_after });
    for (const t of page.data) {
      if (!references.has(t.object_id)) references.set(t.object_id, referenceOf(deps.sources, owner, t.object_id));
      yield { transaction: t, reference_id: await references.get(t.object_id)! };
    }
    starting_after = page.next_cursor ?? undefined;
  } while (starting_after);
}
