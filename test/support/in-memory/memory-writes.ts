/**
 * The conditional writes of shared/adapters/dynamodb/entities/*.entity.ts, one builder each, with the same
 * conditions and effects on the in-memory table:
 *   putNew          attribute_not_exists(PK)
 *   statusMove      #status = :from (a missing item fails too)
 *   balanceMovement ADD available_minor; a debit only when available_minor >= :need (a missing balance fails)
 *   ledger entry    attribute_not_exists(PK) on LEDGER#mode#currency#at#entryId
 *   session.link    complete / first link: open AND expires_at > :now; latestOnly: payment_id = :pid
 *   session.close   open (cancelled) or open AND expires_at <= :now (expired), latest attempt unchanged
 *   payment.close   payment in a status the transition table lets reach the target
 * String comparisons of ISO timestamps, as DynamoDB compares S attributes.
 */
import type { SessionLink } from '../../../shared/application/ports';
import { shardOf } from '../../../shared/adapters/dynamodb/keys';
import { modeOf } from '../../../shared/domain/access';
import type { DomainEvent } from '../../../shared/domain/events';
import { isOpenPaymentStatus, sourcesOf, type Payment, type PaymentStatus } from '../../../shared/domain/payments/payment';
import { isOpenSessionStatus, type CheckoutSession, type SessionStatus } from '../../../shared/domain/payments/session';
import type { Payout, PayoutStatus } from '../../../shared/domain/payouts/payout';
import {
  balanceKey,
  dynamoCopy,
  setValues,
  type MemoryTable,
  type MemoryWrite,
  type StoredPayment,
  type StoredSession,
} from './memory-table';

/** GSI2 expiry entry, as indexKeys.expiry writes it. */
export const expiryEntry = (id: string, expiresAt: string) => ({ shard: shardOf(id), sortKey: `${expiresAt}#${id}` });

/** sessionEntity.item: on the work index while pending. */
export function sessionItem(s: CheckoutSession): StoredSession {
  return { ...dynamoCopy(s), ...(s.status === 'pending' ? { _expiry: expiryEntry(s.session_id, s.expires_at) } : {}) };
}

/** paymentEntity.item: on the work index while open with an expiry. */
export function paymentItem(p: Payment): StoredPayment {
  return {
    ...dynamoCopy(p),
    ...(p.expires_at && isOpenPaymentStatus(p.status) ? { _expiry: expiryEntry(p.payment_id, p.expires_at) } : {}),
  };
}

export const paymentWrites = {
  /** paymentEntity.create: putNew. */
  create: (p: Payment): MemoryWrite => ({
    entity: 'payment',
    item: `payment#${p.payment_id}`,
    check: (t) => !t.payments.has(p.payment_id),
    apply: (t) => void t.payments.set(p.payment_id, paymentItem(p)),
  }),

  /** paymentEntity.transition: statusMove from the status read; leaves the work index when `to` is not open. */
  transition(p: Payment, to: PaymentStatus, patch: Partial<Payment>, now: string): MemoryWrite {
    const fields = setValues({ ...patch, status: to, updated_at: now }, 'payment.transition');
    return {
      entity: 'payment',
      item: `payment#${p.payment_id}`,
      check: (t) => t.payments.get(p.payment_id)?.status === p.status,
      apply: (t) => {
        const stored = t.payments.get(p.payment_id) as StoredPayment;
        Object.assign(stored, dynamoCopy(fields));
        if (!isOpenPaymentStatus(to)) delete stored._expiry;
      },
    };
  },

  /** paymentEntity.close: an open payment closes with its session, only from a status that may make the move. */
  close: (paymentId: string, to: PaymentStatus, now: string): MemoryWrite => ({
    entity: 'payment',
    item: `payment#${paymentId}`,
    check: (t) => {
      const stored = t.payments.get(paymentId);
      return stored !== undefined && sourcesOf(to).includes(stored.status);
    },
    apply: (t) => {
      const stored = t.payments.get(paymentId) as StoredPayment;
      Object.assign(stored, { status: to, updated_at: now });
      delete stored._expiry;
    },
  }),
};

const openSession = (s: StoredSession | undefined): s is StoredSession => s !== undefined && isOpenSessionStatus(s.status);

export const sessionWrites = {
  /** sessionEntity.link: complete, latestOnly, or a new latest attempt. */
  link(link: SessionLink, paymentId: string, status: PaymentStatus, now: string): MemoryWrite {
    const item = `session#${link.sessionId}`;
    const openAndUnexpired = (t: MemoryTable) => {
      const s = t.sessions.get(link.sessionId);
      return openSession(s) && s.expires_at > now;
    };
    const stored = (t: MemoryTable) => t.sessions.get(link.sessionId) as StoredSession;
    if (link.complete) {
      return {
        entity: 'session',
        item,
        check: openAndUnexpired,
        apply: (t) => {
          const s = stored(t);
          Object.assign(s, { status: 'completed', payment_id: paymentId, payment_status: status, updated_at: now });
          delete s._expiry;
        },
      };
    }
    if (link.latestOnly) {
      return {
        entity: 'session',
        item,
        check: (t) => t.sessions.get(link.sessionId)?.payment_id === paymentId,
        apply: (t) => void Object.assign(stored(t), { payment_status: status, updated_at: now }),
      };
    }
    return {
      entity: 'session',
      item,
      check: openAndUnexpired,
      apply: (t) => void Object.assign(stored(t), { payment_id: paymentId, payment_status: status, updated_at: now }),
    };
  },

  /** sessionEntity.close: cancelled while open; expired while open and past its expiry; its latest attempt still the one read. */
  close(
    s: CheckoutSession,
    to: Extract<SessionStatus, 'cancelled' | 'expired'>,
    paymentTo: PaymentStatus | undefined,
    now: string,
  ): MemoryWrite {
    return {
      entity: 'session',
      item: `session#${s.session_id}`,
      check: (t) => {
        const stored = t.sessions.get(s.session_id);
        return (
          openSession(stored) && (to !== 'expired' || stored.expires_at <= now) && (stored.payment_id ?? null) === (s.payment_id ?? null)
        );
      },
      apply: (t) => {
        const stored = t.sessions.get(s.session_id) as StoredSession;
        Object.assign(stored, { status: to, updated_at: now, ...(paymentTo ? { payment_status: paymentTo } : {}) });
        delete stored._expiry;
      },
    };
  },
};

/** eventEntity.puts: each event a new item, pending delivery (the stream dispatches it). */
export function eventPuts(events: readonly DomainEvent[]): MemoryWrite[] {
  return events.map((e) => ({
    entity: 'event',
    item: `event#${e.event_id}`,
    check: (t) => !t.events.has(e.event_id),
    apply: (t) =>
      void t.events.set(e.event_id, {
        ...dynamoCopy(e),
        delivery_status: 'pending',
        attempts: [],
      }),
  }));
}

export interface Movement {
  readonly merchantId: string;
  readonly livemode: boolean;
  readonly currency: string;
  readonly amountMinor: number;
  readonly entryId: string;
  readonly reason: string;
  readonly objectId: string;
  readonly at: string;
}

/** balanceMovement: the balance update (a debit conditional on covering it) and its ledger entry. */
export function balanceMovement(m: Movement): MemoryWrite[] {
  const mode = modeOf(m.livemode);
  const bk = balanceKey(m.merchantId, mode, m.currency);
  const lk = `${m.merchantId}|${mode}|${m.currency}|${m.at}|${m.entryId}`;
  const debit = m.amountMinor < 0;
  return [
    {
      entity: 'balance',
      item: `balance#${bk}`,
      // `available_minor >= :need`: a balance that does not exist yet cannot cover a debit.
      ...(debit ? { check: (t: MemoryTable) => (t.balances.get(bk)?.available_minor ?? -Infinity) >= -m.amountMinor } : {}),
      apply: (t) => {
        const b = t.balances.get(bk);
        if (b) {
          b.available_minor += m.amountMinor;
          b.updated_at = m.at;
        } else {
          t.balances.set(bk, { merchant_id: m.merchantId, mode, currency: m.currency, available_minor: m.amountMinor, updated_at: m.at });
        }
      },
    },
    {
      entity: 'ledger_entry',
      item: `ledger#${lk}`,
      check: (t) => !t.ledger.has(lk),
      apply: (t) =>
        void t.ledger.set(lk, {
          entry_id: m.entryId,
          merchant_id: m.merchantId,
          mode,
          currency: m.currency,
          amount_minor: m.amountMinor,
          reason: m.reason,
          object_id: m.objectId,
          created_at: m.at,
        }),
    },
  ];
}

export const payoutWrites = {
  create: (p: Payout): MemoryWrite => ({
    entity: 'payout',
    item: `payout#${p.payout_id}`,
    check: (t) => !t.payouts.has(p.payout_id),
    apply: (t) => void t.payouts.set(p.payout_id, dynamoCopy(p)),
  }),

  transition(p: Payout, to: PayoutStatus, patch: Partial<Payout>, now: string): MemoryWrite {
    const fields = setValues({ ...patch, status: to, updated_at: now }, 'payout.transition');
    return {
      entity: 'payout',
      item: `payout#${p.payout_id}`,
      check: (t) => t.payouts.get(p.payout_id)?.status === p.status,
      apply: (t) => void Object.assign(t.payouts.get(p.payout_id) as Payout, dynamoCopy(fields)),
    };
  },

  /** payoutEntity.rewatch: the watch moves on (or ends) while the payout is completed with the watch read. */
  rewatch(p: Payout, next: Payout['return_watch'], now: string): MemoryWrite {
    return {
      entity: 'payout',
      item: `payout#${p.payout_id}`,
      check: (t) => {
        const held = t.payouts.get(p.payout_id);
        return held?.status === 'completed' && held.return_watch?.next_check_at === p.return_watch?.next_check_at;
      },
      apply: (t) => void Object.assign(t.payouts.get(p.payout_id) as Payout, dynamoCopy({ return_watch: next, updated_at: now })),
    };
  },

  /** payoutEntity.annotate: the provider link replaced while the status is the one read. */
  annotate(p: Payout, provider: Payout['provider'], now: string): MemoryWrite {
    return {
      entity: 'payout',
      item: `payout#${p.payout_id}`,
      check: (t) => t.payouts.get(p.payout_id)?.status === p.status,
      apply: (t) => void Object.assign(t.payouts.get(p.payout_id) as Payout, dynamoCopy({ provider, updated_at: now })),
    };
  },

  /** payoutCountersEntity.change: unconditional ADDs on the merchant's counters item. */
  counters(p: Payout, changes: Record<string, number>): MemoryWrite {
    const key = `${p.merchant_id}|${modeOf(p.livemode)}`;
    return {
      entity: 'payout_counters',
      item: `payout_counters#${key}`,
      apply: (t) => {
        const c = t.payoutCounters.get(key) ?? {};
        for (const [field, n] of Object.entries(changes)) c[field] = (c[field] ?? 0) + n;
        t.payoutCounters.set(key, c);
      },
    };
  },
};
