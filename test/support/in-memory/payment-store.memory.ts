/**
 * PaymentStore in memory, write for write the transactions of shared/adapters/dynamodb/payment.repository.ts:
 * the same items in the same order, the same conditions, the same WriteConflict entity, the same events returned.
 */
import { type Credit, type PaymentStore, WriteConflict } from '../../../shared/application/ports';
import type { Payment } from '../../../shared/domain/payments/payment';
import type { AttemptWatch } from '../../../shared/domain/payments/attempt-watch';
import type { CheckoutSession } from '../../../shared/domain/payments/session';
import { MemoryTable, strip, type WorkIndexEntry } from './memory-table';
import { balanceMovement, eventPuts, paymentWrites, sessionItem, sessionWrites } from './memory-writes';
import { WORK_SHARDS } from '../../../shared/adapters/dynamodb/keys';

export interface MemoryPaymentStore extends PaymentStore {
  readonly table: MemoryTable;
}

/** The work index's due items (GSI2 EXPIRY#shard, sort key <= now#~), shard by shard, each shard in sort-key order. */
function dueInWorkIndex(
  items: Array<{ kind: 'session' | 'payment'; id: string; item: { _expiry?: WorkIndexEntry } }>,
  now: string,
  limit: number,
) {
  const found: Array<{ kind: 'session' | 'payment'; id: string }> = [];
  for (let shard = 0; shard < WORK_SHARDS && found.length < limit; shard++) {
    const due = items
      .filter((x) => x.item._expiry && x.item._expiry.shard === shard && x.item._expiry.sortKey <= `${now}#~`)
      .sort((a, b) => (a.item._expiry?.sortKey ?? '').localeCompare(b.item._expiry?.sortKey ?? ''));
    for (const x of due.slice(0, limit - found.length)) found.push({ kind: x.kind, id: x.id });
  }
  return found;
}

export function memoryPaymentStore(table: MemoryTable = new MemoryTable()): MemoryPaymentStore {
  const watches = new Map<string, AttemptWatch>();
  const credit = (payment: Payment, c: Credit | undefined, now: string) =>
    c
      ? balanceMovement({
          merchantId: payment.merchant_id,
          livemode: payment.livemode,
          ...c,
          reason: 'payment',
          objectId: payment.payment_id,
          at: now,
        })
      : [];

  return {
    table,

    async createSession(session) {
      // PutItem with attribute_not_exists(PK): a taken id is 'exists', nothing is overwritten.
      if (table.sessions.has(session.session_id)) return 'exists';
      table.sessions.set(session.session_id, sessionItem(session));
      return 'created';
    },

    async getSession(id) {
      const s = table.sessions.get(id);
      return s ? strip<CheckoutSession>(s) : null;
    },

    async getPayment(id) {
      const p = table.payments.get(id);
      return p ? strip<Payment>(p) : null;
    },

    async recordNewPayment({ payment, session, events, credit: c, now }) {
      await table.transact([
        paymentWrites.create(payment),
        ...(session ? [sessionWrites.link(session, payment.payment_id, payment.status, now)] : []),
        ...eventPuts(events),
        ...credit(payment, c, now),
      ]);
      return events;
    },

    async transitionPayment({ payment, to, patch, session, events, credit: c, now }) {
      await table.transact([
        paymentWrites.transition(payment, to, patch, now),
        ...(session ? [sessionWrites.link(session, payment.payment_id, to, now)] : []),
        ...eventPuts(events),
        ...credit(payment, c, now),
      ]);
      return events;
    },

    async transitionSession({ session, to, payment, events, now }) {
      await table.transact([
        sessionWrites.close(session, to, payment?.to, now),
        ...(payment ? [paymentWrites.close(payment.payment.payment_id, payment.to, now)] : []),
        ...eventPuts(events),
      ]);
      return events;
    },

    // The memory backends hold test-mode payments only: no provider holds them, so nothing waits for a read-back.
    async touchPayment({ payment, patch, now }) {
      const stored = table.payments.get(payment.payment_id);
      if (!stored || stored.status !== payment.status) throw new WriteConflict('payment');
      table.payments.set(payment.payment_id, { ...stored, ...patch, updated_at: now });
    },
    async claimReadBack({ payment, now, gapSeconds }) {
      const stored = table.payments.get(payment.payment_id) as (Payment & { read_back_at?: string }) | undefined;
      const cutoff = new Date(Date.parse(now) - gapSeconds * 1000).toISOString();
      if (!stored || stored.status !== payment.status || (stored.read_back_at !== undefined && stored.read_back_at > cutoff)) return false;
      table.payments.set(payment.payment_id, { ...stored, read_back_at: now } as never);
      return true;
    },
    // Disputes come from a card provider's notifications: live payments only, which the memory backends never hold.
    getDisputeCase: async () => null,
    disputePayment: async () => {
      throw new Error('the memory store holds test-mode payments only: nothing is disputed');
    },
    // A failover: the same condition as payment.entity's switchAttempt (status processing, the attempt read).
    async switchAttempt({ payment, ended, next, watch, now }) {
      const stored = table.payments.get(payment.payment_id);
      if (!stored || stored.status !== 'processing' || stored.provider?.reference !== payment.provider?.reference)
        throw new WriteConflict('payment');
      if (watch && watches.has(`${watch.provider}#${watch.reference}`)) throw new WriteConflict('attempt_watch');
      table.payments.set(payment.payment_id, {
        ...stored,
        provider: next,
        ended_attempts: [...(stored.ended_attempts ?? []), ...ended],
        updated_at: now,
      });
      if (watch) watches.set(`${watch.provider}#${watch.reference}`, watch);
    },
    async dueAttemptWatches(now, limit) {
      return [...watches.values()].filter((w) => w.next_check_at && w.next_check_at <= now).slice(0, limit);
    },
    async moveAttemptWatch({ watch, nextCheckAt }) {
      const k = `${watch.provider}#${watch.reference}`;
      const stored = watches.get(k);
      if (!stored || stored.next_check_at !== watch.next_check_at) throw new WriteConflict('attempt_watch');
      watches.set(k, { ...stored, next_check_at: nextCheckAt ?? '', checks: stored.checks + 1 });
    },
    dueForProviderCheck: async () => [],
    oldestProviderCheck: async () => null,

    async dueForExpiry(now, limit) {
      return dueInWorkIndex(
        [
          ...[...table.sessions.values()].map((item) => ({ kind: 'session' as const, id: item.session_id, item })),
          ...[...table.payments.values()].map((item) => ({ kind: 'payment' as const, id: item.payment_id, item })),
        ],
        now,
        limit,
      );
    },
  };
}
