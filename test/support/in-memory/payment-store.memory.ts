/**
 * PaymentStore in memory, write for write the transactions of shared/adapters/dynamodb/payment.repository.ts:
 * the same items in the same order, the same conditions, the same WriteConflict entity, the same events returned.
 */
import { type Credit, type PaymentStore, WriteConflict } from '../../../shared/application/ports';
import type { Payment } from '../../../shared/domain/payments/payment';
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
    // Disputes come from a card provider's notifications: live payments only, which the memory backends never hold.
    disputePayment: async () => {
      throw new Error('the memory store holds test-mode payments only: nothing is disputed');
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
