/**
 * PayoutStore in memory, as shared/adapters/dynamodb/payout.repository.ts: create = payout (id free) + balance
 * debit (covered) + ledger entry + events + counters; transition = status move from the status read + events +
 * counters + a credit-back when the new status returns the funds; list totals from the counters item.
 */
import { WriteConflict, type BalanceView, type PayoutStore } from '../../../shared/application/ports';
import { modeOf } from '../../../shared/domain/access';
import { RETURNS_FUNDS, type Payout } from '../../../shared/domain/payouts/payout';
import { MemoryTable, strip } from './memory-table';
import { balanceMovement, eventPuts, payoutWrites } from './memory-writes';

export interface MemoryPayoutStore extends PayoutStore {
  readonly table: MemoryTable;
}

export function memoryPayoutStore(table: MemoryTable = new MemoryTable()): MemoryPayoutStore {
  const movement = (p: Payout, sign: 1 | -1, entryId: string, reason: string, at: string) =>
    balanceMovement({
      merchantId: p.merchant_id,
      livemode: p.livemode,
      currency: p.currency,
      amountMinor: sign * p.amount_minor,
      entryId,
      reason,
      objectId: p.payout_id,
      at,
    });

  /** Provider order id -> payout id, as the provider_order items (written once, never to another payout). */
  const orders = new Map<string, string>();

  return {
    table,

    async linkOrder({ provider, orderId, payoutId }) {
      const key = `${provider}#${orderId}`;
      const held = orders.get(key);
      if (held !== undefined && held !== payoutId) throw new WriteConflict('payout');
      orders.set(key, payoutId);
    },

    async payoutOfOrder(provider, orderId) {
      return orders.get(`${provider}#${orderId}`) ?? null;
    },

    async create({ payout, events, ledgerEntryId, now }) {
      await table.transact([
        payoutWrites.create(payout),
        ...movement(payout, -1, ledgerEntryId, 'payout', now),
        ...eventPuts(events),
        payoutWrites.counters(payout, { total: 1, [payout.status]: 1 }),
      ]);
      return events;
    },

    async createMany({ payouts, now }) {
      const [first] = payouts;
      if (!first) return [];
      const total = payouts.reduce((sum, { payout }) => sum + payout.amount_minor, 0);
      const counts: Record<string, number> = { total: payouts.length };
      for (const { payout } of payouts) counts[payout.status] = (counts[payout.status] ?? 0) + 1;
      // One balance debit for the sum (its ledger entries are the payouts' own, below).
      const [balance] = balanceMovement({
        merchantId: first.payout.merchant_id,
        livemode: first.payout.livemode,
        currency: first.payout.currency,
        amountMinor: -total,
        entryId: 'unused',
        reason: 'payout',
        objectId: first.payout.payout_id,
        at: now,
      });
      await table.transact([
        balance!,
        ...payouts.flatMap(({ payout, events, ledgerEntryId }) => [
          payoutWrites.create(payout),
          ...movement(payout, -1, ledgerEntryId, 'payout', now).filter((w) => w.entity !== 'balance'),
          ...eventPuts(events),
        ]),
        payoutWrites.counters(first.payout, counts),
      ]);
      return payouts.flatMap((p) => p.events);
    },

    async get(payoutId) {
      const p = table.payouts.get(payoutId);
      return p ? strip<Payout>(p) : null;
    },

    async transition({ payout, to, patch, events, creditEntryId, now }) {
      await table.transact([
        payoutWrites.transition(payout, to, patch, now),
        ...eventPuts(events),
        payoutWrites.counters(payout, { [payout.status]: -1, [to]: 1 }),
        ...(RETURNS_FUNDS.has(to) && creditEntryId ? movement(payout, 1, creditEntryId, `payout_${to}`, now) : []),
      ]);
      return events;
    },

    async rewatch({ payout, next, now }) {
      await table.transact([payoutWrites.rewatch(payout, next, now)]);
    },

    async claimSend({ payoutId, now, leaseSeconds }) {
      const p = table.payouts.get(payoutId);
      const cutoff = new Date(Date.parse(now) - leaseSeconds * 1000).toISOString();
      if (!p || p.status !== 'processing' || (p.send_claimed_at && p.send_claimed_at > cutoff)) return false;
      Object.assign(p, { send_claimed_at: now });
      return true;
    },

    async releaseSend({ payoutId, claimedAt }) {
      const p = table.payouts.get(payoutId);
      if (p?.send_claimed_at === claimedAt) Object.assign(p, { send_claimed_at: null });
    },

    async switchAttempt({ payout, ended, next, now }) {
      const stored = table.payouts.get(payout.payout_id);
      if (!stored || stored.status !== 'processing' || stored.provider?.reference !== payout.provider?.reference)
        throw new WriteConflict('payout');
      table.payouts.set(payout.payout_id, {
        ...stored,
        provider: next,
        ended_attempts: [...(stored.ended_attempts ?? []), ...ended],
        updated_at: now,
      });
    },

    async annotate({ payout, provider, now }) {
      await table.transact([payoutWrites.annotate(payout, provider, now)]);
    },

    async list(merchantId, mode, q) {
      const range = q.from || q.to;
      const from = q.from ?? '0000';
      const to = `${q.to ?? '9999'}#~`;
      // GSI1 listing, newest first; a date range is a BETWEEN on created_at#id; status is a filter.
      const matching = [...table.payouts.values()]
        .filter((p) => p.merchant_id === merchantId && modeOf(p.livemode) === mode)
        .map((p) => ({ p, sk: `${p.created_at}#${p.payout_id}` }))
        .filter(({ sk }) => !range || (sk >= from && sk <= to))
        .filter(({ p }) => !q.status || p.status === q.status)
        .sort((a, b) => b.sk.localeCompare(a.sk))
        .map(({ p }) => strip<Payout>(p));
      // Total: the counters item when no date range applies (it may disagree with the items if a counter drifted).
      const total = range ? matching.length : Number(table.payoutCounters.get(`${merchantId}|${mode}`)?.[q.status ?? 'total'] ?? 0);
      // starting_after: the page begins right after that payout's place in the listing.
      const after = q.startingAfter;
      const begin = after
        ? matching.findIndex((p) => `${p.created_at}#${p.payout_id}` < `${after.created_at}#${after.payout_id}`)
        : q.offset;
      const start = begin < 0 ? matching.length : begin;
      return { items: matching.slice(start, start + q.limit), total, more: start + q.limit < matching.length };
    },

    async balances(merchantId, mode) {
      // Query PK = MERCHANT#id, SK begins_with BALANCE#mode#: one per currency, by currency.
      return [...table.balances.values()]
        .filter((b) => b.merchant_id === merchantId && b.mode === mode)
        .sort((a, b) => a.currency.localeCompare(b.currency))
        .map((b): BalanceView => ({ currency: b.currency, available_minor: b.available_minor, updated_at: b.updated_at ?? null }));
    },

    async topUp({ merchantId, livemode, currency, amountMinor, entryId, reason, now }) {
      await table.transact(
        balanceMovement({ merchantId, livemode, currency, amountMinor, entryId, reason, objectId: merchantId, at: now }),
      );
    },
  };
}
