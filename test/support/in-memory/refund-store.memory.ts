/**
 * RefundStore in memory, as shared/adapters/dynamodb/refund.repository.ts with the payment entity's refund
 * writes (entities/payment.entity.ts):
 *   create  refund (id free) + payment reservation (success AND refunded_minor <= amount - refund) + balance
 *           debit (covered) + ledger entry + events
 *   settle  refund status move from the status read + payment settled (success; the one settling the whole
 *           amount also moves it to refunded, conditional on the settled total read) or reservation released
 *           (refunded_minor >= amount) + credit-back on failure + events
 */
import type { RefundStore } from '../../../shared/application/ports';
import type { Payment } from '../../../shared/domain/payments/payment';
import type { Refund, RefundStatus } from '../../../shared/domain/refunds/refund';
import { dynamoCopy, MemoryTable, setValues, strip, type MemoryWrite, type StoredPayment } from './memory-table';
import { balanceMovement, eventPuts, sessionWrites } from './memory-writes';

export interface MemoryRefundStore extends RefundStore {
  readonly table: MemoryTable;
}

const paymentItem = (paymentId: string) => `payment#${paymentId}`;

export const refundWrites = {
  create: (r: Refund): MemoryWrite => ({
    entity: 'refund',
    item: `refund#${r.refund_id}`,
    check: (t) => !t.refunds.has(r.refund_id),
    apply: (t) => void t.refunds.set(r.refund_id, dynamoCopy(r)),
  }),

  transition(r: Refund, to: RefundStatus, patch: Partial<Refund>, now: string): MemoryWrite {
    const fields = setValues({ ...patch, status: to, updated_at: now }, 'refund.transition');
    return {
      entity: 'refund',
      item: `refund#${r.refund_id}`,
      check: (t) => t.refunds.get(r.refund_id)?.status === r.status,
      apply: (t) => void Object.assign(t.refunds.get(r.refund_id) as Refund, dynamoCopy(fields)),
    };
  },

  /** paymentEntity.reserveRefund: never more than what is left, under any concurrency. */
  reserve: (paymentId: string, amountMinor: number, paymentAmountMinor: number, now: string): MemoryWrite => ({
    entity: 'payment',
    item: paymentItem(paymentId),
    check: (t) => {
      const p = t.payments.get(paymentId);
      return p?.status === 'success' && (p.refunded_minor === undefined || p.refunded_minor <= paymentAmountMinor - amountMinor);
    },
    apply: (t) => {
      const p = t.payments.get(paymentId) as StoredPayment & { refunded_minor?: number };
      Object.assign(p, { refunded_minor: (p.refunded_minor ?? 0) + amountMinor, updated_at: now });
    },
  }),

  /** paymentEntity.releaseRefund: a failed refund gives its reservation back. */
  release: (paymentId: string, amountMinor: number, now: string): MemoryWrite => ({
    entity: 'payment',
    item: paymentItem(paymentId),
    check: (t) => {
      const p = t.payments.get(paymentId);
      return p?.refunded_minor !== undefined && p.refunded_minor >= amountMinor;
    },
    apply: (t) => {
      const p = t.payments.get(paymentId) as StoredPayment;
      Object.assign(p, { refunded_minor: (p.refunded_minor ?? 0) - amountMinor, updated_at: now });
    },
  }),

  /** paymentEntity.settleRefund: counts as settled; the settling of the whole amount also moves the payment to refunded. */
  settle(p: Payment, amountMinor: number, fullyRefunded: boolean, now: string): MemoryWrite {
    const settled = p.refund_settled_minor ?? 0;
    return {
      entity: 'payment',
      item: paymentItem(p.payment_id),
      check: (t) => {
        const stored = t.payments.get(p.payment_id);
        if (stored?.status !== 'success') return false;
        return settled ? stored.refund_settled_minor === settled : stored.refund_settled_minor === undefined;
      },
      apply: (t) => {
        const stored = t.payments.get(p.payment_id) as StoredPayment;
        Object.assign(stored, {
          refund_settled_minor: (stored.refund_settled_minor ?? 0) + amountMinor,
          updated_at: now,
          ...(fullyRefunded ? { status: 'refunded' } : {}),
        });
      },
    };
  },
};

export function memoryRefundStore(table: MemoryTable = new MemoryTable()): MemoryRefundStore {
  const movement = (r: Refund, sign: 1 | -1, entryId: string, reason: string, at: string) =>
    balanceMovement({
      merchantId: r.merchant_id,
      livemode: r.livemode,
      currency: r.currency,
      amountMinor: sign * r.amount_minor,
      entryId,
      reason,
      objectId: r.refund_id,
      at,
    });

  return {
    table,

    async get(refundId) {
      const r = table.refunds.get(refundId);
      return r ? strip<Refund>(r) : null;
    },

    async claimSend(refundId, now, leaseSeconds) {
      const r = table.refunds.get(refundId) as (Refund & { send_claimed_at?: string }) | undefined;
      const cutoff = new Date(Date.parse(now) - leaseSeconds * 1000).toISOString();
      if (!r || r.status !== 'pending' || (r.send_claimed_at && r.send_claimed_at > cutoff)) return false;
      table.refunds.set(refundId, { ...r, send_claimed_at: now } as Refund);
      return true;
    },

    async releaseSend(refundId, claimedAt) {
      const r = table.refunds.get(refundId) as (Refund & { send_claimed_at?: string }) | undefined;
      if (r?.send_claimed_at === claimedAt) table.refunds.set(refundId, { ...r, send_claimed_at: undefined } as Refund);
    },

    async listByPayment(paymentId) {
      // GSI1 PAYMENT#id#REFUNDS, oldest first by created_at#refund_id.
      return [...table.refunds.values()]
        .filter((r) => r.payment_id === paymentId)
        .sort((a, b) => `${a.created_at}#${a.refund_id}`.localeCompare(`${b.created_at}#${b.refund_id}`))
        .map((r) => strip<Refund>(r));
    },

    async create({ refund, payment, events, ledgerEntryId, now }) {
      await table.transact([
        refundWrites.create(refund),
        refundWrites.reserve(payment.payment_id, refund.amount_minor, payment.amount_minor, now),
        ...movement(refund, -1, ledgerEntryId, 'refund', now),
        ...eventPuts(events),
      ]);
      return events;
    },

    async settle({ refund, to, patch, payment, fullyRefunded, session, events, creditEntryId, now }) {
      await table.transact([
        ...(session ? [sessionWrites.link(session, payment.payment_id, 'refunded', now)] : []),
        refundWrites.transition(refund, to, patch, now),
        to === 'succeeded'
          ? refundWrites.settle(payment, refund.amount_minor, fullyRefunded, now)
          : refundWrites.release(payment.payment_id, refund.amount_minor, now),
        ...(to === 'failed' && creditEntryId ? movement(refund, 1, creditEntryId, 'refund_failed', now) : []),
        ...eventPuts(events),
      ]);
      return events;
    },
  };
}
